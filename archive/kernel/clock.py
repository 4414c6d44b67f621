"""A log's clock: submit seconds, days and weeks of it, and the calendar.

SWF times are seconds from the log's UnixStartTime; its TimeZoneString says
whose wall clock the log kept. Day k of a log is [k*DAY, (k+1)*DAY) of that
clock, week k is [k*WEEK, (k+1)*WEEK), as every report and plot counts them
(and the SQL macro log_week, schema/macros.sql).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

DAY = 86400
WEEK = 7 * DAY


@dataclass(frozen=True)
class LogClock:
    """What turns dates and times of day into a log's submit seconds."""

    unix_start_time: int | None = None
    tz: str | None = None  # None: UTC


def log_clock(unix_start_time: int | None = None, tz: str | None = None) -> LogClock:
    """A LogClock from catalog values, where pandas may hand over NA for unknown."""
    start = None if _unknown(unix_start_time) else int(unix_start_time)
    zone = None if _unknown(tz) else str(tz)
    return LogClock(start, zone)


def local_time(clock: LogClock, seconds: float) -> datetime | None:
    """The log's local wall-clock time at a submit-clock instant, if the start is known."""
    if clock.unix_start_time is None:
        return None
    return datetime.fromtimestamp(clock.unix_start_time + seconds, ZoneInfo(clock.tz or "UTC"))


def local_date(clock: LogClock, seconds: float) -> str | None:
    when = local_time(clock, seconds)
    return None if when is None else when.date().isoformat()


def _unknown(value: object) -> bool:
    """None, NaN, or pandas' NA or NaT (without importing pandas)."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, float) and value != value
