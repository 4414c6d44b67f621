"""Flurry detection: a hand-made log whose candidates are known by arithmetic,
and real logs against counts computed with SQL over the typed view."""
from __future__ import annotations

import json

import duckdb
import pandas as pd
import pytest
from made_jobs import make_jobs
from wla.archive.analysis.flurries import flurries, weekly_counts
from wla.archive.analysis.flurries_plot import plot_flurries
from wla.archive.kernel.clock import DAY, LogClock
from wla.archive.kernel.errors import UsageError
from wla.archive.store.catalog import log_info
from wla.archive.store.predicate import predicate_sql
from wla.archive.store.select import log_query

# 2000-01-03 00:00 in US/Pacific (08:00 UTC), a Monday
START, TZ = 946886400, "US/Pacific"
BACKGROUND = {"procs": 4, "run": 100.0}  # 400 processor-seconds a job


def burst(day: int, user: int, n: int, **fields) -> list[dict]:
    return [{"submit": day * DAY + i, "wait": 0, "user_id": user, **BACKGROUND, **fields} for i in range(n)]


def hand_log() -> pd.DataFrame:
    """Weeks 0 to 9 (each week's jobs on its first day), weeks 3, 5 and 8 empty.

    job numbers   week/day  user  jobs
      1..  30     0 / 0     1, 2  15 + 15
     31..  60     1 / 7     1, 2  15 + 15
     61..  80     2 / 14    1     20
     81.. 280     2 / 14    7     200   procs 1, run 10
    281.. 282     -         7     2     submit unknown, procs 1, run 10
    283.. 582     2 / 15    7     300   procs unknown, 2 requested; 250 run unknown, 50 run 30
    583.. 602     4 / 28    1     20
    603.. 752     4 / 28    -1    150   user unknown
    753.. 852     6 / 42    9     100
    853.. 872     6 / 42    2     20
    873.. 971     7 / 49    2     99
    972           7 / 49    1     1
    973.. 987     9 / 63    1     15
    988..1002     9 / 63    2     15
   1003..1010     -         7     8     submit unknown, procs 1, run 10
    """
    unknown = {"submit": -1, "wait": 0, "user_id": 7, "procs": 1, "run": 10.0}
    rows = (burst(0, 1, 15) + burst(0, 2, 15) + burst(7, 1, 15) + burst(7, 2, 15)
            + burst(14, 1, 20) + burst(14, 7, 200, procs=1, run=10.0) + [unknown] * 2
            + burst(15, 7, 250, procs=-1, req_procs=2, run=-1.0)
            + [{**r, "submit": r["submit"] + 250} for r in burst(15, 7, 50, procs=-1, req_procs=2, run=30.0)]
            + burst(28, 1, 20) + burst(28, -1, 150) + burst(42, 9, 100) + burst(42, 2, 20)
            + burst(49, 2, 99) + [{**burst(49, 1, 1)[0], "submit": 49 * DAY + 500}]
            + burst(63, 1, 15) + burst(63, 2, 15) + [unknown] * 8)
    return make_jobs(rows)


def count(frame: pd.DataFrame, predicate: str) -> int:
    con = duckdb.connect()
    con.register("jobs", frame)
    return int(con.execute(f"SELECT count(*) FROM jobs WHERE {predicate_sql(predicate)}").fetchone()[0])


# Processor-seconds of the log: the 500 background jobs (1000 with a known
# submit minus user 7's 500; the unknown user's 150 among them) at 400 each =
# 200,000; user 7 in week 2: 200*1*10 + 50*2*30 = 5,000 (an unknown run counts
# nothing); user 7's 10 unknown-submit jobs: 10*1*10 = 100.
TOTAL_PS = 200_000 + 5_000 + 100


def test_hand_log_totals():
    jobs = hand_log()
    assert len(jobs) == 1010 and jobs.job.iloc[-1] == 1010
    r = flurries(jobs)
    assert r.jobs == 1010 and r.unknown_submit == 10
    # 1000 known jobs over weeks 0..9 = 10 weeks (3 of them empty): 100 a week.
    # Over the 7 weeks with jobs it would be 142.9 and user 9 no candidate.
    assert (r.first_week, r.weeks, r.weekly_average) == (0, 10, 100.0)
    # days 0..63 = 64 days: 1000 / 64 = 15.625 a day
    assert (r.first_day, r.days, r.daily_average) == (0, 64, 15.625)


