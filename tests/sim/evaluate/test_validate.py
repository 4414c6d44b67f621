"""`wla stats` and `wla validate`: each resampled workload's row is what
resampling it alone, measuring it and simulating it give; the result is the
same on one process or two; where the log falls is counted by hand."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from cli_run import wla
from real_logs import pandas_log
from wla.archive import open as open_archive
from wla.archive.analysis.stats.collect import scalar_statistics, workload_statistics
from wla.sim import simulate
from wla.sim.evaluate.resample.settings import ResampleSettings
from wla.sim.evaluate.resample.study import run_seed
from wla.sim.evaluate.resample.workload import read_source, resample_source
from wla.sim.evaluate.validate import distribution, validate

LOG = "SDSC-SP2-1998-4.2-cln"


@pytest.fixture(scope="module")
def source(sp2_archive_file):
    with open_archive(sp2_archive_file) as a:
        return read_source(a, LOG)


def test_where_the_log_falls_among_the_resampled():
    # below 3: 1 and 2 (2 of 5), equal: one, counting half: 2.5 of 5 = 50%
    d = distribution(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), 3.0)
    assert d["percentile"] == 50.0 and d["mean"] == 3.0 and d["runs"] == 5
    assert d["p5"] == pytest.approx(1.2) and d["p95"] == pytest.approx(4.8)  # linear: 1 + 0.05*4, 1 + 0.95*4
    assert distribution(np.array([1.0, 2.0, np.nan]), 9.0)["percentile"] == 100.0
    assert distribution(np.array([np.nan]), 1.0) == {"original": 1.0, "runs": 0, "mean": None, "p5": None,
                                                     "p95": None, "percentile": None}


def test_each_row_is_its_workload_measured_alone_and_workers_do_not_matter(source):
    settings = ResampleSettings(weeks=30)
    one = validate(source, runs=3, seed=4, settings=settings, workers=1)
    two = validate(source, runs=3, seed=4, settings=settings, workers=2)
    assert np.array_equal(one.values, two.values, equal_nan=True)
    r = resample_source(source, ResampleSettings(weeks=30, seed=run_seed(4, 2)))
    scalars = scalar_statistics(workload_statistics(r.jobs, source.P, source.clock, detail=False))
    row = one.runs.iloc[2]
    for name, value in scalars.items():
        assert (value is None and math.isnan(row[name])) or row[name] == value
    sim = simulate(r.workload(), policy="easy", seed=4)
    assert row.wait_mean == sim.metrics["wait"]["mean"] and row.jobs == sim.counts["simulated"]
    assert row.workload_seed == run_seed(4, 2)
    assert one.runs.iloc[0].hurst == one.original["hurst"]["H"]  # run 0: the log itself
    assert set(one.statistics) >= {"hurst", "stack_depth_run", "wait_mean", "utilization", "unaccommodated_week"}


def test_stats_counts_arrivals_by_local_day_and_hour_as_pandas(sp2_archive_file, tmp_path):
    r = wla("stats", LOG, "--json", "--plot-dir", tmp_path / "figs", archive=sp2_archive_file)
    assert r.status == 0, r.err
    data = json.loads(r.out)
    jobs = pandas_log(LOG)
    with open_archive(sp2_archive_file) as a:
        start, tz = a.con.execute("SELECT unix_start_time, tz FROM logs").fetchall()[0]
    local = pd.to_datetime(start + jobs.submit[jobs.submit >= 0], unit="s", utc=True).dt.tz_convert(tz)
    assert data["statistics"]["cycles"]["day_of_week"] == local.dt.day_of_week.value_counts().sort_index().tolist()
    assert data["statistics"]["cycles"]["hour_of_day"] == local.dt.hour.value_counts().sort_index().tolist()
    assert 0.5 < data["scalars"]["hurst"] < 1
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == [
        f"{LOG}-{k}.png" for k in ("bins", "cycles", "pox", "users")]


@pytest.mark.slow
@pytest.mark.long
def test_validate_command_saves_prints_and_draws(sp2_archive_file, tmp_path):
    path = tmp_path / "a.duckdb"
    path.write_bytes(sp2_archive_file.read_bytes())
    out = tmp_path / "v.parquet"
    r = wla("validate", LOG, "--runs", "2", "--weeks", "20", "--workers", "1", "--save", out,
            "--plot-dir", tmp_path / "v", archive=path)
    assert r.status == 0, r.err
    said = " ".join(r.out.split())  # the sentence may wrap at 100 columns
    assert "2 resampled workloads (seed 0, load 1, phase activity), each simulated with EASY" in said
    t = pd.read_parquet(out)
    assert len(t) == 3 and t.workload_seed.tolist() == [-1, run_seed(0, 1), run_seed(0, 2)]
    line = next(x for x in r.out.splitlines() if x.startswith("stack_depth_run "))
    assert f"{t.stack_depth_run[0]:.4g}" in line
    assert sorted(p.name for p in (tmp_path / "v").iterdir()) == ["histograms.png", "overlay-bins.png",
                                                                 "overlay-users.png", "pox.png"]
    assert "--runs is at least 1" in wla("validate", LOG, "--runs", "0", archive=path).one_error_line()
