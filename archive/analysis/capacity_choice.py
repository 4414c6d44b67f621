"""Capacity, the choice (the capacity rule's decision): of the two deletions
the programs find, the one whose larger share of jobs and of utilization is
smaller, applied unless that share is above the threshold, with a reason
for every deleted job.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..clock import local_time, log_clock
from ..ranges import MAX_COUNT, MAX_WORKERS, number, whole
from .capacity import Held, check_capacity, component_table, find_cliques, held_jobs, plain, records, usage_profile
from .capacity_programs import Problem, component_problems, solve_all

OBJECTIVES = {"L": "jobs", "S": "processor-seconds"}
_GOALS = {"L": "minimize deleted jobs", "S": "minimize deleted processor-seconds"}
# The rule's defaults (schema/rules/capacity.sql states the same; a test
# holds them equal) and the command line's (cli/options.py reads them here).
THRESHOLD = 0.05  # largest share of jobs or of utilization a deletion may remove
TIME_LIMIT = 5.0  # seconds per program (one objective of one component)


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
        out = {k: plain(getattr(self, k)) for k in (
            "capacity", "slack", "threshold", "applied", "chosen", "message")}
        out["optimal"] = self.optimal
        out["shares"] = {k: plain(v) for k, v in self.shares.items()}
        out["deleted"] = {k: plain(v) for k, v in self.deleted.items()}
        out["components"] = records(self.components)
        out["deletions"] = records(self.deletions)
        return out


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
                       threshold: float = THRESHOLD, time_limit: float = TIME_LIMIT, *,
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
    capacity, slack = check_capacity(capacity, slack)
    threshold = number("threshold", threshold, 0, 1)
    time_limit = number("time_limit", time_limit, 0, low_open=True)
    if node_limit is not None:  # HiGHS counts nodes in a 32-bit integer
        node_limit = whole("node_limit", node_limit, 1, MAX_COUNT)
    if workers is not None:
        workers = whole("workers", workers, 1, MAX_WORKERS)
    held = held_jobs(jobs, slack)
    prof = usage_profile(held)
    cl = find_cliques(held, prof, capacity)
    table = component_table(held, cl, capacity)
    problems = component_problems(held, cl)
    solved = solve_all(problems, time_limit, node_limit, workers)
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
