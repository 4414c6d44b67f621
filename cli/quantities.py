"""The unit of each named figure the commands print (a simulation's metrics,
a workload's statistics), and how the text shows it: seconds with thousands
separators and, when large, in human units too; fractions as percentages
(--json keeps seconds and fractions 0..1). One place, so that `simulate`,
`shake`, `sweep`, `compare`, `stats` and `validate` say a figure alike."""
from __future__ import annotations

from wla.archive.kernel.units import human

SECONDS, PERCENT, PER_HOUR = "s", "%", "jobs/h"

# By the name's start or whole name: the first that matches gives the unit.
_BY_NAME = (
    ("wait", SECONDS), ("response", SECONDS), ("makespan", SECONDS), ("bounded_slowdown", ""),
    ("utilization", PERCENT), ("throughput_per_hour", PER_HOUR), ("measured_jobs", "jobs"),
    ("stack_depth", ""), ("bins_", PERCENT), ("hurst", ""), ("users", "users"), ("jobs_per_user", "jobs"),
    ("sessions_per_user", "sessions"), ("session_length", SECONDS), ("cpu_work_per_user", "proc·s"),
    ("first_arrival", SECONDS), ("last_departure", SECONDS), ("activity_period", SECONDS),
    ("weekend_share", PERCENT), ("daytime_share", PERCENT), ("unaccommodated_", PERCENT), ("jobs", "jobs"),
    ("weekly_variance_ratio", ""),
)


def unit(name: str) -> str:
    """The unit of the figure `name` ('' for a pure number, as a slowdown)."""
    return next((u for start, u in _BY_NAME if name.startswith(start)), "")


def labelled(name: str) -> str:
    """`name (unit)` for a table's row or column; `name` for a pure number."""
    u = unit(name)
    return f"{name} ({u})" if u else name


def number(x: float | None) -> str:
    """A figure of any size: four significant digits, whole with thousands
    separators from 100 up; unknown is `-`."""
    if x is None or x != x:
        return "-"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.4g}"


def percent(x: float) -> str:
    """A fraction as a percentage: one decimal from 1% up (82.5%), two
    significant digits below it, so that a small difference or spread is
    not shown as 0.0% (-0.53%, 0.0054%); exactly 0 is 0.0%."""
    v = 100 * x
    return f"{v:.1f}%" if v == 0 or abs(v) >= 1 or abs(v) < 1e-4 else f"{v:.2g}%"


def cell(name: str, x: float | None) -> str:
    """The figure in a table whose row or column says the unit: a fraction as
    a percentage, anything else as `number` writes it."""
    if x is None or x != x:
        return "-"
    return percent(x) if unit(name) == PERCENT else number(x)


def said(name: str, x: float | None) -> str:
    """The figure with its unit, in a line of its own: `8,597,585 s (99.5 d)`,
    `82.5%`, `12.3 jobs/h`, `1.04`."""
    if x is None or x != x:
        return "-"
    u = unit(name)
    if u == PERCENT:
        return percent(x)
    if u == SECONDS and abs(x) >= 3600:
        return f"{number(x)} s ({human(x)})"
    return f"{number(x)} {u}".rstrip()
