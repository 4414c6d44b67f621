"""A log page's figures, drawn from a real log as the site draws them, read
plainly (figure_checks): units on the axes, run times in s, min, h and d,
processors and job counts as plain whole numbers, no text on another."""
from __future__ import annotations

import numpy as np
from figure_checks import catch, readable, tick_texts, whole_ticks
from wla.archive import open as open_archive
from wla.archive.store.catalog import log_info
from wla.archive.store.select import log_query
from wla.cli.site.distributions_plot import RUN_TICKS, plot_distributions
from wla.cli.site.figures import KINDS, draw_figures

LOG = "SDSC-SP2-1998-4.2-cln"


def test_each_figure_of_a_log_page_reads_plainly(sp2_archive_file, tmp_path, monkeypatch):
    with open_archive(sp2_archive_file) as a:
        jobs, info = a.df(log_query(a, LOG)), log_info(a, LOG)["log"]
    facts = {"name": LOG, "unix_start_time": info["unix_start_time"], "tz": info["tz"],
             "machine_size": info["machine_size"]}
    figures = catch(monkeypatch)
    drawn = draw_figures(jobs, facts, tmp_path, {kind: f"{kind}.svg" for kind in KINDS})
    assert [d.absent for d in drawn] == [None] * 8 and len(figures) == 8
    cycles, distributions, utilization, flurries, requests, inter_starts, requested_time, size_run = figures
    left, right = distributions.axes
    assert left.get_ylabel() == "jobs"
    assert right.get_xlabel() == "run time (s, min, h, d), four bins a decade of seconds"
    assert all(whole_ticks(ax.yaxis) for ax in (left, right, cycles.axes[0], cycles.axes[1], flurries.axes[0]))
    # SP2's run times: from a second or so to the 18-hour limit and a few beyond: 1 s ... 1 d
    assert tick_texts(right.xaxis) == ["1 s", "10 s", "1 min", "10 min", "1 h", "1 d"]
    assert tick_texts(left.xaxis) == ["1", "4", "16", "64", "256"]  # 128 processors: bins up to 256
    assert utilization.axes[0].get_ylabel() == "utilization (% of capacity)"
    # what the paper's figures show: SP2's sizes on powers of two up to its 128 processors
    assert (requests.axes[0].get_xlabel(), requests.axes[0].get_ylabel()) == ("requested processors",
                                                                            "allocated processors")
    assert tick_texts(requests.axes[0].xaxis)[-1] == "128" and tick_texts(size_run.axes[0].xaxis)[-1] == "128"
    assert [ax.get_xlabel() for ax in inter_starts.axes] == ["seconds between starts", "seconds between arrivals"]
    assert whole_ticks(inter_starts.axes[0].yaxis)
    assert requested_time.axes[1].get_xlabel() == "hour of submission (US/Pacific)"
    for fig in figures:
        assert readable(fig) == []


def test_run_time_ticks_sit_on_their_bins(tmp_path, monkeypatch):
    # bar i spans [10^(i/4), 10^((i+1)/4)) from one second: an hour (10^3.556) is at 4 * 3.556
    import pandas as pd

    jobs = pd.DataFrame({"run": [1.0, 59.0, 3600.0, 90_000.0, 3_000_000.0], "procs": [1, 2, 3, 4, 1500],
                         "req_procs": [-1] * 5})
    figures = catch(monkeypatch)
    plot_distributions(jobs, tmp_path / "d.png", "five jobs")
    left, right = figures[0].axes
    ticks = dict(zip(tick_texts(right.xaxis), right.get_xticks()))
    assert np.isclose(ticks["1 h"], 4 * np.log10(3600)) and np.isclose(ticks["10 d"], 4 * np.log10(864_000))
    assert [s for s, _ in RUN_TICKS][:3] == [1, 10, 60]
    assert "1,024" in tick_texts(left.xaxis) and whole_ticks(left.yaxis)
    assert readable(figures[0]) == []
