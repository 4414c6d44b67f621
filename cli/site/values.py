"""Values as the pages show them: unknown as '-', shares as percentages,
durations in seconds and in the unit a person reads (`8,597,585 s (99.5 d)`),
and as JSON's plain types (archive/kernel/plain.py, as every --json writes them),
so the catalog's cells carry the same values `wla ls --json` prints."""
from __future__ import annotations

import json
from typing import Any

from wla.archive.kernel.plain import plain
from wla.archive.kernel.units import human, seconds

PERCENT = {"utilization", "ceiling_share", "share", "proc_seconds_share"}
# Numbers that name something (a job, a line, a user): written without thousands separators.
PLAIN_NUMBERS = {"line_no", "job", "user", "period", "step", "unix_start_time", "time_zone", "rule_version",
                 "first_job", "last_job", "week", "day"}
# Durations and instants of the log, in seconds.
SECONDS = {"peak_at", "max_runtime", "median_run", "build_seconds"}
# What a count counts, where its label does not say it: written after the number in a list of facts.
UNITS = {"machine_size": "processors", "max_procs": "processors", "worst_excess": "processors",
         "ceiling": "processors", "median_procs": "processors", "max_nodes": "nodes", "file_size": "bytes",
         "data_size": "bytes", "max_memory": "KB", "months": "months", "flurry_weeks": "user-weeks",
         "large_flurry_weeks": "user-weeks", "dominant_users": "users",
         "peak_at": "after the log's start"}


def as_json(value: Any) -> str:
    """The JSON text of a plain value: what a cell's data-value holds."""
    return json.dumps(plain(value), ensure_ascii=False)


def sort_key(value: Any) -> str:
    """What a sortable cell sorts by: the value itself; '' for unknown (sorted last)."""
    value = plain(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def duration(value: Any) -> str:
    """Seconds as `8,597,585 s (99.5 d)`; under a second as `0.42 s`."""
    value = plain(value)
    if value is None:
        return "-"
    return seconds(value) if abs(value) >= 1 or value == 0 else human(value)


def short_duration(value: Any) -> str:
    """Seconds in the one unit a person reads (`99.5 d`, `12 s`), for a table cell."""
    value = plain(value)
    return "-" if value is None else human(value)


def shown(value: Any, column: str = "") -> str:
    """The cell's text."""
    value = plain(value)
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if column in PERCENT and isinstance(value, (int, float)):
        return f"{value:.1%}"
    if column in SECONDS and isinstance(value, (int, float)):
        return duration(value)
    if isinstance(value, float):
        if column == "months":
            return f"{value:.1f}"
        return f"{int(value):,}" if value.is_integer() and abs(value) < 1e15 else f"{value:,.2f}"
    if isinstance(value, int):
        return str(value) if column in PLAIN_NUMBERS else f"{value:,}"
    return value


def with_unit(value: Any, column: str = "") -> str:
    """The value as `shown`, then what it counts when its label does not say
    it (`240 processors`, `51,330 bytes`); unknown stays `-`."""
    text, value, unit = shown(value, column), plain(value), UNITS.get(column)
    if not unit or text == "-" or isinstance(value, bool) or not isinstance(value, (int, float)):
        return text
    if value == 1 and column not in SECONDS and unit.endswith("s") and column != "months":
        unit = unit[:-1]  # 1 processor, 1 user-week
    return f"{text} {unit}"
