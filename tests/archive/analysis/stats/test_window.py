"""Statistics over a time window (archive/analysis/stats/window.py, `wla
stats --from/--to/--years`): which jobs a window takes and what it measures,
worked out by hand on made logs; a year of a real log against pandas on the
file; hostile windows refused in one line."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pandas as pd
import pytest
from cli_run import wla
from made_jobs import make_jobs
from real_logs import pandas_log
from wla.archive import open as open_archive
from wla.archive.analysis.stats.collect import workload_statistics
from wla.archive.analysis.stats.window import YEAR
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe
from wla.archive.kernel.clock import DAY, WEEK, LogClock
from wla.archive.kernel.errors import OptionError, ParameterError, UsageError
from wla.archive.store.ingest import ingest
from wla.sim.evaluate.resample.workload import SourceLog, read_source
from wla.sim.evaluate.validate import log_statistics

SP2 = "SDSC-SP2-1998-4.2-cln"
MONDAY = int(datetime(2024, 1, 1, tzinfo=timezone.utc).timestamp())  # 2024-01-01 00:00 UTC, a Monday
UTC = LogClock(MONDAY, "UTC")
H = 3600.0


def made() -> pd.DataFrame:
    """Seven jobs over three years; the first submit at 1000 s, so years
    count from it, not from the clock's 0. Year 2 is [1000 + 365 d,
    1000 + 730 d): the jobs at day 400 and 401 (users 3 and 4), and the one
    at day 730 + 1000 s minus one second (user 3); day 800 is year 3."""
    rows = [(1000, 1, 100, 4, 5), (DAY, 1, 200, 2, 5), (10 * DAY, 2, 300, 1, 5),
            (400 * DAY + H, 3, 1000, 8, 5), (401 * DAY + 2 * H, 4, 500, 2, 5),
            (730 * DAY + 999, 3, 10, 1, 5), (800 * DAY, 1, 50, 1, 5)]
    jobs = make_jobs([{"submit": s, "user_id": u, "run": r, "procs": p, "wait": w, "req_procs": p, "req_time": r}
                      for s, u, r, p, w in rows])
    return jobs


def source(jobs: pd.DataFrame, clock: LogClock = UTC, P: int | None = 16) -> SourceLog:
    return SourceLog("made", jobs, P, clock, None)


def test_year_two_counts_from_the_first_submit_and_measures_from_its_start():
    jobs = made()
    data = log_statistics(source(jobs), years="2")
    w = data["window"]
    assert (w["start"], w["end"]) == (1000 + YEAR, 1000 + 2 * YEAR)
    assert w["jobs"] == 3 and data["statistics"]["jobs"] == 3 and w["workload_jobs"] == 7
    assert w["label"] == "year 2" and w["start_date"] == "2024-12-31 00:16:40"  # 2024 has 366 days
    assert w["arrival_rate"] == pytest.approx(3 / 365)
    work = 1000 * 8 + 500 * 2 + 10 * 1
    assert w["load"] == pytest.approx(work / (16 * YEAR))
    users = data["statistics"]["users"]
    assert users["ids"] == [3, 4]
    first = users["distributions"]["first_arrival"]["values"]
    # user 3's first job at day 400 + 1 h, user 4's at day 401 + 2 h: from the window's start
    assert first == [400 * DAY + H - (1000 + YEAR), 401 * DAY + 2 * H - (1000 + YEAR)]
    last = users["distributions"]["last_departure"]["values"]
    assert last == [730 * DAY + 999 + 5 + 10 - (1000 + YEAR), 401 * DAY + 2 * H + 5 + 500 - (1000 + YEAR)]
    assert users["distributions"]["jobs"]["values"] == [2, 1]


def test_a_window_keeps_the_calendar_of_its_jobs():
    """Days of the week and hours of the day stay the jobs' own though their
    times count from the window's start: on a log whose day 0 is a Monday,
    day 400 (400 % 7 = 1) is a Tuesday, days 401 and 730 (% 7 = 2)
    Wednesdays; the jobs come at 01:00, 02:00 and 00:16."""
    data = log_statistics(source(made()), years="2")
    cycles = data["statistics"]["cycles"]
    assert cycles["day_of_week"] == [0, 1, 2, 0, 0, 0, 0]
    assert cycles["hour_of_day"][:3] == [1, 1, 1] and sum(cycles["hour_of_day"]) == 3
    # the whole log: days 0 (Mon), 1 (Tue), 10 (Thu), 400 (Tue), 401, 730, 800 (Wed)
    assert workload_statistics(made(), 16, UTC)["cycles"]["day_of_week"] == [1, 2, 3, 1, 0, 0, 0]


def test_weeks_and_intervals_count_from_the_window_start():
    """Year 2's jobs fall in weeks 0, 0 and 52 of the window (not weeks
    57 to 104 of the log): 53 weeks, and the stability's days run from its
    first submit's day to its last's."""
    st = log_statistics(source(made()), years="2")["statistics"]
    origin = 1000 + YEAR
    assert st["weekly_offset"]["weeks"] == (730 * DAY + 999 - origin) // WEEK + 1 == 53
    day = st["stability"]["day"]
    assert day["intervals"] == (730 * DAY + 999 - origin) // DAY - (400 * DAY + H - origin) // DAY + 1


def test_years_a_to_b_take_both_and_an_open_end_the_rest():
    jobs = made()
    assert log_statistics(source(jobs), years="2:3")["window"]["jobs"] == 4
    assert log_statistics(source(jobs), years=" 1 : 1 ")["window"]["jobs"] == 3
    rest = log_statistics(source(jobs), start=str(400 * DAY))["window"]
    # cut to the last submit: the span runs to day 800, the start is as asked
    assert (rest["jobs"], rest["start"], rest["end"], rest["span"]) == (4, 400 * DAY, 800 * DAY, 400 * DAY)
    head = log_statistics(source(jobs), end=DAY + 1)["window"]
    assert (head["jobs"], head["start"], head["end"]) == (2, 1000, DAY + 1)  # the start cut to the first submit


def test_dates_are_the_logs_local_time_and_the_end_is_left_out():
    """[from, to): a job submitted at the `to` instant is not in the window,
    one at the `from` instant is; dates are local (New York is UTC-5 in
    January: 2024-01-02 00:00 there is 1 d 5 h after 00:00 UTC)."""
    ny = LogClock(MONDAY, "America/New_York")
    at = DAY + 5 * H
    jobs = make_jobs([{"submit": s, "user_id": 1, "run": 10, "procs": 1} for s in (at - 1, at, at + DAY)])
    got = log_statistics(source(jobs, ny), start="2024-01-02", end="2024-01-03")["window"]
    assert (got["jobs"], got["start"], got["end"]) == (1, at, at + DAY)
    got = log_statistics(source(jobs, ny), start="2024-01-02", end="2024-01-03 00:00:01")["window"]
    assert got["jobs"] == 2 and got["start_date"] == "2024-01-02 00:00:00"
    assert log_statistics(source(jobs, ny), start=str(at - 1), end=at)["window"]["jobs"] == 1  # seconds


def test_unknown_submits_are_outside_every_window():
    jobs = made()
    jobs.loc[0, "submit"] = -1  # the first job's submit unknown: years count from day 1
    data = log_statistics(source(jobs), years="1")
    assert (data["window"]["start"], data["window"]["jobs"]) == (DAY, 2)
    assert data["statistics"]["unknown_submit"] == 0


def test_without_a_window_nothing_changes():
    plain = log_statistics(source(made()))
    assert "window" not in plain
    assert plain["statistics"] == workload_statistics(made(), 16, UTC)


def test_no_machine_size_no_load_and_no_start_no_dates():
    w = log_statistics(source(made(), LogClock(None, None), P=None), years="1")["window"]
    assert w["load"] is None and w["start_date"] is None and w["jobs"] == 3


@pytest.mark.parametrize(("kw", "error", "says"), [
    ({"start": "2024-01-05", "end": "2024-01-05"}, ParameterError, "ends before it begins"),
    ({"start": "2024-02-01", "end": "2024-01-05"}, ParameterError, "ends before it begins"),
    ({"start": "2024-13-01"}, OptionError, "not a date"),
    ({"start": "2024-02-30"}, OptionError, "day is out of range"),
    ({"end": "yesterday"}, OptionError, "takes a date"),
    ({"end": "1e999"}, OptionError, "finite"),
    ({"start": "nan"}, OptionError, "takes a date"),
    ({"start": "2024-01-01; drop table jobs"}, OptionError, "not a date"),
    ({"years": "0"}, OptionError, "from 1"),
    ({"years": "3:1"}, OptionError, "ends before it begins"),
    ({"years": "1:2:3"}, OptionError, "N or A:B"),
    ({"years": "-1"}, OptionError, "N or A:B"),
    ({"years": "1.5"}, OptionError, "N or A:B"),
    ({"years": "99999"}, OptionError, "from 1 to 10,000"),
    ({"years": "1", "start": "2024-01-01"}, ParameterError, "not both"),
    ({"years": "9"}, UsageError, "no job of made is submitted in the window (year 9)"),
    ({"start": "2030-01-01"}, UsageError, "its jobs are submitted from 1,000 s (2024-01-01 00:16:40)"),
])
def test_hostile_windows_are_refused_in_one_line(kw, error, says):
    with pytest.raises(error) as e:
        log_statistics(source(made()), **kw)
    assert says in str(e.value) and "\n" not in str(e.value)


def test_dates_need_the_logs_start():
    with pytest.raises(OptionError, match="UnixStartTime"):
        log_statistics(source(made(), LogClock(None, None)), start="2024-01-01")


# -- a real log against pandas on its file ---------------------------------------------------------


@pytest.fixture(scope="module")
def sp2(sp2_archive_file):
    with open_archive(sp2_archive_file) as a:
        return read_source(a, SP2)


def test_a_year_of_a_real_log_as_pandas_counts_it(sp2):
    jobs = pandas_log(SP2)
    known = jobs[jobs.submit >= 0]
    first = known.submit.min()
    year = known[(known.submit >= first + 365 * DAY) & (known.submit < first + 2 * 365 * DAY)]
    data = log_statistics(sp2, years="2")
    w, st = data["window"], data["statistics"]
    assert w["jobs"] == st["jobs"] == len(year) > 10_000
    per_user = year.groupby("user")
    assert st["users"]["users"] == per_user.ngroups
    assert data["scalars"]["jobs_per_user_mean"] == pytest.approx(per_user.size().mean())
    origin = first + 365 * DAY
    assert data["scalars"]["first_arrival_mean"] == pytest.approx((per_user.submit.min() - origin).mean())
    width = year.procs.where(year.procs > 0, year.req_procs)
    work = (year.run * width)[(year.run >= 0) & (width > 0)].sum()
    span = min(first + 2 * 365 * DAY, known.submit.max()) - origin  # the log ends a day before its year 2 does
    assert w["span"] == span < 365 * DAY
    assert w["load"] == pytest.approx(work / (128 * span))
    assert w["arrival_rate"] == pytest.approx(len(year) / (span / DAY))


def test_a_month_of_a_real_log_by_local_dates_as_pandas_counts_it(sp2):
    jobs = pandas_log(SP2)
    tz = ZoneInfo(sp2.clock.tz)
    lo = datetime(1998, 6, 1, tzinfo=tz).timestamp() - sp2.clock.unix_start_time
    hi = datetime(1998, 7, 1, 12, tzinfo=tz).timestamp() - sp2.clock.unix_start_time
    month = jobs[(jobs.submit >= lo) & (jobs.submit < hi)]
    data = log_statistics(sp2, start="1998-06-01", end="1998-07-01 12:00")
    assert data["window"]["jobs"] == len(month) > 2000
    local = pd.to_datetime(sp2.clock.unix_start_time + month.submit, unit="s", utc=True).dt.tz_convert(tz)
    want = local.dt.day_of_week.value_counts().reindex(range(7), fill_value=0).tolist()
    assert data["statistics"]["cycles"]["day_of_week"] == want


# -- the command ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def made_archive(tmp_path_factory):
    folder = tmp_path_factory.mktemp("window")
    header = f"; UnixStartTime: {MONDAY}\n; TimeZoneString: UTC\n; MaxProcs: 16\n"
    lines = [" ".join(str(int(v)) for v in (i + 1, j.submit, j.wait, j.run, j.procs, -1, -1, j.procs,
                                           j.run, -1, 1, j.user_id, -1, -1, -1, -1, -1, -1))
             for i, j in enumerate(made().itertuples())]
    (folder / "made.swf").write_text(header + "\n".join(lines) + "\n")
    path = folder / "a.duckdb"
    with open_archive(path, write=True) as a:
        [r] = ingest(a, [folder / "made.swf"])
        assert r.status == "ingested"
        clean(a, parse_recipe('log = "made"\nversion = "v1"\n\n[[step]]\nrule = "filter"\nwhere = "user=4"\n'))
    return path


def test_the_command_says_its_window_and_names_its_figures(made_archive, tmp_path, monkeypatch):
    r = wla("stats", "made", "--years", "2", "--json", archive=made_archive)
    assert r.status == 0, r.err
    data = json.loads(r.out)
    assert data["window"]["jobs"] == 3 and data["statistics"]["users"]["users"] == 2
    version = json.loads(wla("stats", "made@v1", "--years", "2", "--json", archive=made_archive).out)
    assert version["window"]["jobs"] == 2 and version["statistics"]["users"]["ids"] == [3]  # user 4 left out
    from wla.archive.analysis.stats import plot

    drawn = []  # the figures themselves are tested with `wla stats`'s; here, the name they take
    monkeypatch.setattr(plot, "write_plots", lambda stats, folder, name: drawn.append((stats["jobs"], name)) or [])
    text = wla("stats", "made", "--from", "2025-02-05", "--to", "2026-01-01", "--plot-dir", tmp_path,
               archive=made_archive)
    assert text.status == 0, text.err
    assert text.out.splitlines()[1].startswith("window: from 2025-02-05 to 2026-01-01, 2025-02-05 00:00:00 to ")
    assert "2 of 7 jobs" in " ".join(text.out.split())  # days 401 and 730 (2025-02-05 is day 401)
    assert drawn == [(2, "made-from-2025-02-05-to-2026-01-01")]


@pytest.mark.parametrize(("args", "says"), [
    (("--from", "2025-03-01", "--to", "2025-02-01"), "the window ends before it begins: --from 2025-03-01 is "
                                                     "not before --to 2025-02-01"),
    (("--to", "2025-02-31"), "--to takes a date"),
    (("--years", "2", "--to", "2025-02-01"), "give --years or --from/--to, not both"),
    (("--years", "x"), "--years takes N or A:B"),
    (("--years", "7"), "no job of made is submitted in the window (year 7)"),
])
def test_the_command_refuses_a_bad_window_in_one_line(made_archive, args, says):
    line = wla("stats", "made", *args, archive=made_archive).one_error_line()
    assert says in line


def test_a_stored_resampled_workload_takes_a_window_as_a_log_does(sp2_archive_file, tmp_path):
    """Year 3 of a workload resampled to three times the log's length: the
    jobs the stored workload's SWF export (read by pandas) submits in it."""
    from wla.sim.evaluate.resample.settings import ResampleSettings
    from wla.sim.evaluate.resample.store import resample_log

    path = tmp_path / "a.duckdb"
    path.write_bytes(sp2_archive_file.read_bytes())
    with open_archive(path, write=True) as a:
        name, _ = resample_log(a, SP2, name="sp2-x3", settings=ResampleSettings(weeks=3 * 52, seed=7))
    assert wla("export", name, "-o", tmp_path / "x3.swf", archive=path).status == 0
    jobs = pd.read_csv(tmp_path / "x3.swf", sep=r"\s+", comment=";", header=None, usecols=[1, 11],
                       names=["submit", "user"])
    first = jobs.submit[jobs.submit >= 0].min()
    year = jobs[(jobs.submit >= first + 2 * YEAR) & (jobs.submit < first + 3 * YEAR)]
    data = json.loads(wla("stats", name, "--years", "3", "--json", archive=path).out)
    assert data["log"] == name and data["window"]["jobs"] == len(year) > 10_000
    assert data["statistics"]["users"]["users"] == year.user.nunique()


