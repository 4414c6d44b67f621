"""The figures of what the experience paper shows (workload_plot.py): their
numbers by hand and against pandas on KTH, drawn plainly (figure_checks)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from figure_checks import catch, readable, tick_texts
from real_logs import pandas_log
from wla.archive.analysis.workload_plot import (
    FIGURES,
    gaps,
    long_request_shares,
    plot_requests,
    size_run_correlation,
    write_figures,
)
from wla.archive.kernel.clock import log_clock


def _jobs(**columns) -> pd.DataFrame:
    n = len(next(iter(columns.values())))
    base = {c: [-1] * n for c in ("submit", "wait", "run", "procs", "req_procs", "req_time")}
    return pd.DataFrame({**base, **columns})


def test_requests_on_the_diagonal_and_four_times_it(tmp_path, monkeypatch):
    jobs = _jobs(procs=[8, 8, 32, 4, 2], req_procs=[8, 8, 8, 8, -1])
    figures = catch(monkeypatch)
    plot_requests(jobs, tmp_path / "r.png", "made")
    ax = figures[0].axes[0]
    counts = ax.collections[0].get_array()  # rows: allocated 1, 2, 4, 8, 16, 32; columns: requested
    grid = np.ma.filled(counts, 0).reshape(6, 6)
    assert grid[3, 3] == 2 and grid[5, 3] == 1 and grid[2, 3] == 1 and grid.sum() == 4
    assert tick_texts(ax.xaxis)[-1] == "32" and readable(figures[0]) == []


def test_gaps_count_one_instant_once():
    assert gaps(pd.Series([30, 0, 30, 90, 60])).tolist() == [30, 30, 30]


def test_size_run_correlation_by_hand():
    jobs = _jobs(procs=[1, 2, 4, -1], run=[10, 100, 1000, 5])
    assert size_run_correlation(jobs) == pytest.approx(1.0)  # ln run = ln 10 (1 + ln procs / ln 2)


def test_long_requests_of_kth_by_hour_match_pandas():
    """KTH's limits (section 3.4): a job over 4 h is asked for mostly after 4 PM and at the weekend."""
    name = "KTH-SP2-1996-2.1-cln"
    df = pandas_log(name)
    start, tz = 843480031, "Europe/Stockholm"  # the header's UnixStartTime and TimeZoneString
    got = long_request_shares(df, log_clock(start, tz))
    known = df[(df.req_time > 0) & (df.submit != -1)]
    local = pd.to_datetime(start + known.submit, unit="s", utc=True).dt.tz_convert(tz)
    for k, limit in enumerate((4 * 3600, 15 * 3600)):
        long = known.req_time > limit
        by_hour = long.groupby(local.dt.hour.to_numpy()).mean().reindex(range(24), fill_value=0)
        by_day = long.groupby(local.dt.day_of_week.to_numpy()).mean().reindex(range(7), fill_value=0)
        assert got["hour_of_day"][k] == pytest.approx(by_hour.to_numpy())
        assert got["day_of_week"][k] == pytest.approx(by_day.to_numpy())
    over4 = got["hour_of_day"][0]
    assert over4[17:24].mean() > 2 * over4[10:16].mean()  # evenings over working hours
    assert min(got["day_of_week"][0][5:]) > max(got["day_of_week"][0][:4])  # weekend over Monday to Thursday


def test_write_figures_says_which_cannot_be_drawn(tmp_path):
    jobs = _jobs(submit=[0, 10, 20], wait=[5, 5, 40], run=[10, 20, 30], procs=[1, 2, 4], req_time=[60, 60, 60])
    out = write_figures(jobs, log_clock(None, None), tmp_path, "made")
    assert [p for p, _ in out] == [str(tmp_path / f"made-{k}.png") for k in FIGURES]
    assert [a for _, a in out] == ["no job with both allocated and requested processors: nothing to plot",
                                   None, None, None]
    assert all((tmp_path / f"made-{k}.png").read_bytes()[:4] == b"\x89PNG" for k in list(FIGURES)[1:])
