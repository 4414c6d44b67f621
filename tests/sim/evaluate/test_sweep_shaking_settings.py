"""Sweeps over the shaking's own settings (the shaking paper's section V):
`degree`, `jobs` and `attribute` as grids, refused before any run, each
point shaken its own way (the very runs `shake` makes with that point's
settings), the span, distance and concentration worked out again from the
runs table with numpy, the same table for the same seed, a resumed sweep
the uninterrupted one, and the figures of sweep_settings_plot.py (Figs. 6
to 9) and sweep_runs_plot.py (Fig. 4)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from cli_run import wla
from figure_checks import catch, readable
from wla.archive.kernel.errors import UsageError
from wla.sim import shake
from wla.sim.evaluate.grid import is_settings_sweep, options_at, parse_grid
from wla.sim.evaluate.summary import METRIC_NAMES
from wla.sim.evaluate.sweep import sweep
from wla.sim.evaluate.sweep_runs_plot import panels, plot_runs
from wla.sim.evaluate.sweep_settings_plot import plot_settings

LOG = "SDSC-SP2-1998-4.2-cln"
GRIDS = ["attribute=interarrival,runtime", "jobs=10,100", "degree=1,300"]


@pytest.fixture(scope="module")
def settings_sweep(sp2_workload):
    """2 attributes x 2 shares x 2 degrees, 4 shaken runs each, absolute."""
    return sweep(sp2_workload, [parse_grid(g) for g in GRIDS], runs=4, seed=5, relative=None, workers=1)


# -- the grids ------------------------------------------------------------------------------------

def test_the_shaking_settings_are_grids():
    assert parse_grid("degree=1,10,30,60,300") == ("degree", [1.0, 10.0, 30.0, 60.0, 300.0])
    assert parse_grid("jobs=1,3,10,30,100") == ("jobs", [1.0, 3.0, 10.0, 30.0, 100.0])
    assert parse_grid("jobs=0:100:50") == ("jobs", [0.0, 50.0, 100.0])
    assert parse_grid("attribute=Interarrival, RUNTIME,size") == ("attribute", ["interarrival", "runtime", "size"])
    # they shake the runs: simulate() is given none of them
    assert options_at({"degree": 10.0, "jobs": 3.0, "attribute": "size", "load": 0.9}) == {"load_factor": 0.9}
    assert is_settings_sweep(["attribute", "jobs", "degree"]) and is_settings_sweep(["degree", "jobs"])
    assert not is_settings_sweep(["degree"]) and not is_settings_sweep(["degree", "jobs", "load"])


@pytest.mark.parametrize("text, words", [
    ("degree=-1,10", "grid degree: must be a finite number >= 0, not -1.0"),
    ("degree=10,inf", "not a number"),
    ("jobs=50,150", r"grid jobs: must be a number in \[0, 100\], not 150.0"),
    ("jobs=-1", r"grid jobs: must be a number in \[0, 100\], not -1.0"),
    ("attribute=interarrival,arrival",
     "grid attribute: is one of interarrival, runtime, estimate, size, not 'arrival'"),
])
def test_bad_shaking_grids_are_refused(text, words):
    with pytest.raises(UsageError, match=words):
        parse_grid(text)


def test_a_grid_s_setting_is_not_given_twice_and_not_in_a_resampled_sweep(sp2_workload):
    with pytest.raises(UsageError, match="^degree is swept by a grid"):
        sweep(sp2_workload, [("degree", [1.0])], runs=0, degree=30, workers=1)
    with pytest.raises(UsageError, match="^attribute is swept by a grid"):
        sweep(sp2_workload, [("attribute", ["size"])], runs=0, attribute="runtime", workers=1)
    from wla.sim.evaluate.resample.study import Resampling

    with pytest.raises(UsageError, match="grid degree shakes the runs; a sweep with resample resamples them"):
        sweep(sp2_workload, [("degree", [1.0])], runs=1, workers=1, resample=Resampling(None, None))
    with pytest.raises(UsageError, match="grid jobs: is a percentage from 0 to 100"):
        sweep(sp2_workload, [("jobs", [101.0])], runs=1, workers=1)  # a Python caller's grid, checked all the same


@pytest.mark.parametrize("args, words", [
    (["--grid", "degree=1,-5"], "--grid degree: must be a finite number >= 0"),
    (["--grid", "jobs=1,300"], "--grid jobs: must be a number in [0, 100]"),
    (["--grid", "attribute=runtime,speed"], "--grid attribute: is one of interarrival"),
    (["--grid", "degree=1,10", "--degree", "30"], "--degree is swept by a --grid"),
    (["--grid", "jobs=1,10", "--jobs", "30"], "--jobs is swept by a --grid"),
    (["--grid", "attribute=size", "--attribute", "runtime"], "--attribute is swept by a --grid"),
    (["--grid", "degree=1", "--resample"], "--grid degree shakes the runs; a sweep with --resample"),
    (["--grid", "jobs=1:31:1", "--grid", "degree=1,2", "--plot-runs", "r.png"], "--plot-runs draws one panel"),
    (["--grid", "degree=1,2", "--runs", "0", "--plot-runs", "r.png"], "--plot-runs draws the shaken runs"),
    (["--grid", "degree=1,2", "--plot-runs", "r.gif"], "--plot-runs"),
    (["--grid", "degree=1,2", "--metric", "wait_mean", "--metric", "speed"], "--metric is one of"),
])
def test_refusals_are_one_line_before_any_run(sp2_archive_file, args, words, tmp_path):
    args = [str(tmp_path / a) if a.startswith("r.") else a for a in args]  # a figure would go there
    r = wla("sweep", LOG, *args, "--save", tmp_path / "never.parquet", archive=sp2_archive_file)
    assert words in r.one_error_line()
    assert not (tmp_path / "never.parquet.journal").exists() and not list(tmp_path.iterdir())  # no run was made
    assert panels([("jobs", [1.0] * 30), ("degree", [1.0])]) == 30


# -- what the sweep computes ----------------------------------------------------------------------

def test_each_point_is_the_shaking_study_of_its_settings(sp2_workload, settings_sweep):
    """Point by point, the rows are the runs `shake` makes with that point's
    attribute, degree and share (absolute shaking, the same seed)."""
    t = settings_sweep.table
    assert list(t.columns[:7]) == ["point", "attribute", "jobs", "degree", "run", "seed", "shaken"]
    combos = [(a, j, d) for a in ("interarrival", "runtime") for j in (10.0, 100.0) for d in (1.0, 300.0)]
    assert len(t) == 8 * 5
    for p, (attribute, jobs, degree) in enumerate(combos):
        rows = t[t["point"] == p]
        assert (rows["attribute"] == attribute).all() and (rows["jobs"] == jobs).all()
        assert (rows["degree"] == degree).all()
        study = shake(sp2_workload, runs=4, seed=5, workers=1, relative=None, attribute=attribute, jobs=jobs,
                      degree=degree)
        for name in METRIC_NAMES:
            assert list(rows[name]) == list(study.runs[name]), (p, name)
    # the settings really shake differently: the largest degree moves the slowdown more than the smallest
    spread = t[t.run > 0].groupby("point")["bounded_slowdown_mean"].std()
    assert all(spread[p + 1] > 3 * spread[p] for p in (0, 2, 4, 6)), spread


def test_span_distance_and_concentration_from_the_table(settings_sweep):
    """Each point's summaries, again from its rows with numpy."""
    t = settings_sweep.table
    for pt in settings_sweep.points:
        rows = t[t["point"] == pt["point"]]
        for name in ("bounded_slowdown_mean", "wait_mean"):
            o = float(rows.loc[rows.run == 0, name].iloc[0])
            v = rows.loc[rows.run > 0, name].to_numpy()
            m = pt["metrics"][name]
            lo, hi = np.percentile(v, [5, 95])
            assert m["span_low"] == pytest.approx(lo / o, rel=1e-12)
            assert m["span_high"] == pytest.approx(hi / o, rel=1e-12)
            assert m["distance"] == pytest.approx((v.mean() - o) / o, rel=1e-9, abs=1e-15)
            assert m["concentration"] == sum(abs(x - o) <= 0.01 * o for x in v) / len(v)


