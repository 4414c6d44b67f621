"""The Python part of the rule `set` (schema/rules/set.sql): the field and
the value checked before anything is written, and a predicate that selects
no job refused, each in one line; the SQL does the setting.

A value is one the field can hold: -1 (unknown, for every field but the job
number) or a value of the field's range, whole for the counted fields, and
within 2**53 for the fields stored as DOUBLE (beyond it no DOUBLE is exact).
"""
from __future__ import annotations

import math

import pandas as pd

from ..kernel.clock import log_clock
from ..kernel.errors import UsageError
from ..kernel.progress import Parts
from ..kernel.statements import text
from ..store.predicate import predicate_condition
from ..swf.fields import COLUMNS, EXACT_DOUBLE_LIMIT, FIELDS, INT64_MAX

# field -> (lowest value, whether the lowest is left out); every field has no
# upper bound but its storage's, and every field but job may be -1.
LOWEST: dict[str, tuple[float, bool]] = {
    "job": (1, False), "submit": (0, False), "wait": (0, False), "run": (0, False),
    "procs": (1, False), "cpu": (0, False), "mem": (0, True), "req_procs": (1, False),
    "req_time": (0, True), "req_mem": (0, True), "status": (0, False), "user_id": (0, False),
    "group_id": (0, False), "app_id": (0, False), "queue_id": (0, False), "partition_id": (0, False),
    "prev_job": (1, False), "think": (0, False),
}
HIGHEST = {"status": 5}  # SWF's codes: 0 failed, 1 completed, 2-4 checkpointed parts, 5 cancelled
_INTEGER = {f.column: f.integer for f in FIELDS}


def field_range(field: str) -> str:
    """The values `field` may be set to, as an error says them."""
    low, left_out = LOWEST[field]
    kind = "a whole number" if _INTEGER[field] else "a number"
    high = HIGHEST.get(field, INT64_MAX if _INTEGER[field] else EXACT_DOUBLE_LIMIT)
    if field in HIGHEST:
        span = f"in {'(' if left_out else '['}{low:g}, {high:g}]"
    else:
        span = f"{'>' if left_out else '>='} {low:g}" + ("" if _INTEGER[field] else " and at most 2^53")
    unknown = "" if field == "job" else "-1 (unknown) or "
    return f"{unknown}{kind} {span}"


def check_setting(field: object, value: object) -> tuple[str, float | int]:
    """The field and the value a step sets, checked; the value whole for a
    counted field."""
    if not isinstance(field, str) or field not in COLUMNS:
        raise UsageError(f"field {field!r} is not an SWF field; one of: {', '.join(COLUMNS)}")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UsageError(f"value {value!r} for {field} is not a finite number")
    low, left_out = LOWEST[field]
    high = HIGHEST.get(field, INT64_MAX if _INTEGER[field] else EXACT_DOUBLE_LIMIT)
    unknown = value == -1 and field != "job"
    whole = float(value).is_integer()
    inside = (value > low if left_out else value >= low) and value <= high
    if not unknown and (not inside or (_INTEGER[field] and not whole)):
        raise UsageError(f"value {value!r} cannot be {field}: {field} is {field_range(field)}")
    return field, int(value) if _INTEGER[field] else value


def set_params(params: dict, facts: dict) -> dict:
    """The step's parameters, its field and value checked."""
    field, value = check_setting(params.get("field"), params.get("value"))
    return {**params, "field": field, "value": value}


def set_drops(jobs: pd.DataFrame, params: dict, facts: dict,
              progress: Parts | None = None) -> tuple[pd.DataFrame, str, dict]:
    """No drops; the note counts the jobs the predicate selects, and none is an error."""
    import duckdb

    clock = log_clock(facts.get("unix_start_time"), facts.get("tz"))
    con = duckdb.connect()
    try:
        con.register("input", jobs)
        from sqlglot import exp

        query = exp.select("count(*)").from_("input").where(predicate_condition(params["where"], clock))
        selected = con.execute(text(query)).fetchall()[0][0]
    finally:
        con.close()
    if selected == 0:
        raise UsageError(f"the predicate {params['where']!r} selects no job of the {len(jobs):,} "
                         f"the step reads: nothing to set")
    jobs_word = "job" if selected == 1 else "jobs"
    note = f"{params['field']} set to {params['value']} for {selected:,} {jobs_word} ({params['where']})"
    return pd.DataFrame({"line_no": pd.Series([], dtype="int64"), "reason": pd.Series([], dtype=str)}), note, {}
