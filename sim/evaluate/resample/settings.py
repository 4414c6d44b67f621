"""The resampling's settings, each declared once (docs/pages/definitions/resampling.md's
parameters): the resampler takes them, studies record them, the command
line builds its options from them. No heavy import."""
from __future__ import annotations

from dataclasses import dataclass

from wla.archive.kernel.errors import ParameterError
from wla.archive.kernel.ranges import MAX_SEED, number, whole
from wla.archive.kernel.settings import Settings, canonical, setting

MAX_WEEKS = 100_000
MAX_USERS = 1e7  # users, or users a week: far beyond any log's (CTC: 679 in all)
# activity: docs/pages/definitions/resampling.md's, a random week of the user's activity (every long-term
# user active in week 0); cycle: a random week of its cycle of activity and
# restart gap, so that as many are active at the start as on average later.
PHASES = ("activity", "cycle")
# What is drawn (docs/pages/reproductions/baselines.md): whole users (the paper's method), whole sessions
# or single jobs (the baselines its section 3 argues against).
UNITS = ("user", "session", "job")
# A per-user figure that marks the favored class (the users in its top share): total processor-seconds,
# jobs, mean run time, mean processors.
FAVOR = ("processor-seconds", "jobs", "run-time", "processors")


@dataclass(frozen=True)
class ResampleSettings(Settings):
    """Parameters of docs/pages/definitions/resampling.md; None takes the log's own figure."""

    weeks: int | None = setting(None, "Length of the workload in weeks [default: the log's]",
                                check=lambda n, v: whole(n, v, 1, MAX_WEEKS))
    load: float = setting(1.0, "Multiplies the long-term users, the initial temporary users and the arrival rate",
                          check=lambda n, v: number(n, v, 1e-6, 1e6))
    long_term: int | None = setting(None, "Long-term users [default: the log's]",
                                    check=lambda n, v: whole(n, v, 0, 10**7))
    temporary: float | None = setting(None, "Initial temporary users [default: those active per week in the log, "
                                            "on average]", check=lambda n, v: number(n, v, 0, MAX_USERS))
    arrival_rate: float | None = setting(None, "New temporary users per week [default: the log's average]",
                                         check=lambda n, v: number(n, v, 0, MAX_USERS))
    rb_npw: float = setting(0.0, "Rare-behavior users among each week's new temporary users, on average",
                            check=lambda n, v: number(n, v, 0, MAX_USERS))
    seed: int = setting(0, "Seed: the same seed gives the same workload", check=lambda n, v: whole(n, v, 0, MAX_SEED))
    # where a long-term user starts: a week of its activity, or of its whole cycle
    phase: str = setting("activity", "Where each long-term user starts: 'activity', a random week of its activity "
                                     "(definitions: Resampling; all active in week 0), or 'cycle', of its activity and "
                                     "restart gap", choices=PHASES)

    unit: str = setting("user", "What is drawn: 'user' (whole users, definitions: Resampling), 'session' (single "
                                "sessions) or 'job' (single jobs), the last two shifted by whole weeks",
                        choices=UNITS, what="unit")
    favor: str | None = setting(None, "Favor the users whose figure (processor-seconds, jobs, run-time, processors)"
                                      " is in the top --favor-top share", choices=FAVOR, what="favored figure")
    favor_top: float = setting(0.25, "The share of the pool's users that is favored (the largest figures)",
                               check=lambda n, v: number(n, v, 1e-9, 1.0))
    favor_weight: float = setting(1.0, "How many times as likely a favored user is to be drawn (1: no bias)",
                                  check=lambda n, v: number(n, v, 1e-6, 1e6))

    def checked(self) -> ResampleSettings:
        if canonical(self.phase, PHASES) is None:  # said as resample's options have always said it
            raise ParameterError(f"{{phase}} is one of {', '.join(PHASES)}, not {self.phase!r}", "phase")
        return super().checked()