def test_the_same_seed_gives_the_same_table(sp2_workload, settings_sweep):
    again = sweep(sp2_workload, [parse_grid(g) for g in GRIDS], runs=4, seed=5, relative=None, workers=2)
    pd.testing.assert_frame_equal(again.table, settings_sweep.table, check_exact=True)
    other = sweep(sp2_workload, [parse_grid(g) for g in GRIDS], runs=4, seed=6, relative=None, workers=1)
    shaken = other.table.run > 0
    assert not other.table[shaken]["wait_mean"].equals(settings_sweep.table[shaken]["wait_mean"])


def test_the_sweep_records_its_grids_and_resumes(sp2_workload, settings_sweep, tmp_path, monkeypatch):
    """The record says the grids set the shaking; a sweep stopped part way
    resumes from its journal to the uninterrupted table."""
    sh = settings_sweep.settings["shaking"]
    assert (sh["attribute"], sh["degree"], sh["jobs_pct"], sh["relative_pct"]) == (None, None, None, None)
    assert settings_sweep.settings["grids"] == {"attribute": ["interarrival", "runtime"], "jobs": [10.0, 100.0],
                                                "degree": [1.0, 300.0]}
    import wla.sim.evaluate.sweep as module

    real, done = module.sweep_run, [0]

    def stopping(study, item):
        done[0] += 1
        if done[0] > 13:
            raise KeyboardInterrupt
        return real(study, item)

    journal = tmp_path / "s.journal"
    grids = [parse_grid(g) for g in GRIDS]
    monkeypatch.setattr(module, "sweep_run", stopping)
    with pytest.raises(KeyboardInterrupt):
        sweep(sp2_workload, grids, runs=4, seed=5, relative=None, workers=1, journal=journal)
    monkeypatch.setattr(module, "sweep_run", real)
    assert journal.read_text().count("\n") == 1 + 13
    with pytest.raises(UsageError, match="journal of another sweep"):
        sweep(sp2_workload, [grids[0], parse_grid("jobs=10,30"), grids[2]], runs=4, seed=5, relative=None, workers=1,
              journal=journal, resume=True)
    resumed = sweep(sp2_workload, grids, runs=4, seed=5, relative=None, workers=1, journal=journal, resume=True)
    pd.testing.assert_frame_equal(resumed.table, settings_sweep.table, check_exact=True)


