"""Capacity (docs/pages/definitions/cleaning.md section 4), the profile: when running jobs hold more
processors than the machine has, and how those moments hang together.

A job holds p processors (wla.archive.kernel.processors: allocated, else requested,
else it is ignored) over [submit + wait, submit + wait + run) when submit and
wait are known and run > 0, exactly as the quality report's `usage_steps`
view counts them; all events of one instant are summed before usage is read.
An exception is a start instant where usage exceeds the capacity; the jobs
running then form a clique. Deleting a job only lowers usage, so exceptions
that share no job are independent: they fall into components, each solved
apart (programs.py) before the rule chooses (choice.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from wla.archive.kernel.errors import UsageError

from ...kernel.clock import DAY
from ...kernel.processors import job_processors
from ...kernel.ranges import MAX_PROCESSORS, number, whole

MAX_HELD = 2**40  # processors one job is counted as holding, at the most


# -- who holds processors, and when -------------------------------------------

@dataclass(frozen=True, eq=False)
class Held:
    """The jobs that hold processors, in line order."""

    line_no: np.ndarray
    job: np.ndarray
    p: np.ndarray  # processors, int64
    start: np.ndarray
    end: np.ndarray  # with the slack taken off
    run: np.ndarray  # the true run time
    log_jobs: int
    log_processor_seconds: float


def check_capacity(capacity: int, slack: float) -> tuple[int, float]:
    """The capacity and slack, refused outside their ranges."""
    return whole("capacity", capacity, 1, MAX_PROCESSORS), number("slack", slack, 0)


def held_jobs(jobs: pd.DataFrame, slack: float) -> Held:
    """The jobs of a log (as log_query returns them) that hold processors."""
    missing = {"line_no", "job", "submit", "wait", "run", "procs", "req_procs"} - set(jobs.columns)
    if missing:
        raise UsageError(f"jobs lack the column(s) {', '.join(sorted(missing))}")
    jobs = jobs.sort_values("line_no", kind="stable")
    # (counts beyond MAX_HELD, a thousand times any machine, are counted as
    # MAX_HELD: usage sums then stay exact and inside int64)
    p = np.minimum(np.nan_to_num(job_processors(jobs), nan=0.0), MAX_HELD).astype(np.int64)
    submit = jobs["submit"].to_numpy(np.float64)
    wait = jobs["wait"].to_numpy(np.float64)
    run = jobs["run"].to_numpy(np.float64)
    start = submit + wait
    end = (start + run) - slack  # the same sum as usage_steps; x - 0.0 == x
    keep = (submit != -1) & (wait != -1) & (run > 0) & (p > 0) & (end > start)
    counted = (run > 0) & (p > 0)
    return Held(
        line_no=jobs["line_no"].to_numpy(np.int64)[keep],
        job=jobs["job"].to_numpy(np.int64)[keep],
        p=p[keep], start=start[keep], end=end[keep], run=run[keep],
        log_jobs=len(jobs),
        log_processor_seconds=float(np.sum(p[counted] * run[counted])),
    )


@dataclass(frozen=True, eq=False)
class Profile:
    """Usage after every instant where some job starts or ends."""

    t: np.ndarray
    usage: np.ndarray  # int64
    starts: np.ndarray  # some job starts at t
    ends: np.ndarray  # some job ends at t


def usage_profile(held: Held) -> Profile:
    """Usage after each instant: all events of one instant summed first."""
    n = len(held.p)
    t, at = np.unique(np.concatenate([held.start, held.end]), return_inverse=True)
    # Sums of integers below 2**53 are exact in float64.
    delta = np.bincount(at, weights=np.concatenate([held.p, -held.p]).astype(np.float64),
                        minlength=len(t))
    return Profile(
        t=t,
        usage=np.cumsum(delta.astype(np.int64)),
        starts=np.bincount(at[:n], minlength=len(t)) > 0,
        ends=np.bincount(at[n:], minlength=len(t)) > 0,
    )


# -- exceptions, cliques, components ------------------------------------------

@dataclass(frozen=True, eq=False)
class Cliques:
    """The exceptions and the maximal cliques among them, grouped in components.

    Only maximal cliques need a constraint: the jobs running at a start instant
    followed by instants with starts only are a subset of those running at the
    last of those instants. So the cliques kept are the exception instants
    whose next instant has an end; each is a different set of jobs."""

    exc_t: np.ndarray  # every exception instant
    exc_usage: np.ndarray
    exc_comp: np.ndarray  # 0-based component of each exception
    t: np.ndarray  # maximal exception cliques
    need: np.ndarray  # processors to free in each: usage - capacity
    comp: np.ndarray  # component of each clique
    a: np.ndarray  # per held job: the cliques it is in are a..b-1
    b: np.ndarray
    n_comp: int


def find_cliques(held: Held, prof: Profile, capacity: int) -> Cliques:
    """The exceptions against `capacity`, their maximal cliques and components."""
    exc = prof.starts & (prof.usage > capacity)
    maximal = exc & np.r_[prof.ends[1:], False]
    t = prof.t[maximal]
    a = np.searchsorted(t, held.start, "left")
    b = np.searchsorted(t, held.end, "left")
    # Consecutive cliques k, k+1 share a job iff some job covers both; a job
    # shared by two cliques covers every clique between them, so linking
    # neighbours gives the components.
    spans = b - a >= 2
    cover = np.zeros(len(t) + 1, np.int64)
    np.add.at(cover, a[spans], 1)
    np.add.at(cover, b[spans] - 1, -1)
    linked = np.cumsum(cover)[: max(len(t) - 1, 0)] > 0
    comp = np.r_[0, np.cumsum(~linked)] if len(t) else np.zeros(0, np.int64)
    exc_t = prof.t[exc]
    # An exception's jobs are all running at the first maximal clique after it.
    exc_comp = comp[np.searchsorted(t, exc_t, "left")] if len(t) else np.zeros(0, np.int64)
    return Cliques(
        exc_t=exc_t, exc_usage=prof.usage[exc], exc_comp=exc_comp,
        t=t, need=prof.usage[maximal] - capacity, comp=comp, a=a, b=b,
        n_comp=int(comp[-1]) + 1 if len(t) else 0,
    )


def component_table(held: Held, cl: Cliques, capacity: int) -> pd.DataFrame:
    """One row per component: its exceptions, jobs, first and last, worst."""
    c = cl.exc_comp
    involved = cl.b > cl.a
    jobs_per = np.bincount(cl.comp[cl.a[involved]], minlength=cl.n_comp) if cl.n_comp else []
    frame = pd.DataFrame({"c": c, "t": cl.exc_t, "usage": cl.exc_usage})
    g = frame.groupby("c", sort=True)
    return pd.DataFrame({
        "component": np.arange(1, cl.n_comp + 1, dtype=np.int64),
        "exceptions": g.size().to_numpy(np.int64),
        "jobs": np.asarray(jobs_per, dtype=np.int64),
        "first_at": g["t"].min().to_numpy(np.float64),
        "last_at": g["t"].max().to_numpy(np.float64),
        "worst_excess": (g["usage"].max() - capacity).to_numpy(np.int64),
        # the first instant of the component's highest usage (exceptions are in time order)
        "worst_at": frame["t"].to_numpy(np.float64)[g["usage"].idxmax().to_numpy()],
    })


# -- the report ---------------------------------------------------------------

def plain(value):
    """A numpy scalar as the Python value JSON knows."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return None if np.isnan(value) else float(value)
    return value