def test_hand_log_weekly_candidates():
    jobs = hand_log()
    weekly = flurries(jobs).of_kind("week")
    # candidates need >= 100 jobs in a week: user 7 week 2 (500, exactly 5 x:
    # large), user 9 week 6 (100, exactly 1 x); not user 2 week 7 (99), not
    # the unknown user's 150 in week 4
    assert [(c.user, c.period, c.jobs, c.large) for c in weekly] == [(7, 2, 500, True), (9, 6, 100, False)]
    u7, u9 = weekly
    assert u7.ratio == 5.0 and u9.ratio == 1.0
    assert u7.share == pytest.approx(500 / 520) and u9.share == pytest.approx(100 / 120)
    # span 81..582 also holds user 7's two unknown-submit jobs 281, 282
    assert (u7.first_job, u7.last_job, u7.selected) == (81, 582, 502)
    assert (u9.first_job, u9.last_job, u9.selected) == (753, 852, 100)
    assert u7.predicate == "user=7 and job>=81 and job<=582"
    assert count(jobs, u7.predicate) == 502 and count(jobs, u9.predicate) == 100
    # procs: 200 of 1, 300 of 2 (allocated unknown, requested 2): median 2;
    # run: 200 of 10, 50 of 30 known (250 unknown left out): median 10
    assert (u7.median_procs, u7.median_run) == (2.0, 10.0)
    assert u7.proc_seconds_share == pytest.approx(5_000 / TOTAL_PS)
    assert u9.proc_seconds_share == pytest.approx(100 * 400 / TOTAL_PS)
    assert u7.reason == "large flurry of user 7 in week 2: 500 jobs, 5.0 times the average weekly total"
    assert u9.reason == "flurry of user 9 in week 6: 100 jobs, 1.0 times the average weekly total"


def test_hand_log_daily_candidates():
    daily = flurries(hand_log()).of_kind("day")
    # >= 15.625 a day; large at >= 78.125. Ratios: 300/15.625 = 19.2,
    # 200/15.625 = 12.8, 100 -> 6.4, 99 -> 6.336, 20 -> 1.28 (three of them,
    # ordered by day then user); the 15s of days 0, 7, 63 stay below.
    got = [(c.user, c.period, c.jobs, c.large) for c in daily]
    assert got == [(7, 15, 300, True), (7, 14, 200, True), (9, 42, 100, True), (2, 49, 99, True),
                   (1, 14, 20, False), (1, 28, 20, False), (2, 42, 20, False)]
    assert [c.ratio for c in daily] == pytest.approx([19.2, 12.8, 6.4, 6.336, 1.28, 1.28, 1.28])
    d15 = daily[0]
    assert (d15.first_job, d15.last_job, d15.selected) == (283, 582, 300)
    assert (d15.median_procs, d15.median_run) == (2.0, 30.0)
    assert d15.share == 1.0
    assert d15.reason == "large flurry of user 7 on day 15: 300 jobs, 19.2 times the average daily total"


def test_hand_log_dominance_counts_unknown_submits():
    jobs = hand_log()
    # user 7 has 510 of the 1010 jobs: 50.50%; user 2 164 (16.2%)
    (dom,) = flurries(jobs).of_kind("dominance")
    assert (dom.user, dom.jobs, dom.period, dom.ratio) == (7, 510, None, None)
    assert dom.share == pytest.approx(510 / 1010)
    assert dom.predicate == "user=7" and count(jobs, dom.predicate) == 510 == dom.selected
    assert (dom.first_job, dom.last_job) == (81, 1010)
    # 210 of 1 and 300 of 2 processors; runs 210 of 10 and 50 of 30
    assert (dom.median_procs, dom.median_run) == (2.0, 10.0)
    assert dom.proc_seconds_share == pytest.approx(5_100 / TOTAL_PS)
    assert dom.reason == "user 7 submitted 50.5% of the log's jobs"
    # 510/1010 is above one half; 500/1000 (without the unknown submits) would not be
    assert flurries(jobs, dominance=0.5).of_kind("dominance")[0].user == 7
    assert flurries(jobs, dominance=0.51).of_kind("dominance") == []


