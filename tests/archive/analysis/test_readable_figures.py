"""Every analysis figure drawn from a real log reads plainly (figure_checks):
units on its axes, plain numbers, whole ticks where it counts, no text on
another; the per-user panels in the units their labels name."""
from __future__ import annotations

import pytest
from figure_checks import catch, readable, tick_texts, whole_ticks
from wla.archive import open as open_archive
from wla.archive.analysis.capacity.plot import plot_capacity
from wla.archive.analysis.cycles import arrival_cycles
from wla.archive.analysis.cycles_plot import plot_cycles
from wla.archive.analysis.flurries_plot import plot_flurries
from wla.archive.analysis.load_plot import plot_load
from wla.archive.analysis.stats.collect import workload_statistics
from wla.archive.analysis.stats.plot import pox_comparison, write_plots
from wla.archive.kernel.clock import LogClock, log_clock
from wla.archive.store.catalog import log_info
from wla.archive.store.select import log_query

LOG = "SDSC-SP2-1998-4.2-cln"


@pytest.fixture(scope="module")
def sp2(sp2_archive_file):
    with open_archive(sp2_archive_file) as a:
        return a.df(log_query(a, LOG)), log_info(a, LOG)["log"]


def _labels(fig) -> list[str]:
    return [t for ax in fig.axes for t in (ax.get_xlabel(), ax.get_ylabel()) if t]


@pytest.mark.slow
def test_capacity_load_and_flurries_have_units_and_whole_counts(sp2, tmp_path, monkeypatch):
    jobs, info = sp2
    figures = catch(monkeypatch)
    size, start, tz = int(info["machine_size"]), info["unix_start_time"], info["tz"]
    plot_capacity(jobs, size, tmp_path / "c.png", unix_start_time=start, tz=tz)
    plot_load(jobs, tmp_path / "l.svg", capacity=size, unix_start_time=start, tz=tz)
    plot_flurries(jobs, tmp_path / "f.pdf", unix_start_time=start, tz=tz)
    plot_flurries(jobs, tmp_path / "g.png")  # no start time: weeks of the log
    capacity, load, flurries, weeks = figures
    assert _labels(capacity) == ["date (US/Pacific)", "utilization (% of capacity)"]
    assert _labels(load) == ["date (US/Pacific)", "utilization (% of 128 processors)"]
    assert _labels(flurries) == ["week's start (US/Pacific)", "jobs per week"]
    assert _labels(weeks) == ["week of the log", "jobs per week"]
    assert all(t.endswith("%") for t in tick_texts(capacity.axes[0].yaxis) + tick_texts(load.axes[0].yaxis))
    assert "capacity (128 processors)" in [t.get_text() for t in capacity.axes[0].get_legend().get_texts()]
    # the average weekly total, counted by hand: jobs with a known submit over the weeks they span
    known = jobs.submit[jobs.submit >= 0]
    weekly = len(known) / (known.max() // (7 * 86400) - known.min() // (7 * 86400) + 1)
    assert f"average weekly total ({weekly:,.0f} jobs)" in [t.get_text() for t in flurries.legends[0].get_texts()]
    for fig in (flurries, weeks):
        assert whole_ticks(fig.axes[0].yaxis)
    for fig in figures:
        assert readable(fig) == []


def test_cycles_count_jobs_in_whole_ticks(sp2, tmp_path, monkeypatch):
    jobs, info = sp2
    figures = catch(monkeypatch)
    cycles = arrival_cycles(jobs["submit"].to_numpy(), log_clock(info["unix_start_time"], info["tz"]))
    plot_cycles(cycles, tmp_path / "c.png", f"{LOG}: arrivals")
    [fig] = figures
    assert fig.axes[0].get_ylabel() == "jobs submitted" and fig.axes[1].get_xlabel() == "hour of the day (US/Pacific)"
    assert whole_ticks(fig.axes[0].yaxis) and whole_ticks(fig.axes[1].yaxis)
    assert max(int(t.replace(",", "")) for t in tick_texts(fig.axes[1].yaxis)) >= 1000  # thousands, plainly
    assert readable(fig) == []


@pytest.mark.slow
def test_statistics_figures_name_their_units(sp2, tmp_path, monkeypatch):
    jobs, info = sp2
    clock = LogClock(info["unix_start_time"], info["tz"])
    stats = workload_statistics(jobs, int(info["machine_size"]), clock)
    figures = catch(monkeypatch)
    write_plots(stats, tmp_path, LOG)
    pox_comparison(stats["hurst"], [{"H": 0.6, "intercept": -0.2}, {"H": 0.8, "intercept": -0.4}], tmp_path / "p.png")
    pox, bins, users, cycles, comparison = figures
    for fig in (pox, comparison):
        assert _labels(fig) == ["log10 n (n: a block's length in periods of 600 s)",
                                "log10 R/S (rescaled range, no unit)"]
    assert _labels(bins) == ["share of a day's jobs in its top bin (%)", "days"] + [
        "share of a day's jobs in its top bin (%)"] * 2
    assert whole_ticks(bins.axes[0].yaxis)
    assert all(t.endswith("%") for t in tick_texts(bins.axes[0].xaxis))
    median = stats["bins"]["run"]["summary"]["median"]
    assert f"median {100 * median:.4g}%" in [t.get_text() for t in bins.axes[0].get_legend().get_texts()]
    panels = [ax for ax in users.axes if ax.axison]
    assert [ax.get_xlabel() for ax in panels] == [
        "jobs per user (jobs)", "sessions per user (sessions)", "average session length (h)",
        "CPU work per user (processor-h)", "first arrival after the log's start (d)",
        "last departure after the log's start (d)", "activity period (d)"]
    assert all(whole_ticks(ax.yaxis) for ax in panels)
    # the activity periods drawn in days: the largest reaches the log's span in days, by hand
    span = (jobs.submit.max() - jobs.submit.min()) / 86400
    assert 0.5 * span < panels[-1].get_xlim()[1] < 1.2 * span
    assert panels[0].get_xscale() == "log"
    for fig in figures:
        assert readable(fig) == [], fig.texts[0].get_text() if fig.texts else fig.axes[0].get_title()
