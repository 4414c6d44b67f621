"""Capacity, the integer programs: per component of exceptions, the
deletion of least cost, for each objective (L: fewest jobs, then fewest
processor-seconds; S: fewest processor-seconds), by scipy's `milp` (HiGHS)
after a greedy bound and a dominance test have left out what cannot help.
"""
from __future__ import annotations

import os
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from .capacity import Cliques, Held
from .quiet import quiet_stdout

# Above this many nonzeros HiGHS's presolve takes minutes and ignores the time
# limit (RICC's largest component: 6.2 M nonzeros, 190 s); the solver then
# starts from the model as it is.
PRESOLVE_MAX_NONZEROS = 2_000_000


@dataclass(frozen=True, eq=False)
class Problem:
    """One component: its jobs (indices into Held, in line order), their local
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


def component_problems(held: Held, cl: Cliques) -> list[Problem]:
    involved = np.flatnonzero(cl.b > cl.a)
    involved = involved[np.argsort(cl.comp[cl.a[involved]], kind="stable")]  # line order within each
    cut = np.searchsorted(cl.comp[cl.a[involved]], np.arange(cl.n_comp + 1), "left")
    first = np.searchsorted(cl.comp, np.arange(cl.n_comp + 1), "left")
    out = []
    for c in range(cl.n_comp):
        jobs = involved[cut[c]:cut[c + 1]]
        k0, k1 = first[c], first[c + 1]
        out.append(Problem(
            index=c, jobs=jobs, a=cl.a[jobs] - k0, b=cl.b[jobs] - k0, need=cl.need[k0:k1],
            p=held.p[jobs], processor_seconds=held.p[jobs] * held.run[jobs]))
    return out


def _greedy(prob: Problem, objective: str, matrix: sp.csc_array) -> np.ndarray:
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


def _undominated(prob: Problem, matrix: sp.csc_array, cost: np.ndarray, bound: float) -> np.ndarray:
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


def _restricted(prob: Problem, keep: np.ndarray) -> Problem:
    """The program over the kept jobs only. Neighbouring cliques that hold the
    same kept jobs become one, needing the larger of their needs."""
    jobs = np.flatnonzero(keep)
    a, b = prob.a[jobs], prob.b[jobs]
    changes = np.zeros(len(prob.need) + 1, bool)
    changes[a] = True
    changes[b] = True
    group = np.r_[0, np.cumsum(changes[1:len(prob.need)])]
    first = np.flatnonzero(np.r_[True, changes[1:len(prob.need)]])
    return Problem(index=prob.index, jobs=jobs, a=group[a], b=group[b - 1] + 1,
                    need=np.maximum.reduceat(prob.need, first), p=prob.p[jobs],
                    processor_seconds=prob.processor_seconds[jobs])


@dataclass(frozen=True, eq=False)
class Solution:
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


def _program(prob: Problem, objective: str, keep: np.ndarray, incumbent: np.ndarray,
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


def _solve(prob: Problem, objective: str, time_limit: float, node_limit: int | None) -> Solution:
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
        return Solution(out.x, "optimal" if out.proven else out.stop if out.improved else "greedy")
    keep = _undominated(prob, matrix, np.ones(len(prob.p)), float(greedy.sum()))
    first = _program(prob, "L", keep, greedy, time_limit, node_limit)
    if not first.proven:
        return Solution(first.x, first.stop if first.improved else "greedy")
    wider = _undominated(prob, matrix, cost, float(cost[first.x].sum()))
    if not np.any(wider & ~keep):
        return Solution(first.x, "optimal")
    left = time_limit - (time.monotonic() - began)
    if left <= 0:
        return Solution(first.x, "tie-break limit")
    second = _program(prob, "L", wider, first.x, left, node_limit, most=int(first.x.sum()))
    return Solution(second.x, "optimal" if second.proven else "tie-break limit")

def solve_all(problems: list[Problem], time_limit: float, node_limit: int | None,
               workers: int | None) -> dict[tuple[int, str], Solution]:
    """Both programs of every component on a pool of threads (HiGHS releases
    the GIL): the S programs first, which take longest, each objective's
    largest first, so that the two programs of one large component seldom
    hold memory at once. Results are keyed, so their order is fixed."""
    if workers is None:
        workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    tasks = sorted(((prob, obj) for prob in problems for obj in "LS"),
                   key=lambda t: (t[1] != "S", -int(np.sum(t[0].b - t[0].a)), t[0].index))
    with quiet_stdout(), ThreadPoolExecutor(max(1, workers or 1)) as pool:
        found = pool.map(lambda t: _solve(t[0], t[1], time_limit, node_limit), tasks)
        return {(prob.index, obj): sol for (prob, obj), sol in zip(tasks, found)}