def records(frame: pd.DataFrame) -> list[dict]:
    """A frame's rows as JSON-ready dicts."""
    return [{k: plain(v) for k, v in row.items()} for row in frame.to_dict("records")]


# A log whose jobs have no start time (every wait unknown) says nothing of how
# many processors were in use: no exception is not an all-clear there.
NO_STARTS = "capacity cannot be judged without start times (no job has a known wait)"


def starts_known(jobs: pd.DataFrame) -> bool:
    """Whether any job has a start time: a known submit and wait."""
    return bool(((jobs["submit"] != -1) & (jobs["wait"] != -1)).any())


@dataclass(frozen=True, eq=False)
class CapacityReport:
    """Utilization exceptions of one log against a capacity; reported whether
    or not any job is deleted. Times are submit-clock seconds. Without start
    times (`judged` false) the counts are None, not 0."""

    capacity: int
    slack: float
    jobs_counted: int  # jobs holding processors (known start and run > 0)
    exceptions: int | None
    worst_excess: int | None
    worst_at: float | None
    ceiling: int | None
    ceiling_share: float | None
    components: pd.DataFrame
    judged: bool = True

    def as_dict(self) -> dict:
        out = {k: plain(getattr(self, k)) for k in (
            "capacity", "slack", "judged", "jobs_counted", "exceptions", "worst_excess", "worst_at",
            "ceiling", "ceiling_share")}
        if not self.judged:
            out["why"] = NO_STARTS
        out["components"] = records(self.components)
        return out


