"""Capacity enforcement (cleaning.md section 4): when running jobs hold more
processors than the machine has, which jobs to delete so that they never do.

A job holds p processors (procs, else req_procs, else it is ignored) over
[submit + wait, submit + wait + run) when submit and wait are known and
run > 0, exactly as the quality report's `usage_steps` view counts them; all
events of one instant are summed before usage is read. An exception is a start
instant where usage exceeds the capacity; the jobs running then form a clique.
Deleting a job only lowers usage, so exceptions that share no job are solved
apart, one 0/1 integer program per component (scipy's `milp`, HiGHS).
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Iterator

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from ..errors import UsageError
from ..ranges import MAX_COUNT, MAX_PROCESSORS, MAX_WORKERS, number, whole
from .load import local_time, log_clock, processors

DAY = 86400
# Above this many nonzeros HiGHS's presolve takes minutes and ignores the time
# limit (RICC's largest component: 6.2 M nonzeros, 190 s); the solver then
# starts from the model as it is.
PRESOLVE_MAX_NONZEROS = 2_000_000
MAX_HELD = 2**40  # processors one job is counted as holding, at the most
OBJECTIVES = {"L": "jobs", "S": "processor-seconds"}
_GOALS = {"L": "minimize deleted jobs", "S": "minimize deleted processor-seconds"}


# -- who holds processors, and when -------------------------------------------

@dataclass(frozen=True, eq=False)
class _Held:
    """The jobs that hold processors, in line order."""

    line_no: np.ndarray
    job: np.ndarray
    p: np.ndarray  # processors, int64
    start: np.ndarray
    end: np.ndarray  # with the slack taken off
    run: np.ndarray  # the true run time
    log_jobs: int
    log_processor_seconds: float


def _check(capacity: int, slack: float) -> tuple[int, float]:
    return whole("capacity", capacity, 1, MAX_PROCESSORS), number("slack", slack, 0)


def _held(jobs: pd.DataFrame, slack: float) -> _Held:
    missing = {"line_no", "job", "submit", "wait", "run", "procs", "req_procs"} - set(jobs.columns)
    if missing:
        raise UsageError(f"jobs lack the column(s) {', '.join(sorted(missing))}")
    jobs = jobs.sort_values("line_no", kind="stable")
    # (counts beyond MAX_HELD, a thousand times any machine, are counted as
    # MAX_HELD: usage sums then stay exact and inside int64)
    p = np.minimum(np.nan_to_num(processors(jobs), nan=0.0), MAX_HELD).astype(np.int64)
    submit = jobs["submit"].to_numpy(np.float64)
    wait = jobs["wait"].to_numpy(np.float64)
    run = jobs["run"].to_numpy(np.float64)
    start = submit + wait
    end = (start + run) - slack  # the same sum as usage_steps; x - 0.0 == x
    keep = (submit != -1) & (wait != -1) & (run > 0) & (p > 0) & (end > start)
    counted = (run > 0) & (p > 0)
    return _Held(
        line_no=jobs["line_no"].to_numpy(np.int64)[keep],
        job=jobs["job"].to_numpy(np.int64)[keep],
        p=p[keep], start=start[keep], end=end[keep], run=run[keep],
        log_jobs=len(jobs),
        log_processor_seconds=float(np.sum(p[counted] * run[counted])),
    )


@dataclass(frozen=True, eq=False)
class _Profile:
    """Usage after every instant where some job starts or ends."""

    t: np.ndarray
    usage: np.ndarray  # int64
    starts: np.ndarray  # some job starts at t
    ends: np.ndarray  # some job ends at t


def _profile(held: _Held) -> _Profile:
    n = len(held.p)
    t, at = np.unique(np.concatenate([held.start, held.end]), return_inverse=True)
    # Sums of integers below 2**53 are exact in float64.
    delta = np.bincount(at, weights=np.concatenate([held.p, -held.p]).astype(np.float64),
                        minlength=len(t))
    return _Profile(
        t=t,
        usage=np.cumsum(delta.astype(np.int64)),
        starts=np.bincount(at[:n], minlength=len(t)) > 0,
        ends=np.bincount(at[n:], minlength=len(t)) > 0,
    )


# -- exceptions, cliques, components ------------------------------------------

@dataclass(frozen=True, eq=False)
class _Cliques:
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


def _cliques(held: _Held, prof: _Profile, capacity: int) -> _Cliques:
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
    return _Cliques(
        exc_t=exc_t, exc_usage=prof.usage[exc], exc_comp=exc_comp,
        t=t, need=prof.usage[maximal] - capacity, comp=comp, a=a, b=b,
        n_comp=int(comp[-1]) + 1 if len(t) else 0,
    )


def _component_table(held: _Held, cl: _Cliques, capacity: int) -> pd.DataFrame:
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

def _plain(value):
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


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict("records")]


@dataclass(frozen=True, eq=False)
class CapacityReport:
    """Utilization exceptions of one log against a capacity; reported whether
    or not any job is deleted. Times are submit-clock seconds."""

    capacity: int
    slack: float
    jobs_counted: int  # jobs holding processors (known start and run > 0)
    exceptions: int
    worst_excess: int
    worst_at: float | None
    ceiling: int
    ceiling_share: float
    components: pd.DataFrame

    def as_dict(self) -> dict:
        out = {k: _plain(getattr(self, k)) for k in (
            "capacity", "slack", "jobs_counted", "exceptions", "worst_excess", "worst_at",
            "ceiling", "ceiling_share")}
        out["components"] = _records(self.components)
        return out


def _report(held: _Held, prof: _Profile, cl: _Cliques, capacity: int, slack: float) -> CapacityReport:
    ceiling = int(prof.usage.max()) if len(prof.usage) else 0
    exceptions = len(cl.exc_t)
    return CapacityReport(
        capacity=int(capacity), slack=float(slack), jobs_counted=len(held.p),
        exceptions=exceptions,
        worst_excess=max(ceiling - int(capacity), 0),
        worst_at=float(prof.t[np.argmax(prof.usage)]) if exceptions else None,
        ceiling=ceiling, ceiling_share=ceiling / capacity,
        components=_component_table(held, cl, capacity),
    )


def capacity_report(jobs: pd.DataFrame, capacity: int, slack: float = 0.0) -> CapacityReport:
    """Exceptions (start instants where usage exceeds `capacity`), the worst
    excess and when, the observed ceiling (far below the capacity it suggests a
    wrong machine size) and the independent components of exceptions.

    `slack` (seconds) ignores overlaps shorter than it, to tolerate timing slop:
    every job ends `slack` seconds early, so two jobs overlap iff their true
    overlap exceeds `slack`, and a job that runs `slack` seconds or less stops
    counting. With slack 0 the exceptions are those of the quality report."""
    capacity, slack = _check(capacity, slack)
    held = _held(jobs, slack)
    prof = _profile(held)
    return _report(held, prof, _cliques(held, prof, capacity), capacity, slack)


def daily_utilization(jobs: pd.DataFrame, capacity: int, slack: float = 0.0) -> pd.DataFrame:
    """Per day (floor(t / 86400) of the submit clock) from the first event to
    the last: the lowest and highest usage held at any moment of the day, in
    processors and as a share of `capacity`. A day is entered at the level the
    day before left it."""
    capacity, slack = _check(capacity, slack)
    prof = _profile(_held(jobs, slack))
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


# -- the integer programs -----------------------------------------------------

@dataclass(frozen=True, eq=False)
class _Problem:
    """One component: its jobs (indices into _Held, in line order), their local
    clique ranges, and what each clique must free."""

    index: int
    jobs: np.ndarray
    a: np.ndarray
    b: np.ndarray
    need: np.ndarray
    p: np.ndarray
    processor_seconds: np.ndarray

    def matrix(self) -> sp.csc_array:
        """Row k: the jobs running in clique k. A coefficient is capped at the
        clique's need (a 0/1 variable loses nothing by it, and the relaxation
        gets tighter)."""
        counts = self.b - self.a
        indptr = np.r_[0, np.cumsum(counts)]
        rows = np.arange(indptr[-1]) - np.repeat(indptr[:-1] - self.a, counts)
        data = np.minimum(np.repeat(self.p, counts), self.need[rows]).astype(np.float64)
        return sp.csc_array((data, rows.astype(np.int32), indptr), shape=(len(self.need), len(self.p)))

    def cost(self, objective: str) -> np.ndarray:
        """S: processor-seconds. L: one per job, plus the job's share of the
        component's processor-seconds; the shares of any set of jobs add up
        to less than one, so fewer jobs always win and, among as few, fewer
        processor-seconds."""
        if objective == "S":
            return self.processor_seconds
        return 1 + self.processor_seconds / (self.processor_seconds.sum() + 1)

    def freed(self, x: np.ndarray) -> np.ndarray:
        """Processors freed in each clique by deleting the jobs where x."""
        diff = np.zeros(len(self.need) + 1, np.int64)
        np.add.at(diff, self.a[x], self.p[x])
        np.add.at(diff, self.b[x], -self.p[x])
        return np.cumsum(diff)[:-1]

    def feasible(self, x: np.ndarray) -> bool:
        return bool(np.all(self.freed(x) >= self.need))


def _problems(held: _Held, cl: _Cliques) -> list[_Problem]:
    involved = np.flatnonzero(cl.b > cl.a)
    involved = involved[np.argsort(cl.comp[cl.a[involved]], kind="stable")]  # line order within each
    cut = np.searchsorted(cl.comp[cl.a[involved]], np.arange(cl.n_comp + 1), "left")
    first = np.searchsorted(cl.comp, np.arange(cl.n_comp + 1), "left")
    out = []
    for c in range(cl.n_comp):
        jobs = involved[cut[c]:cut[c + 1]]
        k0, k1 = first[c], first[c + 1]
        out.append(_Problem(
            index=c, jobs=jobs, a=cl.a[jobs] - k0, b=cl.b[jobs] - k0, need=cl.need[k0:k1],
            p=held.p[jobs], processor_seconds=held.p[jobs] * held.run[jobs]))
    return out


def _greedy(prob: _Problem, objective: str, matrix: sp.csc_array) -> np.ndarray:
    """A feasible deletion: in each clique still over capacity, in time order,
    delete the kept jobs that free processors most cheaply (L: the largest; S:
    the shortest, whose processor-seconds per processor are fewest) until it
    holds; then keep again, costliest first, every deleted job not needed."""
    n = len(prob.p)
    idx = np.arange(n)
    if objective == "L":
        order = np.lexsort((idx, prob.processor_seconds, -prob.p))
    else:
        order = np.lexsort((idx, -prob.p, prob.processor_seconds / prob.p))
    # Rows in preference order: column r of `preferred` is job order[r].
    preferred = matrix[:, order].tocsr()
    preferred.sort_indices()
    x = np.zeros(n, bool)
    freed = 0
    leaving = np.zeros(len(prob.need) + 1, np.int64)
    for k in range(len(prob.need)):
        freed += leaving[k]
        short = prob.need[k] - freed
        if short <= 0:
            continue
        cand = order[preferred.indices[preferred.indptr[k]:preferred.indptr[k + 1]]]
        cand = cand[~x[cand]]
        take = cand[: int(np.searchsorted(np.cumsum(prob.p[cand]), short, "left")) + 1]
        x[take] = True
        freed += int(prob.p[take].sum())
        np.add.at(leaving, prob.b[take], -prob.p[take])
    surplus = prob.freed(x) - prob.need
    cost = prob.cost(objective)
    for j in sorted(np.flatnonzero(x), key=lambda j: (-cost[j], -j)):
        a, b = prob.a[j], prob.b[j]
        if surplus[a:b].min() >= prob.p[j]:
            x[j] = False
            surplus[a:b] -= prob.p[j]
    return x


def _undominated(prob: _Problem, matrix: sp.csc_array, cost: np.ndarray, bound: float) -> np.ndarray:
    """The jobs that may belong to a deletion cheaper than `bound`.

    Job k dominates job j when it runs in every clique j runs in, with at least
    as many processors, at no higher cost (of jobs alike in all three, the one
    with fewer processor-seconds, then the earlier one).
    Swapping j for a dominator that is kept costs nothing more, so some optimal
    deletion holds every dominator of each job it holds; a job whose cost plus
    its dominators' exceeds `bound` is in none cheaper than `bound`. Every
    dominator of j runs in j's first clique, so that row is all there is to
    search."""
    n = len(prob.p)
    rows = matrix.tocsr()
    rows.sort_indices()
    rank = np.empty(n, np.int64)
    rank[np.lexsort((np.arange(n), prob.processor_seconds))] = np.arange(n)
    dominated_cost = np.zeros(n)
    by_first = np.argsort(prob.a, kind="stable")
    cut = np.searchsorted(prob.a[by_first], np.arange(len(prob.need) + 1), "left")
    for k in np.flatnonzero(np.diff(cut)):
        js = by_first[cut[k]:cut[k + 1]]
        ks = rows.indices[rows.indptr[k]:rows.indptr[k + 1]]
        b, p, c = prob.b[ks][None, :], prob.p[ks][None, :], cost[ks][None, :]
        bj, pj, cj = prob.b[js][:, None], prob.p[js][:, None], cost[js][:, None]
        same = (prob.a[ks][None, :] == k) & (b == bj) & (p == pj) & (c == cj)
        dom = (b >= bj) & (p >= pj) & (c <= cj) & (~same | (rank[ks][None, :] < rank[js][:, None]))
        dominated_cost[js] = (dom * c).sum(axis=1)
    # A relative margin keeps rounding in the sums from fixing a job of an
    # optimal deletion that costs exactly `bound`.
    return cost + dominated_cost <= bound * (1 + 1e-9)


def _restricted(prob: _Problem, keep: np.ndarray) -> _Problem:
    """The program over the kept jobs only. Neighbouring cliques that hold the
    same kept jobs become one, needing the larger of their needs."""
    jobs = np.flatnonzero(keep)
    a, b = prob.a[jobs], prob.b[jobs]
    changes = np.zeros(len(prob.need) + 1, bool)
    changes[a] = True
    changes[b] = True
    group = np.r_[0, np.cumsum(changes[1:len(prob.need)])]
    first = np.flatnonzero(np.r_[True, changes[1:len(prob.need)]])
    return _Problem(index=prob.index, jobs=jobs, a=group[a], b=group[b - 1] + 1,
                    need=np.maximum.reduceat(prob.need, first), p=prob.p[jobs],
                    processor_seconds=prob.processor_seconds[jobs])


@dataclass(frozen=True, eq=False)
class _Solution:
    x: np.ndarray
    # 'optimal'; the solver's best when a limit stopped it: 'time limit', 'node limit',
    # 'stopped'; 'greedy' when the solver found nothing better; for L, 'tie-break limit'
    # when the fewest jobs are proven but the processor-seconds among them are not.
    method: str


@dataclass(frozen=True, eq=False)
class _Outcome:
    x: np.ndarray  # the solver's deletion or the incumbent, whichever costs less
    proven: bool  # no deletion over the jobs searched costs less
    improved: bool  # x is the solver's
    stop: str  # what stopped the solver, when not proven


def _program(prob: _Problem, objective: str, keep: np.ndarray, incumbent: np.ndarray,
             time_limit: float, node_limit: int | None, most: int | None = None) -> _Outcome:
    """HiGHS over the kept jobs, at most `most` of them deleted. The kept jobs
    hold every deletion cheaper than the incumbent, so when they hold none
    the incumbent is optimal."""
    cost = prob.cost(objective)
    sub = _restricted(prob, keep)
    if len(sub.p) == 0 or np.any(sub.freed(np.ones(len(sub.p), bool)) < sub.need):
        return _Outcome(incumbent, True, False, "")
    a = sub.matrix()
    lower, upper = sub.need.astype(np.float64), np.full(len(sub.need), np.inf)
    if most is not None:
        a = sp.vstack([a, sp.csc_array(np.ones((1, len(sub.p))))], format="csc")
        lower, upper = np.r_[lower, 0.0], np.r_[upper, most]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = milp(sub.cost(objective), integrality=np.ones(len(sub.p)), bounds=Bounds(0, 1),
                   constraints=LinearConstraint(a, lower, upper),
                   options={"time_limit": float(time_limit), "node_limit": node_limit,
                            "mip_rel_gap": 0.0, "presolve": a.nnz <= PRESOLVE_MAX_NONZEROS})
    x = None
    if res.x is not None:
        x = np.zeros(len(prob.p), bool)
        x[sub.jobs[res.x > 0.5]] = True
        if not prob.feasible(x) or float(cost[x].sum()) > float(cost[incumbent].sum()):
            x = None
    proven = res.status == 0 or (res.status == 2 and x is None)  # optimal, or nothing cheaper
    stop = "time limit" if res.status == 1 else "node limit" if node_limit is not None else "stopped"
    return _Outcome(incumbent if x is None else x, proven, x is not None, "" if proven else stop)


def _solve(prob: _Problem, objective: str, time_limit: float, node_limit: int | None) -> _Solution:
    """The deletion of least cost: a greedy one bounds it, jobs that cannot
    beat the bound are left out, and HiGHS solves the rest.

    L takes two stages within its time limit: the fewest jobs, over the jobs
    that dominance by job count leaves; then, that many jobs at most, the
    fewest processor-seconds over every job that only a costlier one could
    replace (skipped when the first stage already searched them all)."""
    began = time.monotonic()
    matrix = prob.matrix()
    cost = prob.cost(objective)
    greedy = _greedy(prob, objective, matrix)
    if objective == "S":
        keep = _undominated(prob, matrix, cost, float(cost[greedy].sum()))
        out = _program(prob, "S", keep, greedy, time_limit, node_limit)
        return _Solution(out.x, "optimal" if out.proven else out.stop if out.improved else "greedy")
    keep = _undominated(prob, matrix, np.ones(len(prob.p)), float(greedy.sum()))
    first = _program(prob, "L", keep, greedy, time_limit, node_limit)
    if not first.proven:
        return _Solution(first.x, first.stop if first.improved else "greedy")
    wider = _undominated(prob, matrix, cost, float(cost[first.x].sum()))
    if not np.any(wider & ~keep):
        return _Solution(first.x, "optimal")
    left = time_limit - (time.monotonic() - began)
    if left <= 0:
        return _Solution(first.x, "tie-break limit")
    second = _program(prob, "L", wider, first.x, left, node_limit, most=int(first.x.sum()))
    return _Solution(second.x, "optimal" if second.proven else "tie-break limit")


@contextlib.contextmanager
def _quiet_stdout() -> Iterator[None]:
    """HiGHS 1.12 prints a stray debugging line on the C-level standard output
    now and then; keep it out of what wla writes there (tables, JSON)."""
    try:
        libc = ctypes.CDLL(None)
        sys.stdout.flush()
        saved = os.dup(1)
    except (AttributeError, OSError, ValueError):  # no C library to flush, or no fd 1
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        libc.fflush(None)
        os.dup2(saved, 1)
        os.close(saved)


# -- the choice ---------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class CapacityChoice:
    """The capacity rule's decision for one log: both candidate deletions, the
    one chosen, and whether it is applied. Shares are fractions of the whole
    log (jobs; processor-seconds of jobs with known run and processors)."""

    capacity: int
    slack: float
    threshold: float
    applied: bool
    chosen: str | None  # 'L', 'S', or None when there is nothing to delete
    shares: dict  # LJ, LU, SJ, SU
    deleted: dict  # L, S: jobs each would delete
    components: pd.DataFrame
    deletions: pd.DataFrame  # line_no, job, component, objective, reason
    message: str

    @property
    def optimal(self) -> bool:
        """Every component's two programs were solved to proven optimality."""
        c = self.components
        return bool(c["optimal_L"].all() and c["optimal_S"].all())

    def as_dict(self) -> dict:
        out = {k: _plain(getattr(self, k)) for k in (
            "capacity", "slack", "threshold", "applied", "chosen", "message")}
        out["optimal"] = self.optimal
        out["shares"] = {k: _plain(v) for k, v in self.shares.items()}
        out["deleted"] = {k: _plain(v) for k, v in self.deleted.items()}
        out["components"] = _records(self.components)
        out["deletions"] = _records(self.deletions)
        return out


