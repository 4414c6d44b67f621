"""Arrivals that are start times: a log that recorded only when jobs started
(NASA iPSC, LLNL Atlas and Thunder) has its start times in the submit field
and no waits. Its arrival process is the scheduler's output, smoothed by the
queue, so neither arrivals nor waits nor slowdowns can be studied from it.

Two signs: the header says so, or the data does: (nearly) every wait is 0 or
unknown, and yet the jobs, started at their submit times, keep within the
machine at a utilization where a real queue would have formed. A model's
output with unknown waits (lublin_256) does not keep within the machine.
"""
from __future__ import annotations

import re

from .finding import Finding, share
from .header_notes import matching
from .in_use import in_use, written_schedule
from .log_data import LogData

# What converters write for it: "the given submit times are actually start times" (NASA iPSC),
# "no information on wait times", "only start times", "does not include arrival information".
SAYS = re.compile(r"submit\s+times?\s+(?:are|were)\s+(?:actually|really|in\s+fact)\s+start"
                  r"|no\s+(?:information|data)\s+(?:on|about)\s+(?:the\s+)?(?:wait|submit|arrival)"
                  r"|only\s+(?:the\s+)?start\s+(?:and\s+end\s+)?times"
                  r"|(?:does\s+not|doesn't)\s+include\s+(?:arrival|submit)", re.IGNORECASE)


def detect(log: LogData, min_share: float = 0.99, max_over: float = 0.05,
           min_utilization: float = 0.25) -> list[Finding]:
    """A finding when the header says the submit times are start times, or
    when at least `min_share` of the jobs have a wait of 0 or unknown while
    the jobs, started at their submit times, exceed the machine size for at
    most `max_over` of the log's time at a utilization of `min_utilization`
    or more (a real schedule, busy enough for a queue)."""
    said = matching(log.header, SAYS)
    n = len(log)
    if n == 0:
        return []
    wait = log.jobs["wait"]
    no_wait = int(((wait == 0) | (wait == -1)).sum())
    unknown = int((wait == -1).sum())
    fit = _fit(log) if no_wait >= min_share * n else None
    shown = fit is not None and fit["over_share"] <= max_over and fit["utilization"] >= min_utilization
    if said is None and not shown:
        return []
    return [_finding(log, said, shown, no_wait, unknown, fit)]


def _fit(log: LogData) -> dict | None:
    """How the jobs, started at their submit times, fill the machine; None without a machine size."""
    capacity = log.facts.get("machine_size")
    if not capacity:
        return None
    ran, start, end, procs = written_schedule(log.jobs, known_waits=False)
    if not ran.any():
        return None
    use = in_use(start, end, procs, capacity)
    span = use.span
    return {"capacity": int(capacity), "over_share": use.over_share(), "peak": use.peak(),
            "utilization": float((procs * (end - start)).sum() / (span * capacity)) if span > 0 else 0.0}


def _finding(log: LogData, said: str | None, shown: bool, no_wait: int, unknown: int, fit: dict | None) -> Finding:
    n = len(log)
    sources = [s for s, on in (("header", said is not None), ("data", shown)) if on]
    where = []
    if said is not None:
        where.append(f'the header: "{said}"')
    where.append(f"{no_wait:,} of {n:,} jobs without a wait ({unknown:,} unknown, {no_wait - unknown:,} zero)")
    how = f"{share(no_wait, n)} of the jobs"
    if fit is not None:
        how += (f"; started at their submit times they exceed {fit['capacity']:,} processors "
                f"{share(fit['over_share'], 1)} of the time at {fit['utilization']:.1%} utilization")
    return Finding(
        detector="start_arrivals",
        what="arrival times are start times",
        where="; ".join(where),
        how_much=how,
        action="Do not study arrivals, waits or slowdowns from this log (a simulation's queue starts from "
               "arrivals the real scheduler already spread out); its sizes, run times and users are usable, "
               "and wla simulate, resample, stats and validate warn about it",
        data={"sources": sources, "jobs": n, "no_wait": no_wait, "unknown_wait": unknown,
              "header": said, **({} if fit is None else fit)},
    )
