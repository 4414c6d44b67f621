"""The captions under a log's figures: what each shows, in which units, and
the log's own numbers behind it (medians, the machine's size, the peak and
when it was reached, the weekly average), each with its unit, durations
also in the unit a person reads (`4,586,526 s (53.1 d)`)."""
from __future__ import annotations

import pandas as pd
from wla.archive.kernel.plain import plain
from wla.archive.kernel.processors import job_processors

from .values import duration, shown, with_unit


def _median_run(jobs: pd.DataFrame) -> float | None:
    run = jobs["run"][jobs["run"] >= 0]
    return float(run.median()) if len(run) else None


def _median_size(jobs: pd.DataFrame) -> float | None:
    size = pd.Series(job_processors(jobs)).dropna()
    return float(size.median()) if len(size) else None


def captions(jobs: pd.DataFrame, facts: dict, usage: dict, weekly_average: float | None) -> dict[str, str]:
    """The caption of each figure kind (figures.KINDS) of the log whose
    `jobs`, `facts` (log_jobs) and quality report row `usage` are given."""
    tz = facts.get("tz") or "UTC, the log's time zone being unknown"
    out = {"cycles": f"Weekly and daily arrival cycles: jobs submitted by day of the week and by hour of the day, "
                     f"in the log's local time ({tz})"}
    size, run = _median_size(jobs), _median_run(jobs)
    out["distributions"] = ("Job sizes in processors (allocated, else requested; bins from each power of two) and "
                            "run times in seconds (four bins a decade), in jobs per bin"
                            + (f"; median size {with_unit(size, 'median_procs')}" if size is not None else "")
                            + (f", median run time {duration(run)}" if run is not None else ""))
    machine = plain(facts.get("machine_size"))
    utilization = "Daily lowest and highest utilization, in % of the machine"
    if machine is not None:
        utilization += f" ({with_unit(machine, 'machine_size')})"
    utilization += ("; above the dashed 100% line the running jobs hold more processors than the machine has "
                    "(capacity exceptions")
    exceptions = plain(usage.get("exceptions"))
    if exceptions is not None:
        utilization += (": none" if exceptions == 0 else
                        f": {shown(exceptions, 'exceptions')} job start{'' if exceptions == 1 else 's'}")
    utilization += ")"
    if plain(usage.get("ceiling")) is not None and plain(usage.get("peak_at")) is not None:
        share = plain(usage.get("ceiling_share"))
        utilization += (f"; the highest use, {with_unit(usage['ceiling'], 'ceiling')}"
                        + (f" ({shown(share, 'ceiling_share')})" if share is not None else "")
                        + f", is first reached {duration(usage['peak_at'])} after the log's start")
    out["utilization"] = utilization
    flurries = "Jobs per week, the five busiest users in colour"
    if weekly_average:  # none without jobs
        flurries += f", against the average weekly total ({weekly_average:,.0f} jobs a week) and 5 times it"
    out["flurries"] = flurries + ": a flurry is one colour far above the average (flurry candidates)"
    out.update(_workload_captions(jobs, usage))
    return out


def _workload_captions(jobs: pd.DataFrame, usage: dict) -> dict[str, str]:
    """The captions of what the experience paper's figures show, with the
    quality report's counts of the log."""
    from wla.archive.analysis.quality import BATCHING_RATIO
    from wla.archive.analysis.workload_plot import LONG_REQUESTS

    def n(key: str) -> int:
        return int(plain(usage.get(key)) or 0)

    out = {}
    known = n("procs_and_request")
    requests = ("Allocated against requested processors, jobs in colour on a logarithmic scale, both axes on powers "
                "of two; the red line is the diagonal")
    if known:
        requests += (f": of {known:,} jobs with both known, {n('procs_as_requested'):,} got what they requested, "
                     f"{n('procs_under_requested'):,} fewer, {n('procs_over_requested'):,} more "
                     f"({n('procs_four_times'):,} four times as many)")
    out["requests"] = requests
    starts = ("Gaps between distinct start instants beside gaps between distinct arrivals, in 1-s bins up to "
              "5 min: a batching scheduler starts jobs on a period and its multiples")
    period, ratio = plain(usage.get("batching_period")), plain(usage.get("batching_ratio"))
    if period is not None and ratio is not None:
        starts += (f"; the most common gap of 10 s or more between starts is {period:,.0f} s, and "
                   f"{shown(usage['start_on_period'], 'share')} of the gaps between starts against "
                   f"{shown(usage['arrival_on_period'], 'share')} of those between arrivals fall within 1 s of "
                   f"its multiples" + (" (batched)" if ratio >= BATCHING_RATIO else " (not batched)"))
    out["inter_starts"] = starts
    requested = jobs["req_time"][jobs["req_time"] > 0]
    out["requested_time"] = ("Of the jobs with a requested time submitted on each day of the week and in each "
                             "hour of the day (local time), the share requesting more than "
                             + " and more than ".join(f"{h // 3600} h" for h in LONG_REQUESTS)
                             + (f": {(requested > LONG_REQUESTS[0]).mean():.1%} and "
                                f"{(requested > LONG_REQUESTS[1]).mean():.1%} of {len(requested):,} jobs overall"
                                if len(requested) else ""))
    r = plain(usage.get("size_run_correlation"))
    out["size_run"] = ("Run time against allocated processors, jobs in colour on a logarithmic scale"
                       + (f"; Pearson's r of ln(procs) and ln(run) is {r:+.2f}" if r is not None else ""))
    return out
