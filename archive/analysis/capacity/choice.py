"""Capacity, the choice (the capacity rule's decision): of the two deletions
the programs find, the one whose larger share of jobs and of utilization is
smaller, applied unless that share is above the threshold, with a reason
for every deleted job, and, where a limit on the solver's work stopped a
program, how far from optimal the deletion may be.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from wla.archive.kernel.errors import UsageError

from ...kernel.clock import local_time, log_clock
from ...kernel.progress import Parts
from ...kernel.ranges import MAX_COUNT, MAX_WORKERS, number, whole
from ...kernel.units import count
from .programs import Problem, component_problems, solve_all
from .report import (
    NO_STARTS,
    Held,
    check_capacity,
    component_table,
    find_cliques,
    held_jobs,
    plain,
    records,
    starts_known,
    usage_profile,
)

OBJECTIVES = {"L": "jobs", "S": "processor-seconds"}
_GOALS = {"L": "minimize deleted jobs", "S": "minimize deleted processor-seconds"}
# The rule's defaults (schema/rules/capacity.sql states the same; a test
# holds them equal) and the command line's (cli/options.py reads them here).
THRESHOLD = 0.05  # largest share of jobs or of utilization a deletion may remove
NODE_LIMIT = 5000  # branch-and-bound nodes HiGHS may search per program
SIZE_LIMIT = 20000  # nonzeros of the largest program solved whole

# Why a program is not proven optimal, for the counts of `proof`.
_UNPROVEN = {"node limit": "stopped at the node limit",
             "size limit": "too large to solve whole",
             "tie-break limit": "proven the fewest jobs but not the fewest processor-seconds among them",
             "greedy": "left at the greedy deletion"}


@dataclass(frozen=True, eq=False)
class CapacityChoice:
    """The capacity rule's decision for one log: both candidate deletions, the
    one chosen, and whether it is applied. Shares are fractions of the whole
    log (jobs; processor-seconds of jobs with known run and processors).
    `gap` says how far above the optimum each deletion may be: L in jobs, S
    as a share of the log's utilization (0 when proven optimal)."""

    capacity: int
    slack: float
    threshold: float
    applied: bool
    chosen: str | None  # 'L', 'S', or None when there is nothing to delete
    shares: dict  # LJ, LU, SJ, SU
    deleted: dict  # L, S: jobs each would delete
    gap: dict  # L: jobs, S: share of utilization the deletion may be above the optimum
    components: pd.DataFrame
    deletions: pd.DataFrame  # line_no, job, component, objective, reason
    message: str

    @property
    def optimal(self) -> bool:
        """Every component's two programs were solved to proven optimality."""
        c = self.components
        return bool(c["optimal_L"].all() and c["optimal_S"].all())

    def proof(self, objective: str) -> str:
        """'optimal', or why the objective's deletion is not proven so and
        how far from optimal it may be."""
        return _proof(self.components, self.gap, objective)

    def as_dict(self) -> dict:
        out = {k: plain(getattr(self, k)) for k in (
            "capacity", "slack", "threshold", "applied", "chosen", "message")}
        out["optimal"] = self.optimal
        out["shares"] = {k: plain(v) for k, v in self.shares.items()}
        out["deleted"] = {k: plain(v) for k, v in self.deleted.items()}
        out["gap"] = {k: plain(v) for k, v in self.gap.items()}
        out["proof"] = {k: self.proof(k) for k in "LS"}
        out["components"] = records(self.components)
        out["deletions"] = records(self.deletions)
        return out


def _proof(components: pd.DataFrame, gap: dict, objective: str) -> str:
    methods = components[f"method_{objective}"] if len(components) else pd.Series(dtype=object)
    counts = methods[methods != "optimal"].value_counts()
    if counts.empty:
        return "optimal"
    why = ", ".join(f"{count(n, 'program')} {_UNPROVEN[m]}"
                    for m, n in sorted(counts.items(), key=lambda mn: list(_UNPROVEN).index(mn[0])))
    if objective == "S":
        far = f"at most {_pct(gap['S'])} of utilization above the optimum"
    elif gap["L"]:
        far = f"at most {count(gap['L'], 'job')} above the optimum"
    else:
        far = "the number of jobs is optimal"
    return f"not proven optimal: {why}; {far}"


