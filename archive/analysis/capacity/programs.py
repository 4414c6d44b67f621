"""Capacity, the integer programs: per component of exceptions, the
deletion of least cost, for each objective (L: fewest jobs, then fewest
processor-seconds; S: fewest processor-seconds), by scipy's `milp` (HiGHS)
after a greedy bound and a dominance test have left out what cannot help;
with a bound on how far from optimal the deletion is when a limit on the
work (nodes searched, size solved whole) stopped the search.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ...kernel.progress import Parts
from .highs import Found, mip, quiet, relaxation
from .parts import greedy, in_parts
from .report import Cliques, Held


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
    # 'optimal'; 'node limit' when the program, solved whole, was stopped there;
    # 'size limit' when it was too large to solve whole (in_parts); 'greedy' when
    # the greedy deletion was the best found; for L, 'tie-break limit' when the
    # fewest jobs are proven but the processor-seconds among them are not.
    method: str
    # No deletion of the component does better: L, jobs; S, processor-seconds.
    bound: float


# Relative rounding allowed when a bound is compared with a deletion's cost.
_TOLERANCE = 1e-9


@dataclass(frozen=True, eq=False)
class _Outcome:
    x: np.ndarray  # the solver's deletion or the incumbent, whichever costs less
    proven: bool  # no deletion over the jobs searched costs less
    improved: bool  # x is the solver's
    bound: float  # no deletion costs less (in the program's cost); at most x's cost
    stop: str  # what stopped the search, when not proven


def _program(prob: Problem, objective: str, keep: np.ndarray, incumbent: np.ndarray,
             node_limit: int, size_limit: int, most: int | None = None) -> _Outcome:
    """HiGHS over the kept jobs, at most `most` of them deleted; solved whole
    up to `size_limit` nonzeros, else in parts. The kept jobs hold every
    deletion cheaper than the incumbent, so when they hold none the
    incumbent is optimal, and no deletion costs less than the incumbent or
    the least the kept jobs allow."""
    cost = prob.cost(objective)
    here = float(cost[incumbent].sum())
    sub = _restricted(prob, keep)
    if len(sub.p) == 0 or np.any(sub.freed(np.ones(len(sub.p), bool)) < sub.need):
        return _Outcome(incumbent, True, False, here, "")
    a = sub.matrix()
    if a.nnz > size_limit:
        if most is not None:  # a second stage too large to solve whole is not tried
            return _Outcome(incumbent, False, False, -np.inf, "size limit")
        y, bound = in_parts(sub, objective, size_limit)
        found = Found(y, False, False, bound)
        stop = "size limit"
    else:
        lower, upper = sub.need.astype(np.float64), np.full(len(sub.need), np.inf)
        if most is not None:
            a = sp.vstack([a, sp.csc_array(np.ones((1, len(sub.p))))], format="csc")
            lower, upper = np.r_[lower, 0.0], np.r_[upper, most]
        found = mip(sub.cost(objective), a, lower, upper, node_limit)
        stop = "node limit"
    x = None
    if found.x is not None:
        x = np.zeros(len(prob.p), bool)
        x[sub.jobs[found.x]] = True
        if not prob.feasible(x) or float(cost[x].sum()) > here:
            x = None
    best = incumbent if x is None else x
    value = float(cost[best].sum())
    bound = found.bound
    if bound is None:  # HiGHS stopped before it found a deletion, and gives no bound then
        bound = relaxation(sub.cost(objective), sub.matrix(), sub.need).value if most is None else -np.inf
    # optimal, nothing cheaper, or a bound that leaves nothing between
    proven = found.optimal or (found.infeasible and x is None) or value <= bound + _TOLERANCE * max(1.0, abs(value))
    return _Outcome(best, proven, x is not None, value if proven else min(bound, value), "" if proven else stop)


def _solve(prob: Problem, objective: str, node_limit: int, size_limit: int) -> Solution:
    """The deletion of least cost: a greedy one bounds it, jobs that cannot
    beat the bound are left out, and HiGHS solves the rest.

    L takes two stages: the fewest jobs, over the jobs that dominance by job
    count leaves; then, that many jobs at most, the fewest processor-seconds
    over every job that only a costlier one could replace (skipped when the
    first stage already searched them all)."""
    matrix = prob.matrix()
    cost = prob.cost(objective)
    start = greedy(prob, objective)
    if objective == "S":
        keep = _undominated(prob, matrix, cost, float(cost[start].sum()))
        out = _program(prob, "S", keep, start, node_limit, size_limit)
        return Solution(out.x, "optimal" if out.proven else out.stop if out.improved else "greedy", out.bound)
    keep = _undominated(prob, matrix, np.ones(len(prob.p)), float(start.sum()))
    first = _program(prob, "L", keep, start, node_limit, size_limit)
    jobs = int(first.x.sum())
    # A deletion of m jobs costs m and a share below one: a bound b leaves m >= floor(b).
    fewest = jobs if first.proven else min(jobs, max(0, int(np.floor(first.bound - 1e-6))))
    if fewest < jobs:
        return Solution(first.x, first.stop if first.improved else "greedy", fewest)
    wider = _undominated(prob, matrix, cost, float(cost[first.x].sum()))
    if first.proven and not np.any(wider & ~keep):
        return Solution(first.x, "optimal", jobs)
    second = _program(prob, "L", wider, first.x, node_limit, size_limit, most=jobs)
    return Solution(second.x, "optimal" if second.proven else "tie-break limit", jobs)


def solve_all(problems: list[Problem], node_limit: int, size_limit: int,
              workers: int | None, progress: Parts | None = None) -> dict[tuple[int, str], Solution]:
    """Both programs of every component on a pool of threads (HiGHS releases
    the GIL): the S programs first, which take longest, each objective's
    largest first, so that the two programs of one large component seldom
    hold memory at once. Each program is solved on one thread from its own
    data alone, and results are keyed, so neither the number of workers nor
    the order they finish in changes anything;
    `progress(done, total)` is told as the programs start (0 done) and as each finishes."""
    if workers is None:
        workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    tasks = sorted(((prob, obj) for prob in problems for obj in "LS"),
                   key=lambda t: (t[1] != "S", -int(np.sum(t[0].b - t[0].a)), t[0].index))
    with quiet(), ThreadPoolExecutor(max(1, workers or 1)) as pool:
        found = [pool.submit(lambda t: _solve(t[0], t[1], node_limit, size_limit), t) for t in tasks]
        if progress is not None:
            progress(0, len(found))
        for done, _ in enumerate(as_completed(found), 1):
            if progress is not None:
                progress(done, len(found))
        return {(prob.index, obj): sol.result() for (prob, obj), sol in zip(tasks, found)}
