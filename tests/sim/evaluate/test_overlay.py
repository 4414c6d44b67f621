"""The overlays of `wla validate --plot-dir` (the resampling paper's Figs.
4, 5, 11, 15): each workload's curves are what a second computation gives
(by hand on a made-up log, pandas on the real file and on a resampled
workload), workload i is validation's run i, the figures are drawn with
labelled axes, and the command refuses what it cannot draw."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from cli_run import wla
from real_logs import pandas_log
from wla.archive import open as open_archive
from wla.archive.analysis.cycles import hour_of_week
from wla.archive.kernel.clock import LogClock
from wla.archive.kernel.errors import OptionError
from wla.sim.evaluate import overlay_plot
from wla.sim.evaluate.overlay import curves, overlay, parse_vary, user_index
from wla.sim.evaluate.resample.settings import ResampleSettings
from wla.sim.evaluate.resample.study import run_seed
from wla.sim.evaluate.resample.workload import read_source, resample_source

LOG = "SDSC-SP2-1998-4.2-cln"
DAY = 86400.0
MONDAY = 4 * 86400  # 1970-01-05 00:00 UTC, a Monday


@pytest.fixture(scope="module")
def source(sp2_archive_file):
    with open_archive(sp2_archive_file) as a:
        return read_source(a, LOG)


def _jobs(rows):
    return pd.DataFrame(rows, columns=["user_id", "submit", "wait", "run", "procs"]).assign(
        req_procs=-1, req_time=-1.0)


def test_a_made_up_logs_curves_by_hand():
    # user 7: three jobs, the third 2 h after the second's end (a new session); user 3: one job; user 9: two
    jobs = _jobs([(7, 0.0, 0.0, 100.0, 2), (7, 50.0, 10.0, 100.0, 1), (3, 3600.0, 0.0, 60.0, 4),
                  (7, 160.0 + 7200.0, 0.0, 40.0, 1), (9, DAY + 10.0, 5.0, 5.0, 1), (9, DAY + 20.0, 0.0, 5.0, 8)])
    c = curves(jobs, 8, LogClock(MONDAY, None), "log", 0)
    assert c.users["jobs"].tolist() == [1, 2, 3]
    assert c.users["sessions"].tolist() == [1, 1, 2]
    # user 7's sessions: [0, 160) and [7360, 7400): 160 + 40 over two; user 3: 60; user 9: [DAY+10, DAY+25)
    assert c.users["session_length"].tolist() == [15.0, 60.0, 100.0]
    assert c.users["first_arrival"].tolist() == [0.0, 3600.0, DAY + 10.0]
    assert c.users["last_departure"].tolist() == [3660.0, 7400.0, DAY + 25.0]
    assert c.users["activity_period"].tolist() == [15.0, 60.0, 7400.0]
    assert c.users["cpu_work"].tolist() == [45.0, 240.0, 340.0]  # 5+5*8, 60*4, 100*2+100+40
    # Monday 00:00, 00:00:50, 01:00, 02:02, and Tuesday 00:00 twice
    expected = np.zeros(168, dtype=np.int64)
    expected[[0, 1, 2, 24]] = [2, 1, 1, 2]
    assert c.week.tolist() == expected.tolist()
    assert c.user_count == 3 and not c.relative
    assert c.bins["run"].tolist() == []  # no day of ten jobs


def test_the_user_index_ranks_or_spreads_over_zero_to_one():
    assert user_index(4).tolist() == [1.0, 2.0, 3.0, 4.0]
    assert user_index(5, normalized=True).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert user_index(1, normalized=True).tolist() == [0.0]
    assert user_index(0, normalized=True).tolist() == []


def test_the_hour_of_the_week_is_local_time_as_pandas_says(source):
    jobs = pandas_log(LOG)
    local = pd.to_datetime(source.clock.unix_start_time + jobs.submit, unit="s", utc=True).dt.tz_convert(
        source.clock.tz)
    counts = (local.dt.day_of_week * 24 + local.dt.hour).value_counts().reindex(range(168), fill_value=0)
    assert hour_of_week(jobs.submit.to_numpy(float), source.clock).tolist() == counts.tolist()


def _bins_by_pandas(frame: pd.DataFrame, column: str) -> list[float]:
    """Each day of ten known values: the share of its jobs in its fullest of 16 equal-weight bins."""
    known = frame[frame[column] > 0]
    edges = np.quantile(known[column], np.arange(1, 16) / 16)
    day = (known.submit // DAY).astype(int)
    b = pd.Series(np.searchsorted(edges, known[column], side="right"), index=known.index)
    table = pd.crosstab(day, b)
    busy = table[table.sum(axis=1) >= 10]
    return sorted((busy.max(axis=1) / busy.sum(axis=1)).tolist())


def _users_by_pandas(frame: pd.DataFrame, user: str) -> dict[str, list[float]]:
    g = frame.groupby(user)
    end = frame.submit + frame.wait.clip(lower=0) + frame.run.clip(lower=0)
    last = end.groupby(frame[user]).max()
    return {"jobs": sorted(g.size().tolist()), "first_arrival": sorted(g.submit.min().tolist()),
            "activity_period": sorted((last - g.submit.min()).tolist())}


def test_the_logs_and_a_workloads_curves_are_pandas_own(source):
    ov = overlay(source, runs=2, seed=3, settings=ResampleSettings(weeks=20))
    jobs = pandas_log(LOG)
    for name, values in _users_by_pandas(jobs, "user").items():
        assert ov.log.users[name].tolist() == pytest.approx(values), name
    for name in ("run", "req_time"):
        assert ov.log.bins[name].tolist() == pytest.approx(_bins_by_pandas(jobs, name)), name
    # workload 2 is the log resampled with run_seed(3, 2), as validation's run 2
    r = resample_source(source, ResampleSettings(weeks=20, seed=run_seed(3, 2))).jobs
    frame = pd.DataFrame({"user": r.user_id, "submit": r.submit, "wait": r.wait, "run": r.run})
    [second] = [c for c in ov.workloads if c.run == 2]
    for name, values in _users_by_pandas(frame, "user").items():
        assert second.users[name].tolist() == pytest.approx(values), name
    assert second.bins["run"].tolist() == pytest.approx(_bins_by_pandas(frame, "run"))
    assert [c.group for c in ov.workloads] == ["log", "resampled", "resampled"]
    summary = ov.summary()["groups"]
    assert summary["log"]["users_min"] == jobs.user.nunique() == 437
    assert summary["resampled"]["median_jobs"] == np.median([np.median(c.users["jobs"]) for c in ov.workloads[1:]])


def test_a_varied_setting_draws_the_same_seeds_at_each_value(source):
    ov = overlay(source, runs=1, seed=0, settings=ResampleSettings(weeks=10), vary=parse_vary("load=1,2"))
    assert ov.groups == ("load=1", "load=2")
    base = overlay(source, runs=1, seed=0, settings=ResampleSettings(weeks=10))
    assert ov.group("load=1")[0].users["jobs"].tolist() == base.workloads[1].users["jobs"].tolist()
    assert ov.group("load=2")[0].user_count > 1.5 * ov.group("load=1")[0].user_count


def test_the_settings_an_overlay_varies_are_checked():
    assert parse_vary("rb_npw=0,0.125,0.25") == ("rb_npw", [0.0, 0.125, 0.25])
    for bad in ("procs=1", "load=-1", "rb_npw", "load=a"):
        with pytest.raises(OptionError):
            parse_vary(bad)


def test_the_figures_are_drawn_with_every_axis_labelled(source, tmp_path, monkeypatch):
    ov = overlay(source, runs=1, seed=0, settings=ResampleSettings(weeks=10))
    drawn = overlay_plot.plot_overlay(ov, tmp_path, normalized=True)
    assert [p.name for p in drawn] == ["overlay-users.png", "overlay-bins.png"]
    for p in drawn:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    figures = []
    monkeypatch.setattr(overlay_plot, "save", lambda fig, path: figures.append(fig))
    overlay_plot.plot_users_overlay(ov, tmp_path / "u.png", normalized=True)
    overlay_plot.plot_bins_overlay(ov, tmp_path / "b.png")
    users, bins = figures
    assert len(users.axes) == 8 and len(bins.axes) == 3
    for ax in users.axes + bins.axes[:1]:
        assert ax.get_xlabel() and ax.get_ylabel()
    assert all(ax.get_xlabel() for ax in bins.axes)
    assert users.axes[0].get_xlabel() == "user, ranked (normalized to 0..1)"
    assert max(users.axes[0].lines[0].get_xdata()) == 1.0  # the spread index
    assert [t.get_text() for t in users.axes[0].get_legend().get_texts()] == ["resampled", "log"]


@pytest.mark.slow
def test_validate_draws_the_overlays_and_reports_them(sp2_archive_file, tmp_path):
    r = wla("validate", LOG, "--runs", "1", "--weeks", "10", "--overlay-runs", "2", "--json",
            "--plot-dir", tmp_path / "v", archive=sp2_archive_file)
    assert r.status == 0, r.err
    data = json.loads(r.out)
    assert data["overlay"]["log"]["users_min"] == 437 and data["overlay"]["resampled"]["workloads"] == 2
    assert sorted(p.name for p in (tmp_path / "v").iterdir()) == [
        "histograms.png", "overlay-bins.png", "overlay-users.png", "pox.png"]


def test_validate_refuses_an_overlay_it_cannot_draw_before_any_work(sp2_archive_file, tmp_path):
    r = wla("validate", LOG, "--runs", "1", "--overlay", "load=1,2", archive=sp2_archive_file)
    assert r.status == 1 and "--overlay is drawn into --plot-dir" in r.err
    r = wla("validate", LOG, "--runs", "1", "--overlay", "procs=2", "--plot-dir", tmp_path / "w",
            archive=sp2_archive_file)
    assert r.status == 1 and "--overlay procs: one of load, rb_npw" in r.err and not (tmp_path / "w").exists()


def _shown(groups: dict, label: str) -> tuple:
    g = groups[label]
    return (g["users_min"], g["users_max"], g["median_jobs"], g["most_jobs"],
            *(round(100 * g[f"bins_median_{a}"], 1) if g[f"bins_median_{a}"] is not None else None
              for a in ("run", "req_time", "procs")))


@pytest.mark.slow
def test_the_documented_overlays(real_archive):
    """The numbers docs/pages/reproductions/overlays.md shows, from the overlays alone (no simulation)."""
    sp2 = overlay(read_source(real_archive, LOG), runs=8).summary()["groups"]
    assert _shown(sp2, "log") == (437, 437, 29.0, 3009.0, 21.7, 31.8, 33.3)
    assert _shown(sp2, "resampled") == (393, 456, 32.25, 2981.0, 21.4, 32.4, 33.3)
    cm5 = overlay(read_source(real_archive, "LANL-CM5-1994-4.1-cln", rb_from_flurries=True), runs=7,
                  vary=parse_vary("rb_npw=0,0.125,0.1667,0.25")).summary()["groups"]
    assert [cm5[k]["median_jobs"] for k in ("log", "rb_npw=0", "rb_npw=0.125", "rb_npw=0.1667", "rb_npw=0.25")] == [
        141, 145, 200, 205.5, 251.5]
    assert {g["most_jobs"] for g in cm5.values()} == {7823}
    assert [round(cm5[k]["median_session_length"] / 3600, 3) for k in ("rb_npw=0", "rb_npw=0.25")] == [1.157, 1.577]
    osc = overlay(read_source(real_archive, "OSC-Clust-2000-3.1-cln"), runs=8,
                  settings=ResampleSettings(load=6)).summary()["groups"]
    assert _shown(osc, "log") == (253, 253, 30.0, 2538.0, 28.3, None, 79.1)
    assert _shown(osc, "resampled") == (1499, 1589, 28.5, 2538.0, 15.0, None, 76.3)