def _pct(share: float) -> str:
    return f"{100 * share:.3g}%"


def _when(t: float, unix_start_time: int | None, tz: str | None) -> str:
    when = local_time(log_clock(unix_start_time, tz), t)
    return f"t={t:,.0f} s" if when is None else when.strftime("%Y-%m-%d %H:%M:%S %Z")


def _shares_text(shares: dict) -> str:
    return (f"L: {_pct(shares['LJ'])} of jobs, {_pct(shares['LU'])} of utilization; "
            f"S: {_pct(shares['SJ'])} of jobs, {_pct(shares['SU'])} of utilization")


def _shares(held: Held, problems: list[Problem], solved: dict) -> tuple[dict, dict]:
    """LJ, LU, SJ, SU as fractions of the log, and the jobs each would delete."""
    shares, deleted = {}, {}
    for obj in "LS":
        rows = np.concatenate([p.jobs[solved[p.index, obj].x] for p in problems] or [np.zeros(0, np.int64)])
        deleted[obj] = len(rows)
        shares[obj + "J"] = len(rows) / held.log_jobs if held.log_jobs else 0.0
        ps = float(np.sum(held.p[rows] * held.run[rows]))
        shares[obj + "U"] = ps / held.log_processor_seconds if held.log_processor_seconds else 0.0
    return shares, deleted


def _component_gap(prob: Problem, solution, objective: str) -> float:
    """How far above the component's optimum its deletion may be: L in jobs,
    S in processor-seconds."""
    if objective == "L":
        return int(solution.x.sum()) - int(solution.bound)
    return max(float(prob.processor_seconds[solution.x].sum()) - solution.bound, 0.0)


def _reason(row, n_comp: int, capacity: int, chosen: str, shares: dict, method: str, gap: float,
            total_ps: float, node_limit: int, size_limit: int, unix_start_time: int | None, tz: str | None) -> str:
    far = (count(gap, "job") if chosen == "L"
           else f"{math.ceil(gap):,} processor-seconds ({_pct(gap / total_ps if total_ps else 0.0)} of utilization)")
    far = f", at most {far} above this component's optimum"
    note = {"optimal": "",
            "node limit": f"; not proven optimal: the best deletion found within the {node_limit:,} node limit{far}",
            "size limit": (f"; not proven optimal: more than {size_limit:,} nonzeros, too large to solve whole, "
                           f"solved in windows{far}"),
            "tie-break limit": ("; the fewest jobs, but not proven the fewest processor-seconds among them "
                                "(a limit stopped that search)"),
            "greedy": f"; not proven optimal: a greedy deletion, the solver found no better one within its limits{far}",
            }[method]
    n = int(row.exceptions)
    return (f"capacity: component {row.component} of {n_comp} ({count(n, 'exception')}, "
            f"worst {row.worst_excess + capacity:,} processors in use on {capacity:,} at "
            f"{_when(float(row.worst_at), unix_start_time, tz)}); deleted to {_GOALS[chosen]} "
            f"({_shares_text(shares)}){note}")


