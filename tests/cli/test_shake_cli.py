"""`wla shake`: what it prints, stores, draws and writes, checked against the
Python API, against sums done with pandas over the stored runs, and by
replaying a written shaken workload through ingest and simulate."""
from __future__ import annotations

import json

import duckdb
import numpy as np
import pandas as pd
import pytest
from cli_run import wla
from wla.archive import open as open_archive
from wla.archive.store.ingest import ingest
from wla.sim import from_archive, shake, simulate
from wla.sim.evaluate.summary import METRIC_NAMES
from wla.sim.save import parquet_settings, saved_settings

LOG = "SDSC-SP2-1998-4.2-cln"


def test_json_is_the_python_study_and_run_0_is_the_plain_simulation(sp2_archive_file, sp2_workload):
    """The command is a thin layer over wla.sim.shake, and the original it
    reports is what `wla simulate` gives."""
    r = wla("shake", LOG, "--runs", "5", "--seed", "3", "--workers", "1", "--json", archive=sp2_archive_file)
    assert r.status == 0, r.err
    printed = json.loads(r.out)
    study = shake(sp2_workload, runs=5, seed=3, workers=1)
    assert printed["summaries"] == json.loads(json.dumps(study.summaries))
    plain = simulate(sp2_workload, seed=3).metrics
    assert printed["summaries"]["wait_mean"]["original"] == plain["wait"]["mean"]
    assert printed["summaries"]["bounded_slowdown_median"]["original"] == plain["bounded_slowdown"]["median"]
    assert printed["settings"]["shaking"]["attribute"] == "interarrival"
    assert printed["settings"]["shaking"]["relative_pct"] == 10.0
    assert printed["settings"]["runs"] == 5


def test_the_saved_runs_give_the_printed_summaries(sp2_archive_file, tmp_path):
    """Mean, interval, span, distance and concentration recomputed with
    pandas and scipy from the stored rows; the file opens with pandas and
    DuckDB alike and carries the settings."""
    out = tmp_path / "runs.parquet"
    r = wla("shake", LOG, "--runs", "8", "--seed", "11", "--attribute", "runtime", "--absolute", "--degree", "30",
            "--jobs", "50", "--workers", "1", "--save", out, "--json", archive=sp2_archive_file)
    assert r.status == 0, r.err
    printed = json.loads(r.out)["summaries"]
    runs = pd.read_parquet(out)
    assert duckdb.execute(f"SELECT count(*) FROM '{out}'").fetchone()[0] == 9
    assert list(runs["run"]) == list(range(9)) and list(runs["shaken"]) == [False] + [True] * 8
    assert (runs["seed"] == 11).all()
    from scipy import stats

    for name in ("wait_mean", "bounded_slowdown_mean", "utilization"):
        o, v = runs[name].iloc[0], runs[name].iloc[1:]
        s = printed[name]
        assert s["original"] == o
        assert s["mean"] == pytest.approx(v.mean(), rel=1e-12)
        half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v))
        assert s["ci_low"] == pytest.approx(v.mean() - half, rel=1e-9)
        assert s["p95"] == pytest.approx(v.quantile(0.95), rel=1e-12)
        assert s["distance"] == pytest.approx((v.mean() - o) / o, rel=1e-9)
        assert s["concentration"] == pytest.approx(((v - o).abs() <= 0.01 * abs(o)).mean())
    settings = parquet_settings(out)["settings"]["shaking"]
    assert (settings["attribute"], settings["mode"], settings["degree"], settings["jobs_pct"]) == (
        "runtime", "absolute", 30.0, 50.0)


def test_runs_saved_in_the_archive_carry_their_settings(sp2_archive_file):
    r = wla("shake", LOG, "--runs", "3", "--workers", "1", "--save", "sp2_shaken", archive=sp2_archive_file)
    assert r.status == 0, r.err
    assert "runs saved to sp2_shaken" in r.err
    with open_archive(sp2_archive_file) as a:
        assert a.con.execute("SELECT count(*) FROM sp2_shaken").fetchone()[0] == 4
        assert saved_settings(a, "sp2_shaken")["settings"]["shaking"]["seed"] == 0


