"""Flurry detection (docs/pages/definitions/cleaning.md section 3): bursts of jobs by one user.

Detection proposes, a person decides. The report lists each candidate with a
ready predicate in the archive's notation and a reason a cleaning decision can
carry, plus the figures that tell whether removing it changes the load: the
jobs' typical size and run time and their share of the processor-seconds.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..kernel.clock import DAY, WEEK, LogClock, local_date, log_clock
from ..kernel.errors import UsageError
from ..kernel.processors import job_processors
from ..kernel.ranges import MAX_COUNT, number, whole

NEEDED = ("job", "submit", "run", "procs", "req_procs", "user_id")


@dataclass(frozen=True)
class Candidate:
    """One user-week, user-day, or dominant user, as a removal could adopt it."""

    kind: str  # "week", "day" or "dominance"
    user: int
    period: int | None  # week or day of the submit clock; None for dominance
    date: str | None  # local date the period starts on, when the log's start is known
    jobs: int
    ratio: float | None  # jobs over the average weekly (daily) total; None for dominance
    share: float  # of the period's jobs; of the log's jobs for dominance
    large: bool
    first_job: int
    last_job: int
    selected: int  # jobs the predicate selects: more than `jobs` when the user's
    # jobs of other periods have job numbers inside the span
    predicate: str
    reason: str
    median_procs: float | None
    median_run: float | None
    proc_seconds_share: float | None  # of the log's processor-seconds

    def to_dict(self) -> dict:
        return {
            "kind": self.kind, "user": self.user, "period": self.period, "date": self.date,
            "jobs": self.jobs, "ratio": _round(self.ratio, 2), "share": round(self.share, 4),
            "large": self.large, "first_job": self.first_job, "last_job": self.last_job,
            "selected": self.selected, "predicate": self.predicate, "reason": self.reason,
            "median_procs": _round(self.median_procs, 1), "median_run": _round(self.median_run, 1),
            "proc_seconds_share": _round(self.proc_seconds_share, 6),
        }


@dataclass(frozen=True)
class TopUsers:
    """The busiest users of a week (or day) that holds a candidate."""

    kind: str
    period: int
    date: str | None
    jobs: int  # all jobs of the period, unknown users included
    users: tuple[tuple[int, int, float], ...]  # (user, jobs, share of the period's jobs)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "period": self.period, "date": self.date, "jobs": self.jobs,
                "users": [{"user": u, "jobs": n, "share": round(s, 4)} for u, n, s in self.users]}


@dataclass
class FlurryReport:
    """Flurry candidates of one log, with the averages they were judged by."""

    jobs: int
    unknown_submit: int  # left out of the weekly and daily counting
    first_week: int
    weeks: int  # spanned, empty weeks included
    weekly_average: float
    first_day: int
    days: int
    daily_average: float
    thresholds: dict
    candidates: list[Candidate]  # weeks, then days, then dominance
    top_users: list[TopUsers]
    weekly: pd.DataFrame  # weekly_counts()
    clock: LogClock = field(default_factory=LogClock)

    def of_kind(self, kind: str) -> list[Candidate]:
        return [c for c in self.candidates if c.kind == kind]

    def to_dict(self) -> dict:
        weekly = []
        for row in self.weekly.itertuples(index=False):
            rec = {"week": int(row[0]), "date": local_date(self.clock, int(row[0]) * WEEK)}
            rec.update({col: int(v) for col, v in zip(self.weekly.columns[1:], row[1:])})
            weekly.append(rec)
        return {
            "jobs": self.jobs,
            "unknown_submit": self.unknown_submit,
            "thresholds": dict(self.thresholds),
            "weeks": {"first": self.first_week, "spanned": self.weeks,
                      "average_jobs": round(self.weekly_average, 2)},
            "days": {"first": self.first_day, "spanned": self.days,
                     "average_jobs": round(self.daily_average, 2)},
            "weekly_candidates": [c.to_dict() for c in self.of_kind("week")],
            "daily_candidates": [c.to_dict() for c in self.of_kind("day")],
            "dominant_users": [c.to_dict() for c in self.of_kind("dominance")],
            "top_users": [t.to_dict() for t in self.top_users],
            "weekly_counts": weekly,
        }


def _round(x: float | None, digits: int) -> float | None:
    return None if x is None or np.isnan(x) else round(float(x), digits)


def _check(jobs: pd.DataFrame, candidate: float, large: float, dominance: float, top: int) -> None:
    missing = [c for c in NEEDED if c not in jobs.columns]
    if missing:
        raise UsageError(f"flurry detection needs the job columns {', '.join(missing)}")
    number("candidate", candidate, 0, low_open=True)  # multiples of the average total
    number("large", large, 0, low_open=True)
    number("dominance", dominance, 0, 1, low_open=True, high_open=True)  # a share of the jobs
    whole("top", top, 0, MAX_COUNT)  # users shown


def _frame(jobs: pd.DataFrame) -> pd.DataFrame:
    """Per job what the counting needs; run is known when not negative."""
    submit = jobs["submit"].to_numpy(dtype=np.float64)
    run = jobs["run"].to_numpy(dtype=np.float64)
    procs = job_processors(jobs)
    known = submit != -1
    return pd.DataFrame({
        "job": jobs["job"].to_numpy(dtype=np.int64),
        "user": jobs["user_id"].to_numpy(dtype=np.int64),
        "procs": procs,
        "run": np.where(run >= 0, run, np.nan),
        # processor-seconds as the catalog's utilization counts them
        "ps": np.where((run > 0) & ~np.isnan(procs), run * procs, 0.0),
        "known": known,
        "week": np.where(known, np.floor(submit / WEEK), 0).astype(np.int64),
        "day": np.where(known, np.floor(submit / DAY), 0).astype(np.int64),
    })


def weekly_counts(jobs: pd.DataFrame, top: int = 5) -> pd.DataFrame:
    """Jobs per week of the submit clock, every week from the first to the
    last with jobs (empty ones too), split into the `top` users, ranked by
    their largest weekly count, and everyone else ("others", unknown users
    included). Columns: week, jobs, "user U"..., others."""
    f = _frame(jobs)
    f = f[f.known]
    if f.empty:
        return pd.DataFrame({"week": np.zeros(0, np.int64), "jobs": np.zeros(0, np.int64),
                             "others": np.zeros(0, np.int64)})
    first, last = int(f.week.min()), int(f.week.max())
    weeks = np.arange(first, last + 1)
    out = {"week": weeks, "jobs": np.bincount(f.week - first, minlength=len(weeks))}
    counts = f.groupby(["user", "week"]).size().rename("n").reset_index()
    counts = counts[counts.user != -1]
    rank = counts.groupby("user").n.agg(["max", "sum"]).reset_index()
    rank = rank.sort_values(["max", "sum", "user"], ascending=[False, False, True]).head(top)
    rest = out["jobs"].copy()
    for user in rank.user:
        mine = counts[counts.user == user]
        n = np.bincount(mine.week - first, weights=mine.n, minlength=len(weeks)).astype(np.int64)
        out[f"user {user}"] = n
        rest -= n
    out["others"] = rest
    return pd.DataFrame(out)


def _span_counter(f: pd.DataFrame):
    """How many of a user's jobs (all of them, known submit or not) have job
    numbers in [a, b]: what `user=U and job>=A and job<=B` selects."""
    order = np.lexsort((f.job.to_numpy(), f.user.to_numpy()))
    users, numbers = f.user.to_numpy()[order], f.job.to_numpy()[order]

    def count(user: int, a: int, b: int) -> int:
        lo, hi = np.searchsorted(users, user, "left"), np.searchsorted(users, user, "right")
        mine = numbers[lo:hi]
        return int(np.searchsorted(mine, b, "right") - np.searchsorted(mine, a, "left"))

    return count


def _stats(f: pd.DataFrame, keys: list[str], picked: pd.DataFrame) -> pd.DataFrame:
    """Job span, median size and run, processor-seconds of the picked groups."""
    rows = f.merge(picked[keys], on=keys, how="inner")
    return rows.groupby(keys).agg(
        first_job=("job", "min"), last_job=("job", "max"), median_procs=("procs", "median"),
        median_run=("run", "median"), ps=("ps", "sum")).reset_index()


_WORDS = {"week": ("in week", "weekly"), "day": ("on day", "daily")}


def _reason(kind: str, large: bool, user: int, period: int, date: str | None,
            jobs: int, ratio: float) -> str:
    where, per = _WORDS[kind]
    when = f" ({date})" if date else ""
    what = "large flurry" if large else "flurry"
    return (f"{what} of user {user} {where} {period}{when}: {jobs:,} jobs, "
            f"{ratio:.1f} times the average {per} total")


def _periodic(f: pd.DataFrame, kind: str, length: int, candidate: float, large: float,
              total_ps: float, clock: LogClock, span) -> tuple[list[Candidate], pd.DataFrame, float, int, int]:
    """Candidates at one resolution, the (period, user) counts, the average
    total, the first period and how many periods the log spans."""
    k = f[f.known]
    if k.empty:
        return [], pd.DataFrame(columns=[kind, "user", "n"]), 0.0, 0, 0
    first, last = int(k[kind].min()), int(k[kind].max())
    spanned = last - first + 1
    counts = k.groupby([kind, "user"]).size().rename("n").reset_index()
    totals = k.groupby(kind).size()
    # n >= candidate * (jobs / spanned), compared without dividing
    picked = counts[(counts.user != -1) & (counts.n * spanned >= candidate * len(k))]
    average = len(k) / spanned
    out = []
    for r in _stats(k, [kind, "user"], picked).merge(picked, on=[kind, "user"]).itertuples(index=False):
        period, user, n = int(getattr(r, kind)), int(r.user), int(r.n)
        is_large = bool(n * spanned >= large * len(k))
        date = local_date(clock, period * length)
        a, b = int(r.first_job), int(r.last_job)
        out.append(Candidate(
            kind=kind, user=user, period=period, date=date, jobs=n, ratio=n / average,
            share=n / int(totals[period]), large=is_large, first_job=a, last_job=b,
            selected=span(user, a, b), predicate=f"user={user} and job>={a} and job<={b}",
            reason=_reason(kind, is_large, user, period, date, n, n / average),
            median_procs=_nan_none(r.median_procs), median_run=_nan_none(r.median_run),
            proc_seconds_share=r.ps / total_ps if total_ps > 0 else None))
    out.sort(key=lambda c: (-c.jobs, c.period, c.user))  # ratio descending: jobs descending
    return out, counts, average, first, spanned


def _nan_none(x: float) -> float | None:
    return None if pd.isna(x) else float(x)


def _dominant(f: pd.DataFrame, dominance: float, total_ps: float, span) -> list[Candidate]:
    """Users with more than `dominance` of all the log's jobs (submit known or not)."""
    counts = f[f.user != -1].groupby("user").size().rename("n").reset_index()
    picked = counts[counts.n > dominance * len(f)]
    out = []
    for r in _stats(f, ["user"], picked).merge(picked, on="user").itertuples(index=False):
        user, n = int(r.user), int(r.n)
        share = n / len(f)
        out.append(Candidate(
            kind="dominance", user=user, period=None, date=None, jobs=n, ratio=None, share=share,
            large=False, first_job=int(r.first_job), last_job=int(r.last_job),
            selected=span(user, int(r.first_job), int(r.last_job)), predicate=f"user={user}",
            reason=f"user {user} submitted {share:.1%} of the log's jobs",
            median_procs=_nan_none(r.median_procs), median_run=_nan_none(r.median_run),
            proc_seconds_share=r.ps / total_ps if total_ps > 0 else None))
    out.sort(key=lambda c: (-c.jobs, c.user))
    return out