def _pct(share: float) -> str:
    return f"{100 * share:.3g}%"


def _when(t: float, unix_start_time: int | None, tz: str | None) -> str:
    when = local_time(log_clock(unix_start_time, tz), t)
    return f"t={t:,.0f} s" if when is None else when.strftime("%Y-%m-%d %H:%M:%S %Z")


def _shares_text(shares: dict) -> str:
    return (f"L: {_pct(shares['LJ'])} of jobs, {_pct(shares['LU'])} of utilization; "
            f"S: {_pct(shares['SJ'])} of jobs, {_pct(shares['SU'])} of utilization")


def _solve_all(problems: list[_Problem], time_limit: float, node_limit: int | None,
               workers: int | None) -> dict[tuple[int, str], _Solution]:
    """Both programs of every component on a pool of threads (HiGHS releases
    the GIL): the S programs first, which take longest, each objective's
    largest first, so that the two programs of one large component seldom
    hold memory at once. Results are keyed, so their order is fixed."""
    if workers is None:
        workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    tasks = sorted(((prob, obj) for prob in problems for obj in "LS"),
                   key=lambda t: (t[1] != "S", -int(np.sum(t[0].b - t[0].a)), t[0].index))
    with _quiet_stdout(), ThreadPoolExecutor(max(1, workers or 1)) as pool:
        found = pool.map(lambda t: _solve(t[0], t[1], time_limit, node_limit), tasks)
        return {(prob.index, obj): sol for (prob, obj), sol in zip(tasks, found)}