def test_check_checks_every_run(sp2_archive_file):
    """--check, as for simulate: each shaken schedule's invariants are checked
    (a run whose schedule broke one would end the study with the error)."""
    r = wla("shake", LOG, "--runs", "2", "--workers", "1", "--check", "--json", archive=sp2_archive_file)
    assert r.status == 0, r.err
    assert json.loads(r.out)["settings"]["checked"] is True
    assert "all 3 schedules checked: valid" in r.err


def test_text_shows_each_metric_against_the_original(sp2_archive_file, sp2_workload):
    r = wla("shake", LOG, "--runs", "3", "--workers", "1", archive=sp2_archive_file)
    assert r.status == 0, r.err
    for name in METRIC_NAMES:
        assert f"\n{name} " in r.out
    metrics = simulate(sp2_workload).metrics
    line = next(x for x in r.out.splitlines() if x.startswith("wait_mean (s) "))
    assert line.split()[2] == f"{metrics['wait']['mean']:,.0f}"
    line = next(x for x in r.out.splitlines() if x.startswith("utilization (%) "))
    assert line.split()[2] == f"{100 * metrics['utilization']:.1f}%"  # a fraction in --json, a percentage here
    assert "3 runs, seed 0" in r.out


def test_a_written_shaken_workload_replays_to_its_run(sp2_archive_file, sp2_workload, tmp_path):
    """Anyone can rerun run i elsewhere: the SWF file, ingested and simulated,
    gives exactly the metrics the study stored for run i."""
    runs_file = tmp_path / "runs.parquet"
    assert wla("shake", LOG, "--runs", "3", "--seed", "9", "--workers", "1", "--save", runs_file,
               archive=sp2_archive_file).status == 0
    swf = tmp_path / "run2.swf"
    r = wla("shake", LOG, "--seed", "9", "--run", "2", "--save-workload", swf, archive=sp2_archive_file)
    assert r.status == 0 and r.out == "", r.err
    text = swf.read_text()
    assert "--seed 9 --run 2" in text and "; MaxProcs: 128" in text
    other = tmp_path / "other.duckdb"
    with open_archive(other, write=True) as a:
        ingest(a, [swf])
    with open_archive(other) as a:
        replayed = simulate(from_archive(a, "run2"), seed=9).metrics
    row = pd.read_parquet(runs_file).set_index("run").loc[2]
    assert replayed["wait"]["mean"] == row["wait_mean"]
    assert replayed["bounded_slowdown"]["mean"] == row["bounded_slowdown_mean"]
    assert replayed["utilization"] == row["utilization"]
    # the file holds the simulated jobs, in shaken arrival order, and the arrivals moved
    with open_archive(other) as a:
        shaken = a.con.execute("SELECT job, submit FROM jobs ORDER BY line_no").fetchnumpy()
    assert len(shaken["job"]) == len(sp2_workload) and sorted(shaken["job"]) == sorted(sp2_workload.job)
    assert np.all(np.diff(shaken["submit"]) >= 0)
    assert not np.array_equal(shaken["submit"], np.sort(sp2_workload.submit))


def test_the_histogram_is_a_png_and_the_same_bytes_twice(sp2_archive_file, tmp_path):
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    for path in (a, b):
        r = wla("shake", LOG, "--runs", "6", "--workers", "1", "--plot", path, "--metric", "wait_mean",
                archive=sp2_archive_file)
        assert r.status == 0, r.err
    assert a.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("args, words", [
    (["--run", "1"], "--run and --save-workload go together"),
    (["--attribute", "color"], "--attribute is one of"),
    (["--jobs", "150"], "--jobs is a percentage"),
    (["--degree", "-5"], "--degree is a number >= 0"),
    (["--runs", "0"], "--runs is at least 1"),
    (["--workers", "0"], "--workers is at least 1"),
    (["--metric", "colour", "--plot", "x.png", "--runs", "1", "--workers", "1"], "--metric is one of"),
    (["--run", "1", "--save-workload", "x.csv"], "FILE.swf or FILE.swf.gz"),
])
def test_refusals_are_one_line(sp2_archive_file, tmp_path, monkeypatch, args, words):
    monkeypatch.chdir(tmp_path)
    line = wla("shake", LOG, *args, archive=sp2_archive_file).one_error_line()
    assert words in line