def test_hand_log_thresholds_and_top_users():
    jobs = hand_log()
    # at 0.99 x user 2's 99 in week 7 joins; at 5.01 x nothing is large
    assert [c.user for c in flurries(jobs, candidate=0.99).of_kind("week")] == [7, 9, 2]
    assert not any(c.large for c in flurries(jobs, large=5.01).of_kind("week"))
    r = flurries(jobs, top=3)
    weeks = [t for t in r.top_users if t.kind == "week"]
    assert [(t.period, t.jobs) for t in weeks] == [(2, 520), (6, 120)]
    assert weeks[0].users == ((7, 500, 500 / 520), (1, 20, 20 / 520))
    assert weeks[1].users == ((9, 100, 100 / 120), (2, 20, 20 / 120))
    # every candidate day listed once: 14, 15, 28, 42, 49
    assert [t.period for t in r.top_users if t.kind == "day"] == [14, 15, 28, 42, 49]
    day28 = next(t for t in r.top_users if t.kind == "day" and t.period == 28)
    assert day28.jobs == 170 and day28.users == ((1, 20, 20 / 170),)  # unknown user not ranked


def test_weekly_counts_table():
    t = weekly_counts(hand_log(), top=3)
    # ranked by largest weekly count: 7 (500), 9 (100), 2 (99); unknown user never
    assert list(t.columns) == ["week", "jobs", "user 7", "user 9", "user 2", "others"]
    assert t.week.tolist() == list(range(10))
    assert t.jobs.tolist() == [30, 30, 520, 0, 170, 0, 120, 100, 0, 30]
    assert t["user 2"].tolist() == [15, 15, 0, 0, 0, 0, 20, 99, 0, 15]
    assert t.others.tolist() == [15, 15, 20, 0, 170, 0, 0, 1, 0, 15]


def test_dates_and_json():
    r = flurries(hand_log(), unix_start_time=START, tz=TZ)
    u7 = r.of_kind("week")[0]
    assert u7.date == "2000-01-17"  # week 2 = 14 days after Monday 2000-01-03
    assert u7.reason.startswith("large flurry of user 7 in week 2 (2000-01-17): 500 jobs")
    d = r.to_dict()
    assert json.loads(json.dumps(d)) == d  # plain types only
    assert json.dumps(d) == json.dumps(flurries(hand_log(), unix_start_time=START, tz=TZ).to_dict())
    assert [c["user"] for c in d["weekly_candidates"]] == [7, 9]
    assert d["weekly_candidates"][0]["ratio"] == 5.0
    assert d["weekly_counts"][2] == {"week": 2, "date": "2000-01-17", "jobs": 520, "user 7": 500,
                                     "user 9": 0, "user 2": 0, "others": 20}
    assert d["dominant_users"][0]["share"] == 0.505


def test_bad_arguments():
    with pytest.raises(UsageError, match="dominance"):
        flurries(hand_log(), dominance=1.5)
    with pytest.raises(UsageError, match="user_id"):
        flurries(hand_log().drop(columns="user_id"))


# -- real logs ---------------------------------------------------------------

REAL = ["SDSC-SP2-1998-4.2-cln", "LANL-CM5-1994-4.1-cln"]


def _sql_counts(real_archive, name: str, period: str) -> pd.DataFrame:
    """(period, user, jobs) straight from the typed view; NULL user is -1."""
    expr = "week" if period == "week" else "CAST(floor(submit / 86400) AS BIGINT)"
    return real_archive.df(
        f"SELECT {expr} AS period, coalesce(user_id, -1) AS user_id, count(*) AS n "
        f"FROM typed_jobs WHERE log = ? AND submit IS NOT NULL GROUP BY ALL", [name])