def _shares(held: _Held, problems: list[_Problem], solved: dict) -> tuple[dict, dict]:
    """LJ, LU, SJ, SU as fractions of the log, and the jobs each would delete."""
    shares, deleted = {}, {}
    for obj in "LS":
        rows = np.concatenate([p.jobs[solved[p.index, obj].x] for p in problems] or [np.zeros(0, np.int64)])
        deleted[obj] = len(rows)
        shares[obj + "J"] = len(rows) / held.log_jobs if held.log_jobs else 0.0
        ps = float(np.sum(held.p[rows] * held.run[rows]))
        shares[obj + "U"] = ps / held.log_processor_seconds if held.log_processor_seconds else 0.0
    return shares, deleted


def _reason(row, n_comp: int, capacity: int, chosen: str, shares: dict, method: str,
            time_limit: float, node_limit: int | None, unix_start_time: int | None, tz: str | None) -> str:
    note = {"optimal": "",
            "time limit": f"; the best deletion found within the {time_limit:g} s time limit",
            "node limit": f"; the best deletion found within the {node_limit} node limit",
            "stopped": "; the best deletion found before the solver stopped",
            "tie-break limit": ("; the fewest jobs, but a limit stopped the search for the fewest "
                                "processor-seconds among them"),
            "greedy": "; a greedy deletion (the solver found no better one within its limits)"}[method]
    n = int(row.exceptions)
    return (f"capacity: component {row.component} of {n_comp} ({n:,} exception{'s' if n != 1 else ''}, "
            f"worst {row.worst_excess + capacity:,} processors in use on {capacity:,} at "
            f"{_when(float(row.worst_at), unix_start_time, tz)}); deleted to {_GOALS[chosen]} "
            f"({_shares_text(shares)}){note}")