def capacity_deletions(jobs: pd.DataFrame, capacity: int, slack: float = 0.0,
                       threshold: float = THRESHOLD, *, node_limit: int = NODE_LIMIT,
                       size_limit: int = SIZE_LIMIT, unix_start_time: int | None = None,
                       tz: str | None = None, workers: int | None = None,
                       progress: Parts | None = None) -> CapacityChoice:
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

    The solver's work is bounded by counts, never by a clock, so the same
    input gives the same deletions on any machine and under any load: HiGHS
    searches at most `node_limit` branch-and-bound nodes per program, on one
    thread; a program of more than `size_limit` nonzeros is not solved whole
    but in overlapping windows of time of about that size, each searched at
    its root, over the jobs its LP relaxation favours. A program a limit stopped keeps the best deletion
    found (the solver's or a greedy one, whichever costs less) and its
    component says so (optimal_L/optimal_S false, method_L/method_S) with a
    bound (bound_L in jobs, bound_S in processor-seconds: HiGHS's dual bound,
    or the LP relaxation's value) no deletion of the component beats; `gap`
    and `proof` sum them up. Components are solved on `workers` threads
    (default: the cores this process may use), which changes nothing but
    the time; `progress(done, total)` is told as the programs start (0 done)
    and as each finishes."""
    capacity, slack = check_capacity(capacity, slack)
    threshold = number("threshold", threshold, 0, 1)
    node_limit = whole("node_limit", node_limit, 1, MAX_COUNT)  # HiGHS counts nodes in a 32-bit integer
    size_limit = whole("size_limit", size_limit, 1, MAX_COUNT)
    if workers is not None:
        workers = whole("workers", workers, 1, MAX_WORKERS)
    if not starts_known(jobs):
        raise UsageError(f"{NO_STARTS}: the capacity rule does not run on this log")
    held = held_jobs(jobs, slack)
    prof = usage_profile(held)
    cl = find_cliques(held, prof, capacity)
    table = component_table(held, cl, capacity)
    problems = component_problems(held, cl)
    solved = solve_all(problems, node_limit, size_limit, workers, progress)
    shares, deleted = _shares(held, problems, solved)
    gaps = {obj: [_component_gap(p, solved[p.index, obj], obj) for p in problems] for obj in "LS"}
    total_ps = held.log_processor_seconds
    gap = {"L": int(sum(gaps["L"])), "S": float(sum(gaps["S"])) / total_ps if total_ps else 0.0}
    for obj in "LS":
        table[f"deleted_{obj}"] = np.array([solved[c, obj].x.sum() for c in range(cl.n_comp)], np.int64)
        table[f"optimal_{obj}"] = np.array([solved[c, obj].method == "optimal" for c in range(cl.n_comp)], bool)
        table[f"method_{obj}"] = pd.Series([solved[c, obj].method for c in range(cl.n_comp)], dtype=object)
    table["bound_L"] = np.array([solved[c, "L"].bound for c in range(cl.n_comp)], np.int64)
    table["bound_S"] = np.array([solved[c, "S"].bound for c in range(cl.n_comp)], np.float64)
    table = table[[*table.columns[:7], "deleted_L", "deleted_S", "optimal_L", "optimal_S",
                   "method_L", "method_S", "bound_L", "bound_S"]]
    common = dict(capacity=int(capacity), slack=float(slack), threshold=float(threshold),
                  shares=shares, deleted=deleted, gap=gap, components=table)
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
        solution = solved[prob.index, chosen]
        rows = prob.jobs[solution.x]
        reason = _reason(row, cl.n_comp, capacity, chosen, shares, solution.method, gaps[chosen][prob.index],
                         total_ps, node_limit, size_limit, unix_start_time, tz)
        parts.append(pd.DataFrame({"line_no": held.line_no[rows], "job": held.job[rows],
                                   "component": np.int64(row.component), "objective": OBJECTIVES[chosen],
                                   "reason": reason}))
    deletions = pd.concat(parts, ignore_index=True).sort_values("line_no", kind="stable")
    deletions = deletions.reset_index(drop=True)
    n_exc = len(cl.exc_t)
    proof = _proof(table, gap, chosen)
    return CapacityChoice(
        applied=True, chosen=chosen, deletions=deletions, **common,
        message=(f"capacity: deleting {count(len(deletions), 'job')} ({chosen}, {_GOALS[chosen]}) resolves "
                 f"{count(n_exc, 'exception')} in {count(cl.n_comp, 'component')} ({_shares_text(shares)})"
                 f"{'' if proof == 'optimal' else f'; {chosen} {proof}'}"))