def _report(held: Held, prof: Profile, cl: Cliques, capacity: int, slack: float,
            judged: bool = True) -> CapacityReport:
    ceiling = int(prof.usage.max()) if len(prof.usage) else 0
    exceptions = len(cl.exc_t)
    if not judged:
        return CapacityReport(capacity=int(capacity), slack=float(slack), jobs_counted=0, exceptions=None,
                              worst_excess=None, worst_at=None, ceiling=None, ceiling_share=None,
                              components=component_table(held, cl, capacity), judged=False)
    return CapacityReport(
        capacity=int(capacity), slack=float(slack), jobs_counted=len(held.p),
        exceptions=exceptions,
        worst_excess=max(ceiling - int(capacity), 0),
        worst_at=float(prof.t[np.argmax(prof.usage)]) if exceptions else None,
        ceiling=ceiling, ceiling_share=ceiling / capacity,
        components=component_table(held, cl, capacity),
    )


def capacity_report(jobs: pd.DataFrame, capacity: int, slack: float = 0.0) -> CapacityReport:
    """Exceptions (start instants where usage exceeds `capacity`), the worst
    excess and when, the observed ceiling (far below the capacity it suggests a
    wrong machine size) and the independent components of exceptions.

    `slack` (seconds) ignores overlaps shorter than it, to tolerate timing slop:
    every job ends `slack` seconds early, so two jobs overlap iff their true
    overlap exceeds `slack`, and a job that runs `slack` seconds or less stops
    counting. With slack 0 the exceptions are those of the quality report."""
    capacity, slack = check_capacity(capacity, slack)
    held = held_jobs(jobs, slack)
    prof = usage_profile(held)
    return _report(held, prof, find_cliques(held, prof, capacity), capacity, slack, starts_known(jobs))


def daily_utilization(jobs: pd.DataFrame, capacity: int, slack: float = 0.0) -> pd.DataFrame:
    """Per day (floor(t / DAY) of the submit clock) from the first event to
    the last: the lowest and highest usage held at any moment of the day, in
    processors and as a share of `capacity`. A day is entered at the level the
    day before left it."""
    capacity, slack = check_capacity(capacity, slack)
    prof = usage_profile(held_jobs(jobs, slack))
    if not len(prof.t):
        return pd.DataFrame({c: pd.Series(dtype=d) for c, d in (
            ("day", np.int64), ("min_usage", np.int64), ("max_usage", np.int64),
            ("min_share", np.float64), ("max_share", np.float64))})
    day = np.floor(prof.t / DAY).astype(np.int64)
    days = np.arange(day[0], day[-1] + 1)
    # Held at the day's first moment: the level after the last instant at or
    # before it (0 before the first event).
    before = np.searchsorted(prof.t, days * float(DAY), "right") - 1
    entry = np.where(before >= 0, prof.usage[np.maximum(before, 0)], 0)
    levels = pd.DataFrame({"day": np.r_[days, day], "usage": np.r_[entry, prof.usage]})
    g = levels.groupby("day", sort=True)["usage"].agg(["min", "max"])
    return pd.DataFrame({
        "day": g.index.to_numpy(np.int64),
        "min_usage": g["min"].to_numpy(np.int64),
        "max_usage": g["max"].to_numpy(np.int64),
        "min_share": g["min"].to_numpy(np.float64) / capacity,
        "max_share": g["max"].to_numpy(np.float64) / capacity,
    })

