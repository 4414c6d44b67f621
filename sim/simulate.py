"""simulate(): a workload in, a result with every setting written out."""
from __future__ import annotations

from functools import lru_cache

from wla.archive.kernel.errors import UsageError
from wla.archive.kernel.processors import RULE as PROCESSORS_RULE

from . import invariants
from .metrics import job_metrics, measured, summarize
from .predictors import parse_estimator, scheduler_estimates
from .reference import apply_overrun
from .result import SimResult
from .saturation import saturation
from .scaling import offered_load, scale_runtimes, scale_sizes
from .schedule import schedule_adjusted
from .settings import TAU, WARMUP, SimSettings  # noqa: F401 (simulate's defaults, as named before)
from .workload import ESTIMATE_RULE, REASONS, Workload, from_frame

EVENT_ORDER = {
    "instant": "at each instant, every termination, then every arrival, then one scheduling pass",
    "event": "a scheduling pass after each single event (terminations, then arrivals)",
}
TIE_ORDER = {"log": "simultaneous arrivals in log order", "reverse": "simultaneous arrivals in reverse log order"}


def _checked(s: SimSettings):
    """Refuse a setting the simulator does not have; the estimator the text
    names. Kept per settings: a study checks the same settings every run."""
    try:
        hash(s)
    except TypeError:  # a value of a type no setting has: refused by the checks
        return _check(s)
    return _kept(s)


def _check(s: SimSettings):
    return s.checked(), parse_estimator(s.estimate)


_kept = lru_cache(maxsize=1024)(_check)


def check_settings(settings: SimSettings | None = None, **changes) -> None:
    """Refuse, without simulating, what simulate() would refuse: a study
    checks every point before any process starts."""
    _checked((settings or SimSettings()).edit(**changes))  # the checked settings are not needed


def simulate(workload, settings: SimSettings | None = None, **changes) -> SimResult:
    """Replay a workload (a Workload from `from_archive`, a DataFrame with the
    archive's column names, or a DuckDB relation) with `settings`
    (settings.py; keywords edit them: `simulate(w, policy="fcfs")`).
    `exclude` picks jobs that are simulated but not measured; `procs`
    overrides the machine size; `load_factor` divides interarrival times,
    `runtime_scale` and `size_scale` multiply run times and sizes (scaling.py);
    `backlog` is what saturation counts (saturation.py)."""
    s, estimator = _checked((settings or SimSettings()).edit(**changes))
    policy, overrun, procs, exclude, ties, passes = s.policy, s.overrun, s.procs, s.exclude, s.ties, s.passes
    if not isinstance(workload, Workload):
        if hasattr(workload, "df") and not type(workload).__module__.startswith("pandas"):
            workload = workload.df()  # a DuckDB relation
        workload = from_frame(workload, procs, exclude)
    elif (exclude is not None and exclude != workload.source.get("exclude")) \
            or (procs is not None and procs != workload.P):
        raise UsageError("give procs and exclude when the workload is built (from_archive), not again")
    w = workload
    P = w.P

    submit = w.submit.copy()
    if len(submit) and s.load_factor != 1.0:
        first = submit.min()
        submit = first + (submit - first) / s.load_factor
    run, own = scale_runtimes(w.run, w.estimate, s.runtime_scale)
    sized = scale_sizes(w.procs, s.size_scale, P)
    sizes = sized.procs
    run, own = apply_overrun(run, own, overrun)
    believed = scheduler_estimates(estimator, run, own, s.seed)
    last_k = estimator.k if estimator.kind == "last" else 0
    linked = s.feedback and w.prev is not None and bool((w.prev >= 0).any())
    sched = schedule_adjusted(submit, run, sizes, own if last_k else believed, P, policy, overrun,
                              w.user, last_k, ties, passes, w.prev if linked else None, w.think)
    trace_submit, submit = submit, sched.arrive  # with feedback, a job may arrive after its submit time
    start, held, order = sched.start, sched.held, sched.order
    if s.check:
        exact = estimator.kind == "exact" or (estimator.kind == "badness" and estimator.factor == 0)
        guarantee = policy == "easy" and exact and passes == "instant"
        invariants.check(w.job, submit, start, held, sizes, P, order if guarantee else None,
                         sched.reservation, sched.estimate, sched.delayed or 0)
        if linked:
            invariants.check_feedback(w.job, trace_submit, submit, start + held, w.prev, w.think)

    end = start + held
    per_job = job_metrics(submit, start, held, s.tau)
    measure = measured(submit, end, order, w.excluded, s.warmup, s.stop_at_last_arrival)
    summary = summarize(per_job, measure, start, end, sizes, submit, P)
    summary["offered_load"] = offered_load(trace_submit, run, sizes, P)
    summary["saturation"] = saturation(submit, start, end, order, s.backlog)
    counts = {
        "jobs": w.total,
        "simulated": len(w),
        "not_simulated": {r: w.not_simulated.get(r, 0) for r in REASONS},
        "measured": int(measure.mask.sum()),
        "not_measured": {"warm-up": measure.warmup, "ended after the last arrival": measure.after_last_arrival,
                         "excluded (predicate or rare behavior)": measure.excluded},
        # conservative: reservations moved later, which only an estimate that grows can do
        "reservations_delayed": sched.delayed,
        # fields 17/18: jobs that wait for another under feedback, and those whose preceding job is not here
        "dependencies": dict(w.dependencies) if w.prev is not None else {},
        "arrived_late": int((submit > trace_submit).sum()),
        # size_scale: jobs whose scaled size was held at 1 processor, or at the machine
        "sizes_held": {"raised to 1": sized.raised, "capped at the machine": sized.capped},
    }
    settings = {**s.as_dict(), "estimate": str(estimator), "procs": P,
                "exclude": exclude if exclude is not None else w.source.get("exclude")}
    del settings["check"]
    settings.update(event_order=EVENT_ORDER[passes], tie_order=TIE_ORDER[ties], processors_rule=PROCESSORS_RULE,
                    estimate_rule=ESTIMATE_RULE, checked=s.check)
    return SimResult(
        settings=settings, sim_settings=s, source={k: v for k, v in w.source.items() if k != "exclude"},
        counts=counts, metrics=summary, job=w.job, submit=submit, trace_submit=trace_submit, start=start, end=end,
        run=held, procs=sizes, estimate=sched.estimate, wait=per_job.wait, response=per_job.response,
        bounded_slowdown=per_job.bounded_slowdown, measured=measure.mask, reservation=sched.reservation)
