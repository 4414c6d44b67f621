"""Periodic jobs: a hand-made user at 03:45 on 20 of 25 days among noise,
and SDSC Paragon's cleaned log, whose midnight jobs of user 17 pandas
counts from the file (the 3:45 AM script of user 5 was cleaned away)."""
from __future__ import annotations

import random
from datetime import datetime
from zoneinfo import ZoneInfo

import pandas as pd
from real_logs import pandas_log
from wla.archive.analysis.diagnosis import periodic
from wla.archive.analysis.diagnosis.diagnose import diagnose
from wla.archive.analysis.diagnosis.log_data import from_columns
from wla.archive.store.select import log_query

PACIFIC = "US/Pacific"
START = int(datetime(2001, 3, 1, tzinfo=ZoneInfo(PACIFIC)).timestamp())  # midnight, PST


def _script_log(days_run: list[int]):
    """User 7 at 03:45 +- 2 minutes on `days_run` of 25 days; ten users
    (7 among them) at random times of the working day; and user 8 every
    day at random hours, all day."""
    rng = random.Random(5)
    rows = []
    for d in range(25):
        if d in days_run:
            rows.append((d * 86400 + 3 * 3600 + 45 * 60 + rng.randint(-120, 120), 7))
        rows += [(d * 86400 + rng.randint(8 * 3600, 18 * 3600), rng.randint(1, 10)) for _ in range(30)]
        rows += [(d * 86400 + h * 3600 + rng.randint(0, 3599), 8) for h in range(24)]
    rows.sort()
    return from_columns("t", {"submit": [s for s, _ in rows], "user_id": [u for _, u in rows]},
                        {"unix_start_time": START, "tz": PACIFIC})


def test_a_user_at_0345_on_20_of_25_days_is_found_among_noise():
    days = sorted(random.Random(1).sample(range(25), 20))
    log = _script_log(days)
    [f] = periodic.detect(log)
    # both windows of 20 minutes that hold 03:43-03:47 are right answers
    start = {"03:30": 210, "03:40": 220}[f.data["window"][0]]
    # by a plain loop: user 7's jobs in that window, local time (PST throughout)
    mine = [(s, j) for s, u, j in zip(log.jobs["submit"], log.jobs["user_id"], log.jobs["job"])
            if u == 7 and start <= (s % 86400) // 60 < start + 20]
    assert f.data["ids"] == [7] and f.data["days"] == len(mine) == 20
    assert f.data["spanned_days"] == days[-1] - days[0] + 1
    assert f.data["first_date"] == datetime.fromtimestamp(START + days[0] * 86400, ZoneInfo(PACIFIC)).date().isoformat()
    assert f.data["time"] in ("03:44", "03:45", "03:46")
    assert (f.data["first_job"], f.data["last_job"]) == (min(j for _, j in mine), max(j for _, j in mine))
    assert f.data["predicate"] == f"user=7 and daily('{f.data['window'][0]}','{f.data['window'][1]}')"


def test_too_few_days_or_no_start_is_no_finding():
    assert periodic.detect(_script_log(list(range(0, 25, 3)))) == []  # 9 days
    log = _script_log(list(range(20)))
    log.facts["unix_start_time"] = None
    assert periodic.detect(log) == []


def test_applications_of_one_script_are_one_finding_unless_a_user_covers_them():
    submit, user, app = [], [], []
    for d in range(20):
        for a in (31, 32, 33):
            submit.append(d * 86400 + 2 * 3600 + 5 * 60 + a)
            user.append(40 + d % 5)  # five users take turns: none is periodic
            app.append(a)
    log = from_columns("t", {"submit": submit, "user_id": user, "app_id": app},
                       {"unix_start_time": START, "tz": PACIFIC})
    [f] = periodic.detect(log)
    assert f.data["field"] == "app_id" and f.data["ids"] == [31, 32, 33] and f.data["jobs"] == 60
    assert f.data["predicate"].startswith("app in (31, 32, 33) and daily(")
    log.jobs["user_id"][:] = 40  # now one user runs them: the user's finding covers the applications'
    assert [g.data["field"] for g in periodic.detect(log)] == ["user_id"]


def test_sdsc_paragon_midnight_jobs_counted_by_pandas(real_archive):
    name = "SDSC-Par-1996-3.1-cln"
    frame = pandas_log(name)
    start = 820090437  # the file's UnixStartTime
    frame = frame[frame.submit >= 0]
    local = pd.to_datetime(start + frame.submit.astype("int64"), unit="s", utc=True).dt.tz_convert(PACIFIC)
    minute = local.dt.hour * 60 + local.dt.minute
    mine = frame[(frame.user == 17) & (minute < 20)]
    dates = local[mine.index].dt.date
    found = {(tuple(f.data["ids"]), f.data["window"][0]): f for f in diagnose(real_archive, name)
             if f.detector == "periodic_jobs"}
    f = found[((17,), "00:00")]
    assert f.data["days"] == dates.nunique() == 181
    assert f.data["spanned_days"] == (dates.max() - dates.min()).days + 1 == 346
    assert f.data["jobs"] == len(mine) and f.data["first_job"] == mine.job.min()
    # the predicate wla's --where accepts selects exactly these jobs
    count = real_archive.con.execute(
        f"SELECT count(*) FROM ({log_query(real_archive, name, where=f.data['predicate'])})").fetchone()[0]
    assert count == len(mine)
    # user 6 near midnight too; the 3:45 AM script (user 5) was cleaned away, as the header says
    assert set(found) == {((17,), "00:00"), ((6,), "23:50")}
    header = real_archive.con.execute(
        "SELECT string_agg(text, ' ') FROM header_lines JOIN logs USING (log_id) WHERE name = ?", [name]).fetchone()[0]
    assert "user=5 and (hour>=3 and hour<=3)" in header
