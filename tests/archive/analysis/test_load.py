"""The load profile and the trim point: hand-made logs whose utilization is
known by arithmetic, and real logs checked against a brute-force overlap."""
from __future__ import annotations

import json

import duckdb
import numpy as np
import pandas as pd
import pytest
from made_jobs import make_jobs
from wla.archive.analysis.load import load_profile
from wla.archive.analysis.load_plot import plot_load
from wla.archive.kernel.clock import DAY, WEEK, LogClock
from wla.archive.kernel.errors import UsageError
from wla.archive.store.catalog import log_info
from wla.archive.store.predicate import predicate_sql
from wla.archive.store.select import log_query

# 2000-01-01 00:00 in US/Pacific (08:00 UTC)
START, TZ = 946713600, "US/Pacific"




def count(frame: pd.DataFrame, predicate: str, clock: LogClock = LogClock()) -> int:
    con = duckdb.connect()
    con.register("jobs", frame)
    return int(con.execute(f"SELECT count(*) FROM jobs WHERE {predicate_sql(predicate, clock)}").fetchone()[0])


def clipping_log() -> pd.DataFrame:
    return make_jobs([
        # 5 of 10 processors for exactly days 0 and 1: 50% each
        {"submit": 0, "wait": 0, "run": 2 * DAY, "procs": 5},
        # allocated unknown, 10 requested, from day 2.5 to 3.5: half of each day, 50% each
        {"submit": 2.5 * DAY, "wait": 0, "run": DAY, "req_procs": 10},
        # submitted day 6, waits 12 h, runs day 6.5 to 7.5 on 2: 10% of days 6 and 7
        {"submit": 6 * DAY, "wait": DAY / 2, "run": DAY, "procs": 2},
        # never occupy: run 0, wait unknown, no processor count, submit unknown
        {"submit": 100, "wait": 0, "run": 0, "procs": 10},
        {"submit": 100, "wait": -1, "run": 50, "procs": 10},
        {"submit": 100, "wait": 0, "run": 50},
        {"submit": -1, "wait": 0, "run": 50, "procs": 10},
    ])


def test_daily_and_weekly_utilization_with_clipping():
    r = load_profile(clipping_log(), capacity=10)
    assert r.first_day == 0
    np.testing.assert_allclose(r.daily, [0.5, 0.5, 0.5, 0.5, 0, 0, 0.1, 0.1], rtol=1e-12, atol=1e-15)
    # week 0: 5*2d + 10*1d + 2*0.5d processor-days = 21 of 70 = 0.3; week 1: 1 of 70
    assert r.first_week == 0
    np.testing.assert_allclose(r.weekly, [0.3, 1 / 70], rtol=1e-12)
    # the last end (day 7.5) cuts week 1 short: it is left out, so the median
    # is week 0's 0.3, the level 0.15, and week 0 already reaches it
    assert r.last_week_partial
    assert r.median_weekly == pytest.approx(0.3) and r.level == pytest.approx(0.15)
    assert r.trim_week == 0 and r.nothing_to_trim and r.predicate() is None
    assert "nothing to trim" in r.summary()


def weekly_log(levels: list[int], partial: bool = True, small: int = 3) -> pd.DataFrame:
    """One job per week holding `levels[w]` of 10 processors for the whole
    week; then, if `partial`, a day at full load that leaves the last week
    short; `small` jobs of no load submitted in week 1; one unknown submit."""
    rows = [{"submit": w * WEEK, "wait": 0, "run": WEEK, "procs": p} for w, p in enumerate(levels)]
    if partial:
        rows.append({"submit": len(levels) * WEEK, "wait": 0, "run": DAY, "procs": 10})
    rows += [{"submit": WEEK + 60 * i, "wait": 0, "run": 0, "procs": 1} for i in range(small)]
    rows.append({"submit": -1, "wait": 0, "run": 10, "procs": 1})
    return make_jobs(rows)