@pytest.mark.parametrize("name", REAL)
def test_weekly_counts_match_sql(real_archive, name):
    jobs = real_archive.df(log_query(real_archive, name))
    table = weekly_counts(jobs, top=5)
    sql = _sql_counts(real_archive, name, "week")
    totals = sql.groupby("period").n.sum()
    assert table.week.tolist() == list(range(totals.index.min(), totals.index.max() + 1))
    assert table.set_index("week").jobs.to_dict() == totals.reindex(table.week, fill_value=0).to_dict()
    known = sql[sql.user_id != -1]
    peak = known.groupby("user_id").n.agg(["max", "sum"]).reset_index()
    best = peak.sort_values(["max", "sum", "user_id"], ascending=[False, False, True]).user_id.head(5)
    assert [c for c in table.columns if c.startswith("user ")] == [f"user {u}" for u in best]
    for u in best:
        mine = known[known.user_id == u].set_index("period").n
        assert table.set_index("week")[f"user {u}"].to_dict() == mine.reindex(table.week, fill_value=0).to_dict()


@pytest.mark.parametrize("name", REAL)
def test_candidates_match_sql_and_predicates_select_them(real_archive, name):
    info = log_info(real_archive, name)["log"]
    jobs = real_archive.df(log_query(real_archive, name))
    r = flurries(jobs, unix_start_time=info["unix_start_time"], tz=info["tz"])
    log_id = real_archive.log_id(name)
    clock = LogClock(int(info["unix_start_time"]), info["tz"])
    for period, average in (("week", r.weekly_average), ("day", r.daily_average)):
        sql = _sql_counts(real_archive, name, period)
        spanned = sql.period.max() - sql.period.min() + 1
        assert average == pytest.approx(sql.n.sum() / spanned)
        want = sql[(sql.user_id != -1) & (sql.n >= sql.n.sum() / spanned)]
        got = r.of_kind(period)
        assert sorted((c.period, c.user, c.jobs) for c in got) == sorted(
            zip(want.period.tolist(), want.user_id.tolist(), want.n.tolist()))
        for c in got:
            span = real_archive.df(
                f"SELECT min(job) AS a, max(job) AS b FROM typed_jobs WHERE log = ? AND user_id = ? "
                f"AND {'week' if period == 'week' else 'floor(submit / 86400)'} = ?",
                [name, c.user, c.period]).iloc[0]
            assert (c.first_job, c.last_job) == (span.a, span.b)
            where = predicate_sql(c.predicate, clock)
            selected = real_archive.df(
                f"SELECT count(*) AS n FROM jobs WHERE log_id = {log_id} AND ({where})").n.item()
            # these logs are sorted by submit time: the span holds exactly the candidate's jobs
            assert selected == c.selected == c.jobs
    assert r.weekly_average > 0 and len(r.of_kind("day")) > 0


def test_flurry_plot_is_reproducible(real_archive, tmp_path):
    name = REAL[0]
    info = log_info(real_archive, name)["log"]
    jobs = real_archive.df(log_query(real_archive, name))
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    for path in (a, b):
        plot_flurries(jobs, path, title=name, unix_start_time=info["unix_start_time"], tz=info["tz"])
    assert a.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and a.read_bytes() == b.read_bytes()
    plot_flurries(hand_log(), tmp_path / "hand.png", top=2)  # no dates: week numbers
    assert (tmp_path / "hand.png").stat().st_size > 0


@pytest.mark.slow  # seconds of a worker; CI's slow step runs it
def test_quality_report_counts_the_candidates_flurries_finds(real_archive):
    from wla.archive.analysis.quality import quality

    report = quality(real_archive).set_index("name")
    for name in real_archive.log_names():
        found = flurries(real_archive.df(log_query(real_archive, name)))
        weeks = found.of_kind("week")
        row = report.loc[name]
        assert row.flurry_weeks == len(weeks), name
        assert row.large_flurry_weeks == sum(c.large for c in weeks), name
        assert row.dominant_users == len(found.of_kind("dominance")), name
