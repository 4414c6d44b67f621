"""`wla sweep --histograms`: per point, the distribution of its runs (the
resampling paper's Fig. 16 for an RB_NPW sweep). The outlines drawn hold
each point's unsaturated runs, counted again from the sweep's table; the
figure is readable and the same bytes every time; the RB_NPW study on SDSC
SP2 (slow) gives the numbers docs/pages/reproductions/compare-resampled.md
shows."""
from __future__ import annotations

import numpy as np
import pytest
from cli_run import wla
from figure_checks import catch, readable
from real_logs import ROOT
from wla.archive import open as open_archive
from wla.archive.kernel.errors import OptionError
from wla.sim import from_archive
from wla.sim.evaluate.grid import parse_grid
from wla.sim.evaluate.resample.settings import ResampleSettings
from wla.sim.evaluate.resample.study import Resampling
from wla.sim.evaluate.resample.workload import read_source
from wla.sim.evaluate.sweep import sweep
from wla.sim.evaluate.sweep_histograms import panels, plot_histograms

LOG = "SDSC-SP2-1998-4.2-cln"
PAGE = ROOT / "docs" / "pages" / "reproductions" / "compare-resampled.md"


@pytest.fixture(scope="module")
def rb_sweep(sp2_archive_file):
    with open_archive(sp2_archive_file) as a:
        src, log = read_source(a, LOG, rb_from_flurries=True), from_archive(a, LOG)
    return sweep(log, [parse_grid("rb_npw=0,0.5")], runs=4, seed=2, workers=1,
                 resample=Resampling(src, ResampleSettings(weeks=12, phase="cycle")))


def test_each_outline_holds_its_points_unsaturated_runs(rb_sweep, tmp_path, monkeypatch):
    figures = catch(monkeypatch)
    plot_histograms(rb_sweep, "bounded_slowdown_mean", tmp_path / "h.png")
    [fig] = figures
    assert readable(fig) == []
    t = rb_sweep.table
    axes = fig.axes
    assert [ax.get_title() for ax in axes] == ["measured jobs", "measured utilization", "mean bounded slowdown",
                                               "mean wait"]
    for ax, name in zip(axes, panels("bounded_slowdown_mean")):
        outlines = ax.patches
        assert len(outlines) == 2  # one per RB_NPW
        for p, patch in enumerate(outlines):
            kept = t[(t.point == p) & (t.run > 0) & (t.saturated != 1)][name].to_numpy(np.float64)
            xy = patch.get_path().vertices  # a step outline: up at each edge to its bin's count
            edges, heights = xy[0::2, 0], xy[1:-1:2, 1]  # N + 1 edges, N counts
            assert heights.sum() == len(kept) >= 1
            if name in ("measured_jobs", "bounded_slowdown_mean"):  # drawn as stored (no unit to divide by)
                assert list(np.histogram(kept, bins=edges)[0]) == list(heights)
    legend = [x.get_text() for x in axes[0].get_legend().get_texts()]
    for p, v in enumerate(("0", "0.5")):
        mine = t[(t.point == p) & (t.run > 0)]
        left = int((mine.saturated == 1).sum())
        want = f"rb_npw={v} ({len(mine) - left} runs" + (f", {left} saturated left out)" if left else ")")
        assert legend[p] == want
    assert legend[-1] == "the log"


def test_the_same_sweep_draws_the_same_bytes(rb_sweep, tmp_path):
    plot_histograms(rb_sweep, "wait_mean", tmp_path / "a.png")
    plot_histograms(rb_sweep, "wait_mean", tmp_path / "b.png")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    assert panels("wait_mean") == ("measured_jobs", "utilization_measured", "wait_mean")


def test_refusals(rb_sweep, sp2_archive_file, tmp_path):
    with pytest.raises(OptionError):
        plot_histograms(rb_sweep, "slowness", tmp_path / "h.png")
    r = wla("sweep", LOG, "--resample", "--grid", "rb_npw=0", "--runs", "0", "--histograms", tmp_path / "h.png",
            archive=sp2_archive_file)
    assert "--histograms draws the distribution of each point's runs: give --runs 1 or more" in r.one_error_line()
    r = wla("sweep", LOG, "--grid", "load=1", "--runs", "1", "--histograms", tmp_path / "h.txt",
            archive=sp2_archive_file)
    assert "--histograms" in r.one_error_line()


@pytest.mark.slow  # 124 resampled workloads of SDSC SP2 under EASY: about three minutes on one core
def test_the_rb_npw_study_gives_the_numbers_of_its_page(sp2_archive_file, tmp_path):
    command = ("wla sweep SDSC-SP2-1998-4.2-cln --resample --phase cycle --rb-from-flurries "
               "--grid rb_npw=0,0.125,0.25,0.5 --runs 30 --metric measured_jobs --histograms sp2_rb_histograms.png")
    out = tmp_path / "t.parquet"
    args = [str(tmp_path / "h.png") if a == "sp2_rb_histograms.png" else a for a in command.split()[1:]]
    r = wla(*args, "--save", out, archive=sp2_archive_file)
    assert r.status == 0, r.err
    page = PAGE.read_text(encoding="utf-8")
    shown = page[page.index(command):]
    shown = shown[:shown.index("```")]
    for line in r.out.splitlines():
        if line[:1].isdigit():
            assert line in shown
