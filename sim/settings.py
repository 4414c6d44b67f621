"""The simulator's settings, each declared once (docs/pages/definitions/simulation.md's defaults
and ranges): simulate() takes them, results carry them, sweeps and
comparisons edit them, and the command line builds its options from them.
No heavy import."""
from __future__ import annotations

from dataclasses import dataclass

from wla.archive.kernel.ranges import MAX_PROCESSORS, MAX_SEED, number, whole
from wla.archive.kernel.settings import Settings, setting

POLICIES = ("fcfs", "easy", "conservative")
OVERRUNS = ("truncate", "extend", "keep")
TIES = ("log", "reverse")
PASSES = ("instant", "event")
BACKLOGS = ("waiting", "outstanding")  # what saturation's backlog counts
# Load factors (and run-time and size scales) from a millionth to a million:
# beyond, arrivals collapse into one instant or spread over millions of
# years, and the times lose meaning.
LOAD_FACTORS = (1e-6, 1e6)
TAU = 10.0  # seconds: bounded slowdown counts a shorter run as this long
WARMUP = 0.01  # the first share of jobs (by arrival), simulated but not measured


def _estimate(name: str, value: object) -> str:
    """Refused as the simulator would refuse it; kept as written."""
    from .predictors import parse_estimator

    parse_estimator(value)
    return value  # type: ignore[return-value]


@dataclass(frozen=True)
class SimSettings(Settings):
    """Everything simulate() may be told besides the workload."""

    policy: str = setting("easy", "easy, fcfs or conservative", choices=POLICIES, what="policy")
    estimate: str = setting("user", "user, exact, badness:F or last:K", check=_estimate)
    overrun: str = setting("truncate", "Jobs running past their estimate: truncate, extend or keep",
                           choices=OVERRUNS, what="overrun mode")
    procs: int | None = setting(None, "Processors [default: MaxProcs, else MaxNodes]",
                                check=lambda n, v: whole(n, v, 1, MAX_PROCESSORS))
    tau: float = setting(TAU, "Bounded-slowdown threshold, seconds",
                         check=lambda n, v: number(n, v, 0, low_open=True))
    warmup: float = setting(WARMUP, "Fraction of the first jobs simulated but not measured",
                            check=lambda n, v: number(n, v, 0, 1, high_open=True))
    stop_at_last_arrival: bool = setting(True, "Measure only jobs ending by the last arrival, utilization up to it",
                                         flags=("--stop-at-last-arrival/--measure-to-end",))
    exclude: str | None = setting(None, "Simulate but do not measure jobs matching this predicate")
    load_factor: float = setting(1.0, "Divide interarrival times by this",
                                 check=lambda n, v: number(n, v, *LOAD_FACTORS))
    runtime_scale: float = setting(1.0, "Multiply run times and requested times by this (sim/scaling.py)",
                                   check=lambda n, v: number(n, v, *LOAD_FACTORS), flags=("--scale-runtime",))
    size_scale: float = setting(1.0, "Multiply job sizes by this, rounded half up, held between 1 and the "
                                     "machine (sim/scaling.py)",
                                check=lambda n, v: number(n, v, *LOAD_FACTORS), flags=("--scale-size",))
    seed: int = setting(0, "Seed of every random draw (badness estimates, ESP batches)",
                        check=lambda n, v: whole(n, v, 0, MAX_SEED))
    ties: str = setting("log", "Simultaneous arrivals: log (log order) or reverse", choices=TIES, what="tie order")
    passes: str = setting("instant", "instant: one scheduling pass per instant, after all its events; event: one "
                                     "per event", choices=PASSES, what="pass rule")
    feedback: bool = setting(False, "Submit each job that depends on another (fields 17/18) at that job's "
                                    "simulated end plus its think time, never before its own submit time "
                                    "(definitions: Simulation)")
    check: bool = setting(False, "Check the schedule's invariants")
    backlog: str = setting("waiting", "What saturation counts each week: waiting (arrived, not started) or "
                                      "outstanding (arrived, not ended: the resampling paper's count, running "
                                      "jobs included)", choices=BACKLOGS, what="backlog")