def _top_users(candidates: list[Candidate], counts: dict[str, pd.DataFrame], top: int,
               clock: LogClock) -> list[TopUsers]:
    out = []
    periods = sorted({(c.kind, c.period) for c in candidates if c.period is not None},
                     key=lambda kp: (kp[0] != "week", kp[1]))
    for kind, period in periods:
        c = counts[kind]
        here = c[c[kind] == period]
        total = int(here.n.sum())
        best = here[here.user != -1].sort_values(["n", "user"], ascending=[False, True]).head(top)
        length = WEEK if kind == "week" else DAY
        out.append(TopUsers(kind, int(period), local_date(clock, period * length), total,
                            tuple((int(u), int(n), n / total) for u, n in zip(best.user, best.n))))
    return out


def flurries(jobs: pd.DataFrame, candidate: float = 1.0, large: float = 5.0,
             dominance: float = 0.25, top: int = 3, unix_start_time: int | None = None,
             tz: str | None = None) -> FlurryReport:
    """Flurry candidates of one log (its jobs as `log_query` returns them).

    Weeks and days follow the log's submit clock (week 0 starts at submit 0).
    The average weekly total is the jobs with a known submit time over the
    number of weeks from the first to the last week with jobs, inclusive,
    empty weeks counted; the daily average likewise. A user-week with at least
    `candidate` times the average is a candidate, with `large` times a large
    flurry; the same per day. A user with more than `dominance` of all the
    log's jobs is a dominance candidate. Unknown users (-1) count in the
    totals but are never candidates. Job size is the allocated processors,
    else the requested ones.
    """
    _check(jobs, candidate, large, dominance, top)
    clock = log_clock(unix_start_time, tz)
    f = _frame(jobs)
    total_ps = float(f.ps.sum())
    span = _span_counter(f)
    weekly, week_counts, week_avg, first_week, weeks = _periodic(
        f, "week", WEEK, candidate, large, total_ps, clock, span)
    daily, day_counts, day_avg, first_day, days = _periodic(
        f, "day", DAY, candidate, large, total_ps, clock, span)
    candidates = weekly + daily + _dominant(f, dominance, total_ps, span)
    return FlurryReport(
        jobs=len(f), unknown_submit=int((~f.known).sum()),
        first_week=first_week, weeks=weeks, weekly_average=week_avg,
        first_day=first_day, days=days, daily_average=day_avg,
        thresholds={"candidate": candidate, "large": large, "dominance": dominance, "top": top},
        candidates=candidates,
        top_users=_top_users(candidates, {"week": week_counts, "day": day_counts}, top, clock),
        weekly=weekly_counts(jobs, top), clock=clock)
