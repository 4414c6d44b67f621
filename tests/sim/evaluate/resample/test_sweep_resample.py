"""Sweeps whose runs are resampled workloads: run i at a point is the log
resampled with the seed its row gives (the same workload `wla resample`
makes), run 0 the log itself; load and rb_npw set the resampling."""
from __future__ import annotations

import json

import pytest
from cli_run import wla
from wla.archive import open as open_archive
from wla.sim import from_archive, simulate
from wla.sim.evaluate.grid import parse_grid
from wla.sim.evaluate.resample.settings import ResampleSettings
from wla.sim.evaluate.resample.study import Resampling, run_seed
from wla.sim.evaluate.resample.workload import read_source, resample_source
from wla.sim.evaluate.summary import METRIC_NAMES, metric_values
from wla.sim.evaluate.sweep import sweep

LOG = "SDSC-SP2-1998-4.2-cln"


@pytest.fixture(scope="module")
def source(sp2_archive_file):
    with open_archive(sp2_archive_file) as a:
        return read_source(a, LOG, rb_from_flurries=True), from_archive(a, LOG)


def test_each_run_is_the_log_resampled_with_its_rows_seed(source):
    src, log = source
    result = sweep(log, [parse_grid("load=0.8,1.1"), parse_grid("rb_npw=0,0.25")], runs=2, seed=7, workers=1,
                   resample=Resampling(src, ResampleSettings(weeks=60)))
    t = result.table
    assert list(t.columns[:6]) == ["point", "load", "rb_npw", "run", "seed", "resampled"]
    for row in t.itertuples():
        if row.run == 0:
            want = simulate(log).metrics
            assert row.workload_seed == -1
        else:
            assert row.workload_seed == run_seed(7, row.run)
            w = resample_source(src, ResampleSettings(weeks=60, load=row.load, rb_npw=row.rb_npw,
                                                      seed=row.workload_seed)).workload()
            want = simulate(w).metrics
        got = [getattr(row, name) for name in METRIC_NAMES]
        assert got == pytest.approx(metric_values(want)[:len(METRIC_NAMES)], rel=0, nan_ok=True)
    assert result.settings["shaking"] is None and result.settings["resampling"]["weeks"] == 60


def test_the_command_and_wla_resample_make_the_same_workload(sp2_archive_file, tmp_path):
    path = tmp_path / "a.duckdb"
    path.write_bytes(sp2_archive_file.read_bytes())
    out = tmp_path / "s.parquet"
    r = wla("sweep", LOG, "--resample", "--grid", "load=0.9", "--runs", "2", "--weeks", "40", "--workers", "2",
            "--save", out, "--json", archive=path)
    assert r.status == 0, r.err
    import pandas as pd

    t = pd.read_parquet(out)
    row = t[t.run == 2].iloc[0]
    made = wla("resample", LOG, "--load", "0.9", "--weeks", "40", "--seed", str(int(row.workload_seed)),
               "--name", "again", archive=path)
    assert made.status == 0, made.err
    sim = json.loads(wla("simulate", "again", "--json", archive=path).out)
    assert sim["metrics"]["wait"]["mean"] == row.wait_mean
    assert sim["metrics"]["bounded_slowdown"]["mean"] == row.bounded_slowdown_mean
    text = wla("sweep", LOG, "--resample", "--grid", "load=0.9", "--runs", "2", "--weeks", "40", "--workers", "1",
               archive=path).out
    header = next(line for line in text.splitlines() if line.startswith("load "))
    assert "2 resampled workloads each" in text and "saturated" in header


@pytest.mark.parametrize("args, words", [
    (["--grid", "rb_npw=0,0.5"], "--grid rb_npw sets resampled workloads: give --resample"),
    (["--grid", "load=1", "--weeks", "10"], "shape resampled workloads: give --resample"),
    (["--resample", "--grid", "load=1", "--exclude", "user=3"], "not a --query, and takes no --exclude"),
    (["--resample", "--grid", "rb_npw=0.5"], "--rb-npw needs rare-behavior users"),
])
def test_refusals(sp2_archive_file, args, words):
    r = wla("sweep", LOG, "--runs", "1", "--workers", "1", *args, archive=sp2_archive_file)
    assert words in r.one_error_line()