def capacity_deletions(jobs: pd.DataFrame, capacity: int, slack: float = 0.0,
                       threshold: float = 0.05, time_limit: float = 5.0, *,
                       node_limit: int | None = None, unix_start_time: int | None = None,
                       tz: str | None = None, workers: int | None = None) -> CapacityChoice:
    """The jobs to delete so that usage never exceeds `capacity`.

    Per component, two 0/1 programs (x_j = 1 deletes job j; per maximal clique,
    processors freed >= usage - capacity): L minimizes deleted jobs, S deleted
    processor-seconds (true run time even with slack). Many deletions have
    the fewest jobs, and their utilization differs widely; L takes the one
    with the fewest processor-seconds among them (method_L 'tie-break limit'
    when a limit stopped that search). L is chosen if max(LJ, LU) <= max(SJ, SU),
    else S; it is applied unless its job or utilization share exceeds
    `threshold`. `slack` is as in capacity_report; `unix_start_time` and `tz`
    only turn times in the reasons into dates.

    Each program runs under `time_limit` seconds (and `node_limit`
    branch-and-bound nodes if given); a program stopped by a limit keeps the
    best deletion found (the solver's or a greedy one, whichever costs less)
    and its component says so (optimal_L/optimal_S false, method_L/method_S).
    The same input gives the same deletions unless a time limit stops a
    program: where it stops depends on the machine. A node limit stops it at
    the same place every time, so for reproducible deletions on a hard log set
    `node_limit` with a time limit that does not bind. Components are solved
    on `workers` threads (default: the cores this process may use)."""
    capacity, slack = _check(capacity, slack)
    threshold = number("threshold", threshold, 0, 1)
    time_limit = number("time_limit", time_limit, 0, low_open=True)
    if node_limit is not None:  # HiGHS counts nodes in a 32-bit integer
        node_limit = whole("node_limit", node_limit, 1, MAX_COUNT)
    if workers is not None:
        workers = whole("workers", workers, 1, MAX_WORKERS)
    held = _held(jobs, slack)
    prof = _profile(held)
    cl = _cliques(held, prof, capacity)
    table = _component_table(held, cl, capacity)
    problems = _problems(held, cl)
    solved = _solve_all(problems, time_limit, node_limit, workers)
    shares, deleted = _shares(held, problems, solved)
    for obj in "LS":
        table[f"deleted_{obj}"] = np.array([solved[c, obj].x.sum() for c in range(cl.n_comp)], np.int64)
        table[f"optimal_{obj}"] = np.array([solved[c, obj].method == "optimal" for c in range(cl.n_comp)], bool)
        table[f"method_{obj}"] = pd.Series([solved[c, obj].method for c in range(cl.n_comp)], dtype=object)
    table = table[[*table.columns[:7], "deleted_L", "deleted_S", "optimal_L", "optimal_S",
                   "method_L", "method_S"]]
    common = dict(capacity=int(capacity), slack=float(slack), threshold=float(threshold),
                  shares=shares, deleted=deleted, components=table)
    none = pd.DataFrame({"line_no": pd.Series(dtype=np.int64), "job": pd.Series(dtype=np.int64),
                         "component": pd.Series(dtype=np.int64), "objective": pd.Series(dtype=object),
                         "reason": pd.Series(dtype=object)})
    if not cl.n_comp:
        return CapacityChoice(applied=False, chosen=None, deletions=none, **common,
                              message=f"capacity: usage never exceeds {capacity:,} processors; nothing to delete")
    worst = {obj: max(shares[obj + "J"], shares[obj + "U"]) for obj in "LS"}
    chosen = "L" if worst["L"] <= worst["S"] else "S"
    job_share, use_share = shares[chosen + "J"], shares[chosen + "U"]
    if job_share > threshold or use_share > threshold:
        return CapacityChoice(
            applied=False, chosen=chosen, deletions=none, **common,
            message=(f"capacity: not applied: the chosen deletion ({chosen}, {_GOALS[chosen]}) would remove "
                     f"{deleted[chosen]:,} jobs, {_pct(job_share)} of jobs and {_pct(use_share)} of "
                     f"utilization, more than the {_pct(threshold)} threshold ({_shares_text(shares)})"))

    parts = []
    for prob, row in zip(problems, table.itertuples(index=False)):
        rows = prob.jobs[solved[prob.index, chosen].x]
        reason = _reason(row, cl.n_comp, capacity, chosen, shares, solved[prob.index, chosen].method,
                         time_limit, node_limit, unix_start_time, tz)
        parts.append(pd.DataFrame({"line_no": held.line_no[rows], "job": held.job[rows],
                                   "component": np.int64(row.component), "objective": OBJECTIVES[chosen],
                                   "reason": reason}))
    deletions = pd.concat(parts, ignore_index=True).sort_values("line_no", kind="stable")
    deletions = deletions.reset_index(drop=True)
    n_exc = len(cl.exc_t)
    return CapacityChoice(
        applied=True, chosen=chosen, deletions=deletions, **common,
        message=(f"capacity: deleting {len(deletions):,} jobs ({chosen}, {_GOALS[chosen]}) resolves "
                 f"{n_exc:,} exception{'s' if n_exc != 1 else ''} in {cl.n_comp:,} component"
                 f"{'s' if cl.n_comp != 1 else ''} ({_shares_text(shares)})"))
