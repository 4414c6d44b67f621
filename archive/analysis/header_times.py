"""The times a header writes by hand (`StartTime`, `EndTime`): read as
instants, and instants written the same way, so that a claim and the data
read alike (`Fri Apr 24 18:11:04 PDT 1998`)."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import NamedTuple
from zoneinfo import ZoneInfo

# [weekday] month day hh:mm:ss [zone] year, as the archive's headers write them.
_WRITTEN = re.compile(r"^\s*(?:[A-Za-z]{3}\s+)?([A-Za-z]{3})\s+(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})"
                      r"\s+(?:(\S+)\s+)?(\d{4})\s*$")
# GMT-6, UTC+1, GMT: a fixed offset in whole hours
_OFFSET = re.compile(r"^(?:GMT|UTC)(?:([+-]\d{1,2}))?$")
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]


class HeaderTime(NamedTuple):
    epoch: int  # seconds since 1970 UTC
    zone_known: bool  # False: no offset and no log time zone; read as UTC


def read_time(text: str | None, tz: str | None) -> HeaderTime | None:
    """The instant a header time names, None if it is not a time. A written
    offset (GMT-6) wins; else the wall clock is the log's time zone, the
    zone's abbreviation (PDT or PST) choosing between an hour that occurs
    twice; with neither, the clock is read as UTC and `zone_known` is False."""
    m = _WRITTEN.match(text or "")
    if m is None or m.group(1).lower() not in _MONTHS:
        return None
    month, day, hour, minute, second, zone, year = m.groups()
    try:
        wall = datetime(int(year), _MONTHS.index(month.lower()) + 1, int(day), int(hour), int(minute), int(second))
    except ValueError:
        return None
    offset = _OFFSET.match(zone or "")
    if offset is not None:
        hours = int(offset.group(1) or 0)
        return HeaderTime(int(wall.replace(tzinfo=timezone(timedelta(hours=hours))).timestamp()), True)
    if tz is None:
        return HeaderTime(int(wall.replace(tzinfo=timezone.utc).timestamp()), False)
    where = ZoneInfo(tz)
    folds = [wall.replace(tzinfo=where, fold=f) for f in (0, 1)]
    chosen = next((w for w in folds if w.tzname() == zone), folds[0])
    return HeaderTime(int(chosen.timestamp()), True)


def write_time(epoch: float, tz: str | None) -> str:
    """An instant as headers write it, in the log's time zone (else UTC)."""
    when = datetime.fromtimestamp(epoch, ZoneInfo(tz) if tz else timezone.utc)
    return when.strftime("%a %b %d %H:%M:%S %Z %Y")