# The table of docs/pages/reproductions/window.md: per row (where in `log_statistics`'s result, divisor,
# format), the log's value and, for parts 1, 3 and 5 of SDSC-SP2 resampled to 520 weeks, the range over
# seeds 1 to 3.
FIG10 = {
    ("window", "jobs"): (1, "{:,.0f}", "59,715", ("57,917–62,196", "57,658–61,577", "57,367–62,276")),
    ("window", "load"): (0.01, "{:.1f}", "83.4", ("81.1–82.4", "81.2–83.8", "81.1–81.9")),
    ("scalars", "users"): (1, "{:.0f}", "437", ("421–433", "405–429", "416–431")),
    ("scalars", "jobs_per_user_mean"): (1, "{:.0f}", "137", ("135–144", "142–145", "133–146")),
    ("scalars", "jobs_per_user_median"): (1, "{:.0f}", "29", ("28–36", "29–40", "33–40")),
    ("scalars", "sessions_per_user_mean"): (1, "{:.1f}", "32.2", ("32.3–32.9", "32.7–34.3", "31.4–32.8")),
    ("scalars", "session_length_median"): (3600, "{:.2f}", "3.34", ("3.03–3.39", "3.05–3.18", "2.79–3.04")),
    ("scalars", "cpu_work_per_user_mean"): (3600, "{:,.0f}", "4,276", ("4,212–4,391", "4,352–4,494",
                                                                       "4,202–4,311")),
    ("scalars", "first_arrival_median"): (DAY, "{:.0f}", "264", ("113–139", "117–141", "142–159")),
    ("scalars", "last_departure_median"): (DAY, "{:.0f}", "420", ("585–600", "562–591", "571–599")),
    ("scalars", "activity_period_mean"): (DAY, "{:.0f}", "146", ("265–271", "265–281", "256–260")),
    ("scalars", "activity_period_median"): (DAY, "{:.1f}", "29.3", ("29.4–36.0", "33.0–36.7", "28.0–40.5")),
    ("scalars", "weekend_share"): (0.01, "{:.1f}", "20.3", ("20.0–20.4", "20.2–21.1", "19.4–20.1")),
    ("scalars", "hurst"): (1, "{:.3f}", "0.707", ("0.705–0.709", "0.698–0.703", "0.703–0.706")),
    ("scalars", "stack_depth_run"): (1, "{:.1f}", "25.2", ("24.3–25.2", "24.7–26.0", "24.5–25.2")),
    ("scalars", "unaccommodated_week"): (0.01, "{:.0f}", "11", ("28–32", "29–31", "29–32")),
}


