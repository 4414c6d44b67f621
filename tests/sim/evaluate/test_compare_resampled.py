"""`wla compare --resample`: A and B on the same resampled workloads. The
paired differences are recomputed here from workloads made and simulated
one by one (numpy and scipy for the summaries); a pair is kept only where
neither side saturated; the result does not depend on the executor; and the
reproduction on SDSC SP2 (slow) gives the numbers
docs/pages/reproductions/compare-resampled.md shows."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from cli_run import wla
from real_logs import ROOT
from scipy import stats
from wla.archive import open as open_archive
from wla.sim import from_archive, simulate
from wla.sim.evaluate.compare import Configuration, paired_metrics
from wla.sim.evaluate.compare_resampled import compare_resampled
from wla.sim.evaluate.resample.settings import ResampleSettings
from wla.sim.evaluate.resample.study import Resampling, run_seed
from wla.sim.evaluate.resample.workload import read_source, resample_source
from wla.sim.evaluate.summary import RUN_COLUMNS, SATURATED, metric_values

LOG = "SDSC-SP2-1998-4.2-cln"
PAGE = ROOT / "docs" / "pages" / "reproductions" / "compare-resampled.md"


@pytest.fixture(scope="module")
def source(sp2_archive_file):
    with open_archive(sp2_archive_file) as a:
        return read_source(a, LOG), from_archive(a, LOG)


def test_the_paired_difference_is_that_of_each_workload_simulated_alone(source):
    """Workload i made by resample_source with run_seed(seed, i), simulated
    under EASY and under conservative backfilling: the differences, their
    mean, t-interval and wrong-conclusion ratio computed again here."""
    src, log = source
    settings = ResampleSettings(weeks=20, load=0.7, phase="cycle")
    result = compare_resampled(Configuration("A", log, {"policy": "easy"}),
                               Configuration("B", log, {"policy": "conservative"}),
                               Resampling(src, settings), runs=4, seed=1, workers=1)
    rows = {"a": [], "b": []}
    for i in range(5):
        w = log if i == 0 else resample_source(src, ResampleSettings(weeks=20, load=0.7, phase="cycle",
                                                                     seed=run_seed(1, i))).workload()
        for side, policy in (("a", "easy"), ("b", "conservative")):
            rows[side].append(metric_values(simulate(w, policy=policy, seed=1).metrics))
    a, b = np.array(rows["a"]), np.array(rows["b"])
    kept = (a[1:, SATURATED] == 0) & (b[1:, SATURATED] == 0)  # the workloads paired
    assert kept.sum() >= 2
    assert result.saturated == {"single_a": bool(a[0, SATURATED]), "single_b": bool(b[0, SATURATED]),
                                "resampled_pairs": int((~kept).sum()), "a": int(a[1:, SATURATED].sum()),
                                "b": int(b[1:, SATURATED].sum()), "kept": int(kept.sum())}
    for name in ("wait_mean", "bounded_slowdown_mean", "utilization", "measured_jobs"):
        k = RUN_COLUMNS.index(name)
        d = (b[1:, k] - a[1:, k])[kept]
        got = result.metrics[name]["difference"]
        assert got["single"] == b[0, k] - a[0, k]
        assert got["mean"] == pytest.approx(d.mean(), rel=1e-12)
        half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
        if got["ci_cut"] is None:
            assert (got["ci_low"], got["ci_high"]) == pytest.approx((d.mean() - half, d.mean() + half), rel=1e-9)
        assert got["wrong_conclusion"] == pytest.approx(np.mean(np.sign(d) != np.sign(d.mean())))
        assert result.metrics[name]["a"]["mean"] == pytest.approx(a[1:, k][kept].mean(), rel=1e-12)
        assert result.metrics[name]["b"]["runs"] == kept.sum()
        assert list(result.runs[f"{name}_b"]) == list(b[:, k])
    assert list(result.runs.workload_seed) == [-1] + [run_seed(1, i) for i in range(1, 5)]
    assert "resampling" in result.metrics["wait_mean"]["difference"]["verdict"]


def test_pairs_saturated_under_either_side_are_left_out(sp2_archive_file, tmp_path):
    """FCFS saturates some 20-week resampled workloads of SDSC SP2 that EASY
    does not: only the workloads unsaturated under both are paired, and the
    text and the warning count those left out."""
    out = tmp_path / "c.parquet"
    r = wla("compare", LOG, "--resample", "--weeks", "20", "--phase", "cycle", "--b", "policy=fcfs", "--runs", "6",
            "--seed", "3", "--workers", "1", "--save", out, archive=sp2_archive_file)
    assert r.status == 0, r.err
    runs = pd.read_parquet(out)
    shaken = runs[runs.run > 0]
    sat_a, sat_b = shaken.saturated_a == 1, shaken.saturated_b == 1
    kept = shaken[~sat_a & ~sat_b]
    assert 0 < sat_a.sum() < sat_b.sum() < 6 and len(kept) == 1  # a mixed case: the one this test is about
    assert list(kept.run) == [4]
    assert (shaken.saturation_slope_b[sat_b] > 1).all() and (shaken.saturation_slope_a[~sat_a] <= 1).all()
    left = int((sat_a | sat_b).sum())
    assert (f"paired: 1 of 6 workloads, unsaturated under both ({left} left out: {int(sat_a.sum())} saturated "
            f"under A, {int(sat_b.sum())} under B)") in " ".join(r.out.split())
    assert r.err.splitlines()[0] == (f"wla: warning: {left} of 6 resampled pairs saturated (backlog growing by more "
                                     "than 1 job a week) and are left out of the summaries")
    line = [x for x in r.out.splitlines() if x.startswith("wait_mean ")][-1]  # the verdicts' block
    assert line.endswith("one resampled run")  # one pair: a mean, no interval
    values = np.stack([runs[[f"{c}_{s}" for c in RUN_COLUMNS]].to_numpy() for s in "ab"])
    metrics = paired_metrics(values, "resampling")
    assert metrics["wait_mean"]["a"]["mean"] == kept.wait_mean_a.iloc[0]
    assert metrics["wait_mean"]["b"]["runs"] == 1


def test_the_same_on_any_executor_and_every_time(sp2_archive_file):
    args = ("compare", LOG, "--resample", "--weeks", "10", "--b", "policy=fcfs", "--runs", "3", "--json")
    one = wla(*args, "--workers", "1", archive=sp2_archive_file)
    two = wla(*args, "--workers", "2", archive=sp2_archive_file)
    again = wla(*args, "--workers", "1", archive=sp2_archive_file)
    assert one.status == 0, one.err
    assert one.out == two.out == again.out
    data = json.loads(one.out)
    assert data["settings"]["resampling"]["weeks"] == 10 and data["settings"]["shaking"] is None
    assert data["settings"]["difference"] == "B - A, paired by resampled workload"


def test_the_text_names_the_log_and_the_resampled_means(sp2_archive_file):
    r = wla("compare", LOG, "--resample", "--weeks", "10", "--load", "0.8", "--b", "policy=conservative", "--runs",
            "2", "--workers", "1", archive=sp2_archive_file)
    assert r.status == 0, r.err
    text = " ".join(r.out.split())
    assert "on the same 2 resampled workloads of SDSC-SP2-1998-4.2-cln: its users over 10 weeks, load 0.8" in text
    header = next(x for x in r.out.splitlines() if x.startswith("metric "))
    assert re.split(r"\s{2,}", header)[:5] == ["metric", "A log", "B log", "A resampled", "B resampled"]


@pytest.mark.parametrize("args, words", [
    (["--resample", "--degrees", "60,300"], "--degrees shake; leave them out"),
    (["--resample", "--degree", "30"], "--degree shake"),
    (["--resample", "--absolute"], "--absolute shake"),
    (["--resample", "--b", "version=wla1"], "version= would make A's other than B's"),
    (["--resample", "--b", "exclude=user=3"], "exclude= would make A's other than B's"),
    (["--resample", "--exclude", "user=3", "--b", "policy=fcfs"], "--resample takes no --exclude"),
    (["--load", "1.2", "--b", "policy=fcfs"], "--load shape resampled workloads: give --resample"),
    (["--rb-npw", "0.5", "--b", "policy=fcfs"], "--rb-npw shape resampled workloads: give --resample"),
    (["--weeks", "10", "--b", "policy=fcfs"], "--weeks shape resampled workloads: give --resample"),
    (["--resample", "--rb-npw", "0.5", "--b", "policy=fcfs"], "--rb-npw needs rare-behavior users"),
])
def test_refusals_are_one_line(sp2_archive_file, args, words):
    r = wla("compare", LOG, *args, "--runs", "2", "--workers", "1", archive=sp2_archive_file)
    assert words in r.one_error_line()


def test_a_query_is_not_resampled(sp2_archive_file):
    r = wla("compare", "--query", "select * from jobs", "--resample", "--b", "policy=fcfs", "--runs", "2",
            archive=sp2_archive_file)
    assert "give LOG (or LOG@VERSION), not --query" in r.one_error_line()


def _page_block(command: str) -> str:
    page = PAGE.read_text(encoding="utf-8")
    start = page.index(f"$ {command}\n") + len(command) + 3
    return page[start:page.index("```", start)]


@pytest.mark.slow  # 62 simulations of SDSC SP2 under each policy: about two minutes on one core
def test_easy_against_conservative_gives_the_numbers_of_its_page(sp2_archive_file):
    command = ("wla compare SDSC-SP2-1998-4.2-cln --resample --phase cycle --b policy=conservative --runs 30")
    r = wla(*command.split()[1:], "--json", archive=sp2_archive_file)
    assert r.status == 0, r.err
    data = json.loads(r.out)
    shown = _page_block(command)
    sat = data["saturated"]
    assert (f"paired: {sat['kept']} of 30 workloads, unsaturated under both ({sat['resampled_pairs']} left out: "
            f"{sat['a']} saturated under A, {sat['b']} under B)") in " ".join(shown.split())
    for name in ("wait_mean", "bounded_slowdown_mean"):
        d = data["metrics"][name]["difference"]
        line = next(x for x in shown.splitlines() if x.startswith(name + " ") and "%" in x)
        assert f"{d['wrong_conclusion']:.0%}" in line
        assert ("survives" in line) == d["survives"]
