"""The figures of shake, sweep and validate on a real log read plainly
(figure_checks): each metric and statistic in its unit (durations in h or
d, shares in %), plain numbers in ticks and legends, whole ticks on the
axes that count runs or workloads, and validate's grid of histograms
without a label on another. The units of sim/evaluate/plot_units.py are
checked by hand."""
from __future__ import annotations

import re

import numpy as np
import pytest
from figure_checks import catch, readable, tick_texts, whole_ticks
from wla.archive import open as open_archive
from wla.sim.evaluate.grid import parse_grid
from wla.sim.evaluate.plot_units import STATISTICS, axis
from wla.sim.evaluate.resample.settings import ResampleSettings
from wla.sim.evaluate.resample.study import Resampling
from wla.sim.evaluate.resample.workload import read_source
from wla.sim.evaluate.shake import shake
from wla.sim.evaluate.shake_plot import plot_shake
from wla.sim.evaluate.summary import METRIC_NAMES
from wla.sim.evaluate.sweep import sweep
from wla.sim.evaluate.sweep_plot import plot_sweep
from wla.sim.evaluate.validate import validate
from wla.sim.evaluate.validate_plot import plot_validation

LOG = "SDSC-SP2-1998-4.2-cln"
UNIT = re.compile(r"\((?:[^()]*)\)$")  # a label ends with its unit in brackets


@pytest.fixture(scope="module")
def source(sp2_archive_file):
    with open_archive(sp2_archive_file) as a:
        return read_source(a, LOG)


def test_units_by_hand():
    assert axis("wait_mean", [20_750.0, 3_000.0]) == axis("wait_mean", [7_200.0])  # 2 h or more: hours
    assert axis("wait_mean", [20_750.0]).label == "mean wait (h)" and axis("wait_mean", [20_750]).divisor == 3600
    assert axis("wait_mean", [20_750.0]).text(20_750.0) == "5.764 h"  # 20,750 / 3,600
    assert axis("makespan", [3 * 86400.0]).label == "makespan (d)"
    assert axis("wait_median", [100.0]).label == "median wait (s)"
    assert axis("wait_median", [600.0]).label == "median wait (min)"
    assert axis("cpu_work_per_user_mean", [10 * 86400.0]).label == "CPU work per user, mean (processor-d)"
    share = axis("utilization", [0.819])
    assert (share.label, share.divisor, share.text(0.819)) == ("utilization (%)", 0.01, "81.9%")
    assert axis("bounded_slowdown_mean", [20_750.0]).text(20_750.0) == "20,750"  # a ratio: no exponent, no unit
    assert axis("measured_jobs", [5.0]).counts and axis("users", [5.0]).counts and not axis("hurst", [0.7]).counts
    assert set(METRIC_NAMES) <= set(STATISTICS)
    assert all(UNIT.search(axis(name, [1.0]).label) for name in STATISTICS)


def test_shake_histogram(sp2_workload, monkeypatch, tmp_path):
    result = shake(sp2_workload, runs=8, seed=3, workers=1)
    figures = catch(monkeypatch)
    plot_shake(result, tmp_path / "w.png", "wait_mean")
    plot_shake(result, tmp_path / "u.svg", "utilization")
    wait, utilization = figures
    original = result.summaries["wait_mean"]["original"]
    hours = original / 3600  # SP2's mean wait is hours long
    assert original > 2 * 3600 and wait.axes[0].get_xlabel() == "mean wait (h)"
    legend = [t.get_text() for t in wait.axes[0].get_legend().get_texts()]
    assert f"original {hours:.{3 - int(np.floor(np.log10(hours)))}f} h" in legend and "8 shaken runs" in legend
    assert utilization.axes[0].get_xlabel() == "utilization (%)"
    assert 50 < float(tick_texts(utilization.axes[0].xaxis)[1]) < 100  # percent, not a fraction
    for fig in figures:
        assert fig.axes[0].get_ylabel() == "shaken runs" and whole_ticks(fig.axes[0].yaxis)
        assert readable(fig) == []


def test_sweep_plots(sp2_workload, source, monkeypatch, tmp_path):
    shaken = sweep(sp2_workload, [parse_grid("load=0.9,1.0,1.1")], runs=2, seed=1, workers=1)
    resampled = sweep(sp2_workload, [parse_grid("load=0.9,1.3")], runs=2, seed=1, workers=1,
                      resample=Resampling(source, ResampleSettings(weeks=20)))
    figures = catch(monkeypatch)
    plot_sweep(shaken, "wait_mean", tmp_path / "s.png")
    plot_sweep(resampled, "bounded_slowdown_mean", tmp_path / "r.pdf")
    one, two = figures
    assert (one.axes[0].get_xlabel(), one.axes[0].get_ylabel()) == ("load factor (×)", "mean wait (h)")
    left, saturated, right, bar = two.axes
    assert left.get_ylabel() == "mean bounded slowdown (ratio)" and saturated.get_ylabel() == "runs saturated (%)"
    assert right.get_xlabel() == "utilization (%)" and bar.get_ylabel() == "load factor (×)"
    for fig in figures:
        assert readable(fig) == []


@pytest.mark.slow
@pytest.mark.long
def test_validate_histograms_do_not_overlap(source, monkeypatch, tmp_path):
    result = validate(source, runs=3, seed=4, settings=ResampleSettings(weeks=30), workers=1)
    figures = catch(monkeypatch)
    paths = plot_validation(result, tmp_path)
    assert [p.name for p in paths] == ["histograms.png", "pox.png"]
    histograms, pox = figures
    panels = [ax for ax in histograms.axes if ax.get_visible()]
    assert [ax.get_title().split(" ")[0] for ax in panels] == list(result.statistics)
    by_name = {ax.get_title().split(" ")[0]: ax for ax in panels}
    assert by_name["wait_mean"].get_xlabel().endswith("(h)") or by_name["wait_mean"].get_xlabel().endswith("(d)")
    assert by_name["utilization"].get_xlabel() == "utilization (%)"
    assert by_name["first_arrival_mean"].get_xlabel() == "first arrival after the log's start, mean (d)"
    assert by_name["throughput_per_hour"].get_xlabel() == "throughput (jobs/h)"
    assert all(UNIT.search(ax.get_xlabel()) for ax in panels)
    assert all(whole_ticks(ax.yaxis) for ax in panels) and whole_ticks(by_name["jobs"].xaxis)
    for fig in figures:
        assert readable(fig) == []