def _range(values: list[float], form: str) -> str:
    lo, hi = form.format(min(values)), form.format(max(values))
    return lo if lo == hi else f"{lo}–{hi}"


@pytest.mark.slow
def test_fig10_parts_of_an_extended_workload_give_the_docs_table(sp2):
    """Resampling to five times the log's 104 weeks, three seeds: parts 1,
    3 and 5 (years 1-2, 5-6, 9-10) against the log, as the docs give them."""
    from wla.sim.evaluate.resample.settings import ResampleSettings
    from wla.sim.evaluate.resample.workload import resample_source

    log = log_statistics(sp2, years="1:2")
    parts: dict[tuple, list[list[float]]] = {row: [[], [], []] for row in FIG10}
    for seed in (1, 2, 3):
        r = resample_source(sp2, ResampleSettings(weeks=520, seed=seed))
        workload = SourceLog(f"r{seed}", r.jobs, sp2.P, sp2.clock, None)
        for k, years in enumerate(("1:2", "5:6", "9:10")):
            got = log_statistics(workload, years=years)
            for row in FIG10:
                parts[row][k].append(got[row[0]][row[1]])
    for (where, name), (unit, form, want_log, want_parts) in FIG10.items():
        assert form.format(log[where][name] / unit) == want_log, name
        assert tuple(_range([v / unit for v in part], form) for part in parts[(where, name)]) == want_parts, name
    # --phase cycle, all parts and seeds together: the ranges the docs give
    cycle = {"first_arrival_median": [], "last_departure_median": [], "activity_period_mean": []}
    for seed in (1, 2, 3):
        r = resample_source(sp2, ResampleSettings(weeks=520, seed=seed, phase="cycle"))
        workload = SourceLog(f"c{seed}", r.jobs, sp2.P, sp2.clock, None)
        for years in ("1:2", "5:6", "9:10"):
            scalars = log_statistics(workload, years=years)["scalars"]
            for name, values in cycle.items():
                values.append(scalars[name] / DAY)
    assert {name: _range(v, "{:.0f}") for name, v in cycle.items()} == {
        "first_arrival_median": "210–235", "last_departure_median": "460–527", "activity_period_mean": "184–202"}