def test_the_command_prints_span_and_concentration(sp2_archive_file, tmp_path):
    out = tmp_path / "s.parquet"
    r = wla("sweep", LOG, "--grid", "jobs=10,100", "--grid", "degree=1,300", "--absolute", "--runs", "3",
            "--seed", "2", "--workers", "1", "--metric", "wait_mean", "--metric", "bounded_slowdown_mean",
            "--wide", "--save", out, archive=sp2_archive_file)
    assert r.status == 0, r.err
    lines = r.out.splitlines()
    assert "shaken: interarrival by up to each point's degree (absolute) on each point's share of jobs" in lines
    assert lines.index("wait_mean (s):") < lines.index("bounded_slowdown_mean:")
    head = next(x for x in lines if x.startswith("jobs %"))
    assert "span p5-p95 (% of O)" in head and head.endswith("within 1%")
    table = pd.read_parquet(out)
    assert list(table.columns[:3]) == ["point", "jobs", "degree"]
    block = lines[lines.index("bounded_slowdown_mean:"):]
    row = next(x for x in block if x.split()[:2] == ["100", "300"])
    v = table[(table.point == 3) & (table.run > 0)]["bounded_slowdown_mean"].to_numpy()
    o = table[(table.point == 3) & (table.run == 0)]["bounded_slowdown_mean"].iloc[0]
    lo, hi = np.percentile(v, [5, 95])
    assert f"{100 * lo / o:.1f}% to {100 * hi / o:.1f}%" in row
    assert row.endswith(f"{np.mean(np.abs(v - o) <= 0.01 * o):.0%}")
    data = json.loads(wla("sweep", LOG, "--grid", "jobs=10", "--grid", "degree=1,300", "--runs", "2", "--workers",
                          "1", "--json", archive=sp2_archive_file).out)
    assert data["settings"]["shaking"]["degree"] is None and data["points"][1]["degree"] == 300.0


# -- the figures ----------------------------------------------------------------------------------

