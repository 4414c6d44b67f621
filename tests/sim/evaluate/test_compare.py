"""`wla compare`: two configurations on the same shaken workloads, their
paired difference recomputed from the stored runs, and the verdicts worked
out by hand."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from cli_run import wla
from scipy import stats
from wla.archive.kernel.errors import UsageError
from wla.sim import shake
from wla.sim.evaluate.compare import Configuration, compare, parse_side, verdict
from wla.sim.evaluate.summary import METRIC_NAMES

LOG = "SDSC-SP2-1998-4.2-cln"


def test_verdicts_by_hand():
    """Differences 1, 2, 3: mean 2, s = 1, t(0.975, 2) = 4.302652729749464,
    half-width 4.3027 / sqrt(3) = 2.4841: the interval (-0.48, 4.48) holds 0.
    Differences 2, 3, 4, 3: mean 3, s = sqrt(2/3), t(0.975, 3) =
    3.1824463052837096, half-width 1.2991: (1.70, 4.30), survives."""
    d = verdict(1.0, np.array([1.0, 2.0, 3.0]))
    assert d["mean"] == 2.0 and d["ci_low"] == pytest.approx(2 - 4.302652729749464 / np.sqrt(3), rel=1e-12)
    assert not d["survives"] and "includes 0" in d["verdict"] and d["wrong_conclusion"] == 0.0
    d = verdict(0.5, np.array([2.0, 3.0, 4.0, 3.0]))
    half = 3.1824463052837096 * np.sqrt(2 / 3) / 2
    assert d["ci_low"] == pytest.approx(3 - half, rel=1e-12) and d["ci_high"] == pytest.approx(3 + half, rel=1e-12)
    assert d["survives"] and d["verdict"] == "survives shaking"
    d = verdict(-0.5, np.array([2.0, 3.0, 4.0, 3.0]))  # one run said B is lower; shaking says higher
    assert not d["survives"] and d["verdict"].startswith("reversed")
    d = verdict(1.0, np.array([5.0, 6.0, -1.0, 7.0]))
    assert d["wrong_conclusion"] == 0.25  # one run of four has the other sign than the mean (4.25)


def test_each_side_is_the_shaking_study_of_its_configuration(sp2_workload):
    """Paired by run index: A's runs are the EASY study's, B's the FCFS
    study's, with the same seed, to the bit."""
    result = compare(Configuration("A", sp2_workload, {"policy": "easy"}), Configuration("B", sp2_workload,
                     {"policy": "fcfs"}), runs=4, seed=5, workers=1)
    ea = shake(sp2_workload, runs=4, seed=5, workers=1, policy="easy").runs
    fc = shake(sp2_workload, runs=4, seed=5, workers=1, policy="fcfs").runs
    for name in METRIC_NAMES:
        assert list(result.runs[f"{name}_a"]) == list(ea[name])
        assert list(result.runs[f"{name}_b"]) == list(fc[name])


def test_the_command_reports_the_paired_difference_of_its_runs(sp2_archive_file, tmp_path):
    out = tmp_path / "c.parquet"
    r = wla("compare", LOG, "--a", "policy=easy", "--b", "policy=conservative", "--runs", "5", "--seed", "1",
            "--workers", "1", "--save", out, "--json", archive=sp2_archive_file)
    assert r.status == 0, r.err
    data = json.loads(r.out)
    runs = pd.read_parquet(out)
    assert not runs[["saturated_a", "saturated_b"]].to_numpy().any() and "warning" not in r.err
    for name in ("wait_mean", "bounded_slowdown_mean", "utilization"):
        a, b = runs[f"{name}_a"], runs[f"{name}_b"]
        d = (b - a).iloc[1:]
        got = data["metrics"][name]["difference"]
        assert got["single"] == b.iloc[0] - a.iloc[0]
        assert got["mean"] == pytest.approx(d.mean(), rel=1e-12)
        half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
        assert got["ci_low"] == pytest.approx(d.mean() - half, rel=1e-9, abs=1e-12)
        assert got["wrong_conclusion"] == pytest.approx((np.sign(d) != np.sign(d.mean())).mean())
        assert data["metrics"][name]["a"]["original"] == a.iloc[0]
    # conservative waits longer than EASY on this log: a real effect survives
    assert data["metrics"]["wait_mean"]["difference"]["survives"] is True
    assert [c["name"] for c in data["configurations"]] == ["policy=easy", "policy=conservative"]


