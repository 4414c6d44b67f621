"""Capacity, deletions found without solving a program whole: the greedy
one (a first bound, and the repair of any other), and, for a program too
large for HiGHS to search within a reasonable work limit, one found in
overlapping windows of time over the jobs its LP relaxation favours.

Everything here is a function of the program alone (no clock, no
randomness), so it finds the same deletion on any machine.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from .highs import mip, relaxation

if TYPE_CHECKING:
    from .programs import Problem

# An LP value above this counts as part of a deletion (the simplex's
# tolerances are far smaller than any job's share).
_PART = 1e-6
# Branch-and-bound nodes per window: the root alone. HiGHS's work at the root
# (cuts, heuristics) finds nearly all a window's search would (on RICC's
# hardest component, 0.2% more processor-seconds than after 5,000 nodes, at
# a tenth of the time), and the bound comes from the LP relaxation anyway.
WINDOW_NODES = 1


def greedy(prob: Problem, objective: str, start: np.ndarray | None = None) -> np.ndarray:
    """A feasible deletion holding `start` (default none): in each clique
    still over capacity, in time order, delete the kept jobs that free
    processors most cheaply (L: the largest; S: the shortest, whose
    processor-seconds per processor are fewest) until it holds; then keep
    again, costliest first, every deleted job not needed."""
    n = len(prob.p)
    idx = np.arange(n)
    if objective == "L":
        order = np.lexsort((idx, prob.processor_seconds, -prob.p))
    else:
        order = np.lexsort((idx, -prob.p, prob.processor_seconds / prob.p))
    # Rows in preference order: column r of `preferred` is job order[r].
    preferred = prob.matrix()[:, order].tocsr()
    preferred.sort_indices()
    x = np.zeros(n, bool) if start is None else start.copy()
    freed = prob.freed(x)
    for k in range(len(prob.need)):
        short = prob.need[k] - freed[k]
        if short <= 0:
            continue
        cand = order[preferred.indices[preferred.indptr[k]:preferred.indptr[k + 1]]]
        cand = cand[~x[cand]]
        take = cand[: int(np.searchsorted(np.cumsum(prob.p[cand]), short, "left")) + 1]
        x[take] = True
        for j in take:
            freed[k:prob.b[j]] += prob.p[j]  # every job running in clique k started at or before it
    return prune(prob, x, prob.cost(objective))


def prune(prob: Problem, x: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """`x` less every job it does not need, the costliest kept first."""
    x = x.copy()
    surplus = prob.freed(x) - prob.need
    for j in sorted(np.flatnonzero(x), key=lambda j: (-cost[j], -j)):
        a, b = prob.a[j], prob.b[j]
        if surplus[a:b].min() >= prob.p[j]:
            x[j] = False
            surplus[a:b] -= prob.p[j]
    return x


def in_parts(prob: Problem, objective: str, size_limit: int) -> tuple[np.ndarray, float]:
    """A deletion for a program of more than `size_limit` nonzeros, and the
    value of its LP relaxation (no deletion costs less).

    The jobs searched are those the LP deletes in part or whole, and as many
    again of those whose reduced cost is least. In time order, HiGHS solves
    a window of cliques holding about `size_limit` nonzeros at its root
    (WINDOW_NODES), given the jobs deleted so far; the jobs starting in
    the window's first half are then decided, and the next window starts
    there. The greedy deletion covers whatever the windows leave short, and
    jobs not needed are kept again."""
    cost = prob.cost(objective)
    matrix = prob.matrix()
    lp = relaxation(cost, matrix, prob.need)
    near = lp.x > _PART
    others = np.flatnonzero(~near)
    others = others[np.lexsort((others, lp.reduced[others]))][: int(near.sum())]
    near[others] = True
    per_clique = np.diff(matrix[:, np.flatnonzero(near)].tocsr().indptr)
    upto = np.r_[0, np.cumsum(per_clique)]
    n_cliques = len(prob.need)
    x = np.zeros(len(prob.p), bool)
    first = 0
    while first < n_cliques:
        end = int(np.searchsorted(upto, upto[first] + size_limit, "right")) - 1
        end = min(max(end, first + 1), n_cliques)
        decide = n_cliques if end == n_cliques else first + max(1, (end - first) // 2)
        jobs = np.flatnonzero(near & (prob.a >= first) & (prob.a < end))
        y = _window(prob, cost, x, jobs, first, end)
        decided = prob.a[jobs] < decide
        x[jobs[decided]] = y[decided]
        first = decide
    return greedy(prob, objective, x), lp.value


def _window(prob: Problem, cost: np.ndarray, x: np.ndarray, jobs: np.ndarray,
            first: int, end: int) -> np.ndarray:
    """Which of `jobs` (all starting in cliques first..end-1) to delete so
    that those cliques hold, given the deleted jobs `x`. A clique they cannot
    bring under capacity asks only what they can free (the greedy repair
    does the rest); nothing found deletes nothing."""
    short = (prob.need - prob.freed(x))[first:end]
    stop = np.minimum(prob.b[jobs], end)
    counts = stop - prob.a[jobs]
    indptr = np.r_[0, np.cumsum(counts)]
    rows = np.arange(indptr[-1]) - np.repeat(indptr[:-1] - (prob.a[jobs] - first), counts)
    data = np.minimum(np.repeat(prob.p[jobs], counts), np.maximum(short[rows], 0)).astype(np.float64)
    a = sp.csc_array((data, rows.astype(np.int32), indptr), shape=(end - first, len(jobs))).tocsr()
    need = np.minimum(np.maximum(short, 0), a.sum(axis=1))
    over = need > 0
    if not np.any(over):
        return np.zeros(len(jobs), bool)
    found = mip(cost[jobs], a[over].tocsc(), need[over].astype(np.float64), np.full(int(over.sum()), np.inf),
                WINDOW_NODES)
    return np.zeros(len(jobs), bool) if found.x is None else found.x