def test_trim_point_after_the_last_low_week():
    jobs = weekly_log([1, 2, 8, 6, 9])
    r = load_profile(jobs, capacity=10, unix_start_time=START, tz=TZ)
    # full weeks 0.1 0.2 0.8 0.6 0.9, then week 5 at 1 day of 7 (partial, left out)
    np.testing.assert_allclose(r.weekly, [0.1, 0.2, 0.8, 0.6, 0.9, 1 / 7], rtol=1e-12)
    assert r.last_week_partial
    # median of the full weeks 0.6, level 0.3: weeks 0 and 1 are below it
    assert r.level == pytest.approx(0.3)
    assert r.trim_week == 2 and r.trim_submit == 2 * WEEK
    # before it: the jobs of weeks 0 and 1 and the 3 small ones; not the unknown submit
    assert r.jobs_before == 5 and r.share_before == pytest.approx(5 / 10)
    assert r.median_before == pytest.approx(0.15) and not r.dip
    assert r.predicate() == f"submit != -1 and submit < {2 * WEEK}"
    assert count(jobs, r.predicate()) == 5
    # week 2 starts 2000-01-15 00:00 local time
    assert r.date_predicate() == "submit != -1 and submit < '2000-01-15 00:00:00'"
    assert count(jobs, r.date_predicate(), LogClock(START, TZ)) == 5
    d = r.to_dict()
    assert d["trim"]["date"] == "2000-01-15T00:00:00-08:00" and d["trim"]["week"] == 2
    assert d["weekly"][2] == {"week": 2, "date": "2000-01-15", "utilization": 0.8}
    assert json.loads(json.dumps(d)) == d


def test_partial_last_week_would_change_the_answer():
    # Judged with its short last week (1/7), the median would be 0.4, the
    # level 0.2, and the last week below it: no trim point at all. Without it:
    assert load_profile(weekly_log([1, 2, 8, 6, 9]), 10).trim_week == 2
    # A log ending exactly on a week boundary has no partial week.
    r = load_profile(weekly_log([1, 2, 8, 6, 9], partial=False), 10)
    assert not r.last_week_partial and len(r.weekly) == 5 and r.trim_week == 2


def test_explicit_level_and_no_trim_point():
    jobs = weekly_log([1, 2, 8, 6, 9])
    # at 0.65 week 3 (0.6) is the last week below: trim at week 4, 4 + 3 jobs before
    r = load_profile(jobs, 10, level=0.65)
    assert r.trim_week == 4 and r.jobs_before == 7
    # at 0.95 even the last full week (0.9) is below: no week stays above
    r = load_profile(jobs, 10, level=0.95)
    assert r.trim_week is None and r.predicate() is None and "never stays" in r.summary()


def test_a_dip_is_told_from_a_low_start():
    # median of 0.8 0.7 0.1 0.9 0.85 is 0.8, level 0.4: week 2 alone is below,
    # and the weeks before the trim point have median 0.7, above the level
    r = load_profile(weekly_log([16, 14, 2, 18, 17]), 20)
    assert r.trim_week == 3 and r.median_before == pytest.approx(0.7) and r.dip
    assert "dip" in r.summary()


def test_bad_capacity_and_no_profile():
    with pytest.raises(UsageError, match="capacity"):
        load_profile(clipping_log(), capacity=None)
    with pytest.raises(UsageError, match="capacity"):
        load_profile(clipping_log(), capacity=0)
    r = load_profile(make_jobs([{"submit": 0, "wait": -1, "run": 10, "procs": 1}]), 10)
    assert r.trim_week is None and len(r.weekly) == 0 and "no load profile" in r.summary()
    with pytest.raises(UsageError, match="nothing to plot"):
        plot_load(r, "/nonexistent/x.png")


# -- real logs ---------------------------------------------------------------

def _real(real_archive, name: str):
    info = log_info(real_archive, name)["log"]
    return real_archive.df(log_query(real_archive, name)), info


def _occupying(jobs: pd.DataFrame):
    """The usage views' rule, written with pandas."""
    p = jobs.procs.where(jobs.procs > 0, jobs.req_procs.where(jobs.req_procs > 0))
    occ = jobs[(jobs.submit != -1) & (jobs.wait != -1) & (jobs.run > 0) & p.notna()]
    start = (occ.submit + occ.wait).to_numpy()
    return start, start + occ.run.to_numpy(), p[occ.index].to_numpy(np.float64)


def _brute_weekly(start, end, procs, first: int, n: int) -> np.ndarray:
    """Each job's overlap with each week, one week at a time."""
    out = np.empty(n)
    for i in range(n):
        b0, b1 = (first + i) * WEEK, (first + i + 1) * WEEK
        out[i] = (procs * np.clip(np.minimum(end, b1) - np.maximum(start, b0), 0, None)).sum()
    return out


