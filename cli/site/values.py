"""Values as the pages show them: unknown as '-', shares as percentages,
and as JSON's plain types (archive/kernel/plain.py, as every --json writes them),
so the catalog's cells carry the same values `wla ls --json` prints."""
from __future__ import annotations

import json
from typing import Any

from wla.archive.kernel.plain import plain

PERCENT = {"utilization", "ceiling_share", "share", "proc_seconds_share"}
# Numbers that name something (a job, a line, a user): written without thousands separators.
PLAIN_NUMBERS = {"line_no", "job", "user", "period", "step", "unix_start_time", "time_zone", "rule_version",
                 "first_job", "last_job", "week", "day"}


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


def shown(value: Any, column: str = "") -> str:
    """The cell's text."""
    value = plain(value)
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if column in PERCENT and isinstance(value, (int, float)):
        return f"{value:.1%}"
    if isinstance(value, float):
        if column == "months":
            return f"{value:.1f}"
        return f"{int(value):,}" if value.is_integer() and abs(value) < 1e15 else f"{value:,.2f}"
    if isinstance(value, int):
        return str(value) if column in PLAIN_NUMBERS else f"{value:,}"
    return value