def test_pairs_where_either_side_saturated_are_left_out(sp2_archive_file, tmp_path):
    """FCFS saturates SDSC-SP2 (its backlog grows all along): every pair is
    left out of the summaries, and the command says so."""
    out = tmp_path / "c.parquet"
    r = wla("compare", LOG, "--b", "policy=fcfs", "--runs", "3", "--workers", "1", "--save", out, "--json",
            archive=sp2_archive_file)
    assert r.status == 0, r.err
    runs = pd.read_parquet(out)
    assert (runs.saturated_b == 1).all() and (runs.saturated_a == 0).all()
    assert (runs.saturation_slope_b > 1).all() and (runs.saturation_slope_a <= 1).all()
    data = json.loads(r.out)
    assert data["saturated"] == {"single_a": False, "single_b": True, "shaken_pairs": 3}
    wait = data["metrics"]["wait_mean"]
    assert wait["a"]["runs"] == wait["b"]["runs"] == 0 and wait["difference"]["mean"] is None
    assert wait["b"]["original"] == runs.wait_mean_b[0]  # the single runs are still shown
    assert r.err.splitlines()[0] == ("wla: warning: 3 of 3 shaken pairs saturated (backlog growing by more than "
                                     "1 job a week) and are left out of the summaries")


def test_an_exclusion_on_one_side_measures_fewer_jobs(sp2_archive_file):
    """With and without an --exclude predicate: the same schedule (the
    excluded jobs are still simulated), measured over different jobs."""
    r = wla("compare", LOG, "--b", "exclude=user=3", "--runs", "2", "--workers", "1", "--json",
            archive=sp2_archive_file)
    assert r.status == 0, r.err
    data = json.loads(r.out)
    assert data["configurations"][1]["source"]["log"] == LOG
    assert data["metrics"]["makespan"]["difference"]["single"] == 0.0
    assert data["metrics"]["wait_mean"]["difference"]["single"] != 0.0


def test_text_names_both_sides_and_each_verdict(sp2_archive_file):
    r = wla("compare", LOG, "--b", "policy=conservative", "--runs", "3", "--workers", "1", archive=sp2_archive_file)
    assert r.status == 0, r.err
    assert r.out.startswith("A: as given") and "B: policy=conservative" in r.out
    # The verdicts' block (the table goes on below its first block, to fit 100 columns).
    line = [x for x in r.out.splitlines() if x.startswith("wait_mean ")][-1]
    assert line.endswith("survives")


@pytest.mark.parametrize("args, words", [
    ([], "say how A and B differ"),
    (["--a", "colour=red"], "KEY=VALUE with KEY one of"),
    (["--b", "load=fast"], "a number"),
    (["--b", "policy=best"], "policy"),
    (["--b", "version=nope"], "nope"),
])
def test_refusals_are_one_line(sp2_archive_file, args, words):
    run = wla("compare", LOG, *args, "--runs", "2", "--workers", "1", archive=sp2_archive_file)
    assert words in run.one_error_line()


def test_parse_side():
    assert parse_side(["policy=easy", "load=0.8", "exclude=user=3 and job>5", "procs=64"], "a") == (
        {"exclude": "user=3 and job>5", "procs": 64}, {"policy": "easy", "load_factor": 0.8})
    with pytest.raises(UsageError):
        parse_side(["procs=many"], "b")
