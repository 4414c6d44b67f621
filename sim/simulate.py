"""simulate(): a workload in, a result with every setting written out."""
from __future__ import annotations

import inspect

from wla.archive.kernel.errors import UsageError
from wla.archive.kernel.processors import RULE as PROCESSORS_RULE

from . import invariants
from .metrics import job_metrics, measured, summarize
from .predictors import parse_estimator, scheduler_estimates
from .reference import apply_overrun, check_options
from .result import SimResult
from .saturation import BACKLOGS, saturation
from .schedule import schedule_adjusted
from .workload import ESTIMATE_RULE, REASONS, Workload, from_frame

# simulation.md's defaults (the command line reads them here).
TAU = 10.0  # seconds: bounded slowdown counts a shorter run as this long
WARMUP = 0.01  # the first share of jobs (by arrival), simulated but not measured

EVENT_ORDER = {
    "instant": "at each instant, every termination, then every arrival, then one scheduling pass",
    "event": "a scheduling pass after each single event (terminations, then arrivals)",
}
TIE_ORDER = {"log": "simultaneous arrivals in log order", "reverse": "simultaneous arrivals in reverse log order"}


def _checked(policy, estimate, overrun, procs, tau, warmup, load_factor, seed, ties, passes, backlog):
    """Refuse a setting the simulator does not have; the estimator the text names."""
    check_options(policy, overrun, ties, passes, procs=procs, tau=tau, warmup=warmup,
                  load_factor=load_factor, seed=seed)
    if backlog not in BACKLOGS:
        raise UsageError(f"unknown backlog {backlog!r}; one of {', '.join(BACKLOGS)}")
    return parse_estimator(estimate)


def check_settings(**options) -> None:
    """Refuse, without simulating, what simulate() would refuse given these
    keyword arguments (its defaults for the others): a study checks every
    point before any process starts."""
    try:
        bound = inspect.signature(simulate).bind(None, **options)
    except TypeError as e:
        raise UsageError(f"not an option of the simulator: {e}") from None
    bound.apply_defaults()
    a = bound.arguments
    _checked(a["policy"], a["estimate"], a["overrun"], a["procs"], a["tau"], a["warmup"], a["load_factor"],
             a["seed"], a["ties"], a["passes"], a["backlog"])


def simulate(workload, policy: str = "easy", estimate: str = "user", overrun: str = "truncate",
             procs: int | None = None, tau: float = TAU, warmup: float = WARMUP,
             stop_at_last_arrival: bool = True, exclude: str | None = None, load_factor: float = 1.0,
             seed: int = 0, ties: str = "log", passes: str = "instant", check: bool = False,
             backlog: str = "waiting") -> SimResult:
    """Replay a workload (a Workload from `from_archive`, a DataFrame with the
    archive's column names, or a DuckDB relation) on P processors.
    `exclude` picks jobs that are simulated but not measured; `procs`
    overrides the machine size; `load_factor` divides interarrival times;
    `backlog` is what saturation counts (saturation.py)."""
    estimator = _checked(policy, estimate, overrun, procs, tau, warmup, load_factor, seed, ties, passes, backlog)
    if not isinstance(workload, Workload):
        if hasattr(workload, "df") and not type(workload).__module__.startswith("pandas"):
            workload = workload.df()  # a DuckDB relation
        workload = from_frame(workload, procs, exclude)
    elif exclude is not None or (procs is not None and procs != workload.P):
        raise UsageError("give procs and exclude when the workload is built (from_archive), not again")
    w = workload
    P = w.P

    submit = w.submit.copy()
    if len(submit) and load_factor != 1.0:
        first = submit.min()
        submit = first + (submit - first) / load_factor
    run, own = apply_overrun(w.run, w.estimate, overrun)
    believed = scheduler_estimates(estimator, run, own, seed)
    last_k = estimator.k if estimator.kind == "last" else 0
    sched = schedule_adjusted(submit, run, w.procs, own if last_k else believed, P, policy, overrun,
                              w.user, last_k, ties, passes)
    start, held, order = sched.start, sched.held, sched.order
    if check:
        exact = estimator.kind == "exact" or (estimator.kind == "badness" and estimator.factor == 0)
        guarantee = policy == "easy" and exact and passes == "instant"
        invariants.check(w.job, submit, start, held, w.procs, P, order if guarantee else None,
                         sched.reservation, sched.estimate, sched.delayed or 0)

    end = start + held
    per_job = job_metrics(submit, start, held, tau)
    measure = measured(submit, end, order, w.excluded, warmup, stop_at_last_arrival)
    summary = summarize(per_job, measure, start, end, w.procs, submit, P)
    summary["saturation"] = saturation(submit, start, end, order, backlog)
    counts = {
        "jobs": w.total,
        "simulated": len(w),
        "not_simulated": {r: w.not_simulated.get(r, 0) for r in REASONS},
        "measured": int(measure.mask.sum()),
        "not_measured": {"warm-up": measure.warmup, "ended after the last arrival": measure.after_last_arrival,
                         "excluded (predicate or rare behavior)": measure.excluded},
        # conservative: reservations moved later, which only an estimate that grows can do
        "reservations_delayed": sched.delayed,
    }
    settings = {
        "policy": policy,
        "estimate": str(estimator),
        "overrun": overrun,
        "procs": P,
        "tau": tau,
        "warmup": warmup,
        "stop_at_last_arrival": stop_at_last_arrival,
        "exclude": exclude if exclude is not None else w.source.get("exclude"),
        "load_factor": load_factor,
        "seed": seed,
        "ties": ties,
        "passes": passes,
        "backlog": backlog,
        "event_order": EVENT_ORDER[passes],
        "tie_order": TIE_ORDER[ties],
        "processors_rule": PROCESSORS_RULE,
        "estimate_rule": ESTIMATE_RULE,
        "checked": check,
    }
    return SimResult(
        settings=settings, source={k: v for k, v in w.source.items() if k != "exclude"},
        counts=counts, metrics=summary, job=w.job, submit=submit, start=start, end=end,
        run=held, procs=w.procs, estimate=sched.estimate, wait=per_job.wait, response=per_job.response,
        bounded_slowdown=per_job.bounded_slowdown, measured=measure.mask, reservation=sched.reservation)
