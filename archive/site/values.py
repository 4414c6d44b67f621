"""Values as the pages show them: unknown as '-', shares as percentages,
and as JSON's plain types (dates as YYYY-MM-DD), so the catalog's cells
carry the same values `wla ls --json` prints."""
from __future__ import annotations

import datetime as dt
import json
import math
from typing import Any

PERCENT = {"utilization", "ceiling_share", "share", "proc_seconds_share"}
# Numbers that name something (a job, a line, a user): written without thousands separators.
PLAIN_NUMBERS = {"line_no", "job", "user", "period", "step", "unix_start_time", "time_zone", "rule_version",
                 "first_job", "last_job", "week", "day"}


def plain(value: Any) -> Any:
    """`value` as None, bool, int, float, str (numpy and pandas values too)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if type(value).__name__ in ("NaTType", "NAType"):
        return None
    if hasattr(value, "item") and not isinstance(value, (dt.date, dt.datetime)):  # numpy scalars
        return plain(value.item())
    if hasattr(value, "to_pydatetime"):  # pandas Timestamp
        value = value.to_pydatetime()
    if isinstance(value, dt.datetime):
        midnight = value.tzinfo is None and value.time() == dt.time()  # a day, as the catalog's dates
        return value.date().isoformat() if midnight else value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


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
