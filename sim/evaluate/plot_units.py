"""What each metric of a study, each statistic of a validation and each
swept parameter is drawn in: its words and its unit on an axis. Durations
take the unit their size reads best in (h, d), shares are drawn as %, so
the shake, sweep and validate figures say the same thing the same way."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# Kinds of unit that depend on the values: seconds drawn in min, h or d;
# processor-seconds likewise; a fraction drawn as %.
DURATION, WORK, SHARE = "duration", "work", "share"

METRICS = {
    "wait_mean": ("mean wait", DURATION), "wait_median": ("median wait", DURATION),
    "wait_p95": ("95th percentile of wait", DURATION), "response_mean": ("mean response time", DURATION),
    "bounded_slowdown_mean": ("mean bounded slowdown", "ratio"),
    "bounded_slowdown_median": ("median bounded slowdown", "ratio"),
    "bounded_slowdown_p95": ("95th percentile of bounded slowdown", "ratio"),
    "utilization": ("utilization", SHARE), "utilization_measured": ("measured utilization", SHARE),
    "throughput_per_hour": ("throughput", "jobs/h"), "makespan": ("makespan", DURATION),
    "measured_jobs": ("measured jobs", "jobs"),
}
COUNTS = {"jobs", "users", "processors"}  # units that count: whole ticks
UNITLESS = {"ratio", "no unit", "log10 R/S", "0 no, 1 yes", "unit unknown"}  # a legend's number stands alone

_ATTRIBUTES = {"run": "run time", "req_time": "requested time", "procs": "processors"}
_USERS = {"jobs_per_user": ("jobs per user", "jobs"), "sessions_per_user": ("sessions per user", "sessions"),
          "session_length": ("session length", DURATION), "cpu_work_per_user": ("CPU work per user", WORK),
          "first_arrival": ("first arrival after the log's start", DURATION),
          "last_departure": ("last departure after the log's start", DURATION),
          "activity_period": ("activity period", DURATION)}


def _statistics() -> dict[str, tuple[str, str]]:
    out = {}
    for key, words in _ATTRIBUTES.items():
        out[f"stack_depth_{key}"] = (f"mean stack depth of {words}", "stack positions")
        out[f"bins_median_{key}"] = (f"median share of a day's jobs in its top {words} bin", SHARE)
        out[f"bins_mean_{key}"] = (f"mean share of a day's jobs in its top {words} bin", SHARE)
    out["hurst"] = ("Hurst parameter H", "no unit")
    out["hurst_intercept"] = ("intercept of the pox plot's line", "log10 R/S")
    out["users"] = ("users", "users")
    for key, (words, unit) in _USERS.items():
        out[f"{key}_mean"] = (f"{words}, mean", unit)
        out[f"{key}_median"] = (f"{words}, median", unit)
    out["weekend_share"] = ("share of jobs submitted at the weekend", SHARE)
    out["daytime_share"] = ("share of jobs submitted from 8:00 to 18:00", SHARE)
    for period, words in (("day", "days"), ("week", "weeks"), ("two_weeks", "two-week intervals"),
                          ("month", "30-day intervals")):
        out[f"unaccommodated_{period}"] = (f"{words} given more work than the machine", SHARE)
    out["weekly_variance_ratio"] = ("weekly work's variance over the users' own", "ratio")
    out["jobs"] = ("jobs", "jobs")
    out["saturated"] = ("saturated", "0 no, 1 yes")
    return out


STATISTICS = _statistics() | METRICS

SWEPT = {"load": "load factor (×)", "badness": "badness factor F (×)", "procs": "machine size (processors)",
         "rb_npw": "rare-behavior users per week (users/week)", "runtime_scale": "run times scaled by (×)",
         "size_scale": "job sizes scaled by (×)",
         "degree": "degree of shaking (s, or processors for size)", "jobs": "jobs shaken (%)"}


@dataclass(frozen=True)
class Axis:
    """An axis of one metric or statistic: its label with the unit, what the
    values are divided by to be drawn in it, and whether it counts."""

    label: str
    divisor: float
    counts: bool
    unit: str

    def text(self, value: float) -> str:
        """`value` (as stored) in this axis's unit, for a legend: `5.8 h`, `81.9%`."""
        from wla.archive.kernel.plot import plain

        number = plain(value / self.divisor)
        if self.unit == "%":
            return f"{number}%"
        return number if self.unit in UNITLESS else f"{number} {self.unit}"


def axis(name: str, values: Iterable[float]) -> Axis:
    """The axis of metric or statistic `name` for these `values` (seconds,
    fractions: as stored); an unknown name is drawn as it is, its unit unknown."""
    from wla.archive.kernel.plot import duration_unit

    words, kind = STATISTICS.get(name, (name.replace("_", " "), "unit unknown"))
    unit, divisor = kind, 1.0
    if kind in (DURATION, WORK):
        unit, divisor = duration_unit(values)
        unit = f"processor-{unit}" if kind == WORK else unit
    elif kind == SHARE:
        unit, divisor = "%", 0.01
    return Axis(f"{words} ({unit})", divisor, unit in COUNTS, unit)


def metric_words(name: str) -> str:
    """A metric's or statistic's words, without the unit: for titles."""
    return STATISTICS.get(name, (name.replace("_", " "), ""))[0]
