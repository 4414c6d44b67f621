"""Jobs on non-dedicated processors: a machine that time-slices (the LANL
CM-5's gang scheduling) runs several jobs on the same processors, so a job's
run time, from its start to its end, is longer than the time it had the
processors, by an unknown factor. A simulation takes run times as dedicated
ones; the arrivals, users and memory are still usable.

Two signs: the header says so, or the data does: the jobs as written hold
more processors than the machine has for much of the log's time (a machine
that dedicates processors exceeds its size only by clock skew, a few percent
of the time at most), and the jobs that ran mostly during those times are
the ones whose run times cannot be trusted. The SWF has no field marking a
job as dedicated or not, so the data names the jobs only this way.
"""
from __future__ import annotations

import re

import numpy as np

from .finding import Finding, share
from .header_notes import matching
from .in_use import in_use, written_schedule
from .log_data import LogData

# "many jobs, especially smaller ones, ran in non-dedicated mode" (LANL CM5), gang scheduling, time slicing.
# Preemption: Yes is not one: a preempted job's parts each run on dedicated processors (SWF's status 2-4).
SAYS = re.compile(r"non-?\s?dedicated|gang[\s-]?schedul|time[\s-]?(?:slic|shar)", re.IGNORECASE)


def detect(log: LogData, min_over: float = 0.10, job_share: float = 0.5) -> list[Finding]:
    """A finding when the header says jobs ran on non-dedicated processors, or
    when the jobs with a known start hold more processors than the machine
    size for at least `min_over` of the log's time; the jobs named are those
    that spent at least `job_share` of their run time in such times."""
    said = matching(log.header, SAYS, skip=("Preemption",))
    seen = _oversubscribed(log, min_over, job_share)
    if said is None and seen is None:
        return []
    return [_finding(log, said, seen)]


def _oversubscribed(log: LogData, min_over: float, job_share: float) -> dict | None:
    """The machine over capacity and the jobs that ran then; None when it is
    over for less than `min_over` of the time, or the machine size or most of
    the starts are unknown."""
    capacity = log.facts.get("machine_size")
    if not capacity or len(log) == 0:
        return None
    ran, start, end, procs = written_schedule(log.jobs, known_waits=True)
    if ran.sum() < 0.5 * len(log):
        return None
    use = in_use(start, end, procs, capacity)
    if use.over_share() < min_over:
        return None
    shared = np.zeros(len(log), dtype=bool)
    shared[ran] = use.over_during(start, end) >= job_share * (end - start)
    queues, counts = np.unique(log.jobs["queue_id"][shared], return_counts=True)
    top = np.argsort(-counts, kind="stable")[:3]
    return {"capacity": int(capacity), "over_share": use.over_share(), "over_factor": use.over_factor(),
            "jobs": int(shared.sum()), "first_job": int(log.jobs["job"][shared][0]) if shared.any() else None,
            "queues": {int(queues[i]): int(counts[i]) for i in top},
            "cpu_per_run": _cpu_ratios(log, shared, ran)}


def _cpu_ratios(log: LogData, shared: np.ndarray, ran: np.ndarray) -> dict | None:
    """Median CPU time per run time of the named jobs and of the others: lower when the processors were shared."""
    known = ran & (log.jobs["cpu"] >= 0)
    if not known.any():
        return None
    ratio = log.jobs["cpu"] / np.where(log.jobs["run"] > 0, log.jobs["run"], 1)
    return {k: float(np.median(ratio[known & m])) if (known & m).any() else None
            for k, m in (("named", shared), ("others", ~shared))}


def _finding(log: LogData, said: str | None, seen: dict | None) -> Finding:
    n = len(log)
    where = []
    if said is not None:
        where.append(f'the header: "{said}"')
    if seen is not None:
        queues = ", ".join(f"queue {q}: {c:,}" for q, c in seen["queues"].items())
        where.append(f"{seen['jobs']:,} jobs ran at least half their run time while more than "
                     f"{seen['capacity']:,} processors were in use ({queues})")
        how = (f"{share(seen['jobs'], n)} of the jobs; the machine is over its size {share(seen['over_share'], 1)} "
               f"of the time, by {seen['over_factor']:.2f}x on average")
        cpu = seen["cpu_per_run"]
        if cpu and cpu["named"] is not None and cpu["others"] is not None:
            how += f"; their CPU time is {cpu['named']:.0%} of their run time (median), the others' {cpu['others']:.0%}"
    else:
        how = "which jobs is not recorded"
    return Finding(
        detector="non_dedicated",
        what="run times on non-dedicated processors",
        where="; ".join(where),
        how_much=how,
        action="Do not simulate this log's run times or study its utilization (a simulation takes each run "
               "time as dedicated); its arrivals, users and memory are usable (wla stats), and wla simulate, "
               "resample, stats and validate warn about it",
        data={"sources": [s for s, on in (("header", said is not None), ("data", seen is not None)) if on],
              "header": said, **(seen or {})},
    )