def _trim_walking_back(weekly: np.ndarray, first: int, level: float) -> int | None:
    found = None
    for i in range(len(weekly) - 1, -1, -1):
        if weekly[i] < level:
            break
        found = first + i
    return found


def test_utilization_adds_up_to_processor_seconds(real_archive):
    jobs, info = _real(real_archive, "SDSC-SP2-1998-4.2-cln")
    cap = int(info["machine_size"])
    start, end, procs = _occupying(jobs)
    total = (procs * (end - start)).sum()
    r = load_profile(jobs, cap)
    assert r.weekly.sum() * cap * WEEK == pytest.approx(total, rel=1e-12)
    assert r.daily.sum() * cap * DAY == pytest.approx(total, rel=1e-12)
    assert r.first_day == int(np.floor(start.min() / DAY))
    assert r.first_day + len(r.daily) == int(np.ceil(end.max() / DAY))


LOGS = ["SDSC-SP2-1998-4.2-cln", "CEA-Curie-2011-2.1-cln", "CTC-SP2-1996-3.1-cln",
        "SDSC-BLUE-2000-4.2-cln", "LANL-CM5-1994-4.1-cln"]


@pytest.mark.parametrize("name", LOGS)
def test_weekly_profile_and_trim_against_brute_force(real_archive, name):
    jobs, info = _real(real_archive, name)
    cap = int(info["machine_size"])
    start, end, procs = _occupying(jobs)
    first = int(np.floor(start.min() / WEEK))
    n = int(np.ceil(end.max() / WEEK)) - first
    want = _brute_weekly(start, end, procs, first, n) / (cap * WEEK)
    r = load_profile(jobs, cap, unix_start_time=info["unix_start_time"], tz=info["tz"])
    assert r.first_week == first
    np.testing.assert_allclose(r.weekly, want, rtol=1e-9, atol=1e-12)
    full = want[:-1] if end.max() < (first + n) * WEEK else want
    level = np.median(full) / 2
    assert r.level == pytest.approx(level, rel=1e-9)
    trim = _trim_walking_back(full, first, level)
    assert r.trim_week == trim
    if trim is not None and trim > first:
        log_id = real_archive.log_id(name)
        clock = LogClock(int(info["unix_start_time"]), info["tz"])
        for text in (r.predicate(), r.date_predicate()):
            got = real_archive.df(f"SELECT count(*) AS n FROM jobs WHERE log_id = {log_id} "
                                   f"AND ({predicate_sql(text, clock)})").n.item()
            assert got == r.jobs_before == int(((jobs.submit != -1) & (jobs.submit < trim * WEEK)).sum())


def test_low_load_start_of_curie(real_archive):
    """CEA-Curie starts with weeks far below its later load: the trim point is
    a low start, not a dip, and the weeks before it are all below the level."""
    jobs, info = _real(real_archive, "CEA-Curie-2011-2.1-cln")
    r = load_profile(jobs, int(info["machine_size"]))
    before = r.weekly[: r.trim_week - r.first_week]
    assert r.trim_week > r.first_week and not r.dip
    assert (before < r.level).sum() > len(before) / 2


def test_ricc_profile_is_whole(real_archive):
    jobs, _ = _real(real_archive, "RICC-2010-2")  # no header: capacity given
    start, end, procs = _occupying(jobs)
    r = load_profile(jobs, 8192)
    assert r.daily.sum() * 8192 * DAY == pytest.approx((procs * (end - start)).sum(), rel=1e-12)


def test_load_plot_is_reproducible(real_archive, tmp_path):
    jobs, info = _real(real_archive, "CEA-Curie-2011-2.1-cln")
    r = load_profile(jobs, int(info["machine_size"]), unix_start_time=info["unix_start_time"], tz=info["tz"])
    a, b, c = tmp_path / "a.png", tmp_path / "b.png", tmp_path / "c.png"
    plot_load(r, a, title="CEA-Curie")
    plot_load(r, b, title="CEA-Curie")
    plot_load(clipping_log(), c, capacity=10)  # from jobs, no dates
    assert a.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert a.read_bytes() == b.read_bytes()
    assert c.stat().st_size > 0