def test_the_maps_write_each_summary_in_its_cell(settings_sweep, monkeypatch, tmp_path):
    figures = catch(monkeypatch)
    plot_settings(settings_sweep, ["bounded_slowdown_mean", "wait_mean"], tmp_path / "m.png")
    [fig] = figures
    maps = [ax for ax in fig.axes if ax.get_title()]
    assert len(maps) == 2 * 2 * 3  # attribute x metric rows, span / distance / concentration
    runtime_wait = [ax for ax in maps if ax.get_title().startswith("runtime, mean wait")]
    span, distance, near = runtime_wait
    pt = next(p for p in settings_sweep.points if (p["attribute"], p["jobs"], p["degree"]) == ("runtime", 100, 300))
    m = pt["metrics"]["wait_mean"]
    cell = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in near.texts}
    assert cell[(1, 1)] == f"{100 * m['concentration']:.0f}"  # jobs 100% is the upper row, degree 300 the right
    cell = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in distance.texts}
    assert cell[(1, 1)] == f"{100 * m['distance']:+.1f}"
    assert span.get_xlabel() == "degree (s)" and span.get_ylabel() == "jobs shaken"
    assert [t.get_text() for t in span.get_yticklabels()] == ["10%", "100%"]
    assert readable(fig) == []
    data = (tmp_path / "m.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    plot_settings(settings_sweep, ["bounded_slowdown_mean", "wait_mean"], tmp_path / "again.png")
    assert (tmp_path / "again.png").read_bytes() == data


def test_the_runs_figure_draws_each_run_against_its_single_run(settings_sweep, monkeypatch, tmp_path):
    """Fig. 4: per panel (attribute x share) a curve per degree, each the
    distribution of the shaken runs as percent of the single run."""
    figures = catch(monkeypatch)
    plot_runs(settings_sweep, "bounded_slowdown_mean", tmp_path / "r.png")
    [fig] = figures
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert len(axes) == 4
    ax = next(a for a in axes if "interarrival" in a.get_title() and "jobs 100%" in a.get_title())
    curves = {line.get_label(): line for line in ax.get_lines() if not line.get_label().startswith("_")}
    assert set(curves) == {"degree 1 s", "degree 300 s"}
    t = settings_sweep.table
    rows = t[t.point == 3]  # interarrival, jobs 100, degree 300
    o = rows.loc[rows.run == 0, "bounded_slowdown_mean"].iloc[0]
    expected = np.sort(100 * rows.loc[rows.run > 0, "bounded_slowdown_mean"].to_numpy() / o)
    x, y = curves["degree 300 s"].get_data()
    assert np.allclose(x[1:], expected) and list(y) == [0, 0.25, 0.5, 0.75, 1.0]
    assert f"single run = {round(o, 2):g}" in ax.get_title()
    assert readable(fig) == []
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_command_draws_both_figures(sp2_archive_file, tmp_path):
    maps, runs = tmp_path / "m.png", tmp_path / "r.png"
    r = wla("sweep", LOG, "--grid", "jobs=1,10", "--grid", "degree=10,60", "--runs", "2", "--workers", "1",
            "--plot", maps, "--plot-runs", runs, archive=sp2_archive_file)
    assert r.status == 0, r.err
    assert "span, distance and concentration of bounded_slowdown_mean by degree and jobs drawn to" in r.err
    assert "each point's runs of bounded_slowdown_mean against its single run drawn to" in r.err
    assert maps.read_bytes()[:4] == runs.read_bytes()[:4] == b"\x89PNG"


# -- the paper's section V on SDSC-SP2 (docs/pages/reproductions/shake-settings.md) ---------------

@pytest.mark.slow
def test_the_documented_numbers_of_figs_4_and_8(sp2_workload):
    """The reproduction page's numbers, from the runs table of its sweep:
    the single run, the range of the runs at 1% and 10% of jobs (Fig. 4),
    the spans, distances and concentrations it quotes (Figs. 6 to 9)."""
    result = sweep(sp2_workload, [parse_grid("jobs=1,3,10,30,100"), parse_grid("degree=1,10,30,60,300")],
                   runs=50, relative=None)
    t = result.table

    def runs(metric, jobs, degree=None):
        rows = t[(t.jobs == jobs) & ((t.degree == degree) if degree is not None else True)]
        o = float(rows.loc[rows.run == 0, metric].iloc[0])
        return o, rows[rows.run > 0]

    o, r = runs("bounded_slowdown_mean", 1)
    assert round(o, 2) == 89.22
    ranges = {}
    for jobs in (1, 10, 100):
        o, r = runs("bounded_slowdown_mean", jobs)
        v = r["bounded_slowdown_mean"]
        spans = r.groupby("degree")["bounded_slowdown_mean"].quantile([0.05, 0.95]).unstack()
        ranges[jobs] = (round(100 * v.min() / o, 1), round(100 * v.max() / o, 1),
                        round(100 * spans[0.05].min() / o, 1), round(100 * spans[0.95].max() / o, 1))
    assert ranges[1] == (98.4, 104.7, 98.7, 103.5)
    assert ranges[10] == (96.8, 110.3, 98.6, 108.0)
    assert ranges[100][2:] == (99.1, 111.2)

    def point(jobs, degree):
        return next(p for p in result.points if (p["jobs"], p["degree"]) == (jobs, degree))["metrics"]

    assert round(100 * point(100, 300)["bounded_slowdown_mean"]["distance"], 1) == 5.3
    assert round(100 * point(10, 300)["bounded_slowdown_mean"]["distance"], 1) == 3.5
    assert point(100, 300)["wait_mean"]["concentration"] == 0.40  # Fig. 8: the paper's 65%
    strong = [point(j, d)["wait_mean"]["concentration"] for j in (10, 30, 100) for d in (30, 60, 300)]
    assert (min(strong), max(strong)) == (0.40, 0.60)
    for jobs in (1, 3, 10, 30, 100):  # 1 s barely moves a run
        m = point(jobs, 1)["bounded_slowdown_mean"]
        assert round(100 * m["span_low"], 1) >= 99.4 and round(100 * m["span_high"], 1) <= 101.0
