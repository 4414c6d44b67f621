"""The 18 SWF fields: their column names and how each is stored.

Counts and serial numbers are stored as BIGINT, so every 64-bit value is kept
exactly; times and memory are DOUBLE because logs write them with fractions.
"""
from __future__ import annotations

from typing import NamedTuple


class Field(NamedTuple):
    number: int  # 1-based position in a job line
    column: str  # column name in the archive
    title: str  # the field's name in the SWF definition
    integer: bool  # stored as BIGINT (True) or DOUBLE (False)


FIELDS: tuple[Field, ...] = (
    Field(1, "job", "job number", True),
    Field(2, "submit", "submit time", False),
    Field(3, "wait", "wait time", False),
    Field(4, "run", "run time", False),
    Field(5, "procs", "allocated processors", True),
    Field(6, "cpu", "average CPU time used", False),
    Field(7, "mem", "used memory", False),
    Field(8, "req_procs", "requested processors", True),
    Field(9, "req_time", "requested time", False),
    Field(10, "req_mem", "requested memory", False),
    Field(11, "status", "status", True),
    Field(12, "user_id", "user id", True),
    Field(13, "group_id", "group id", True),
    Field(14, "app_id", "executable number", True),
    Field(15, "queue_id", "queue number", True),
    Field(16, "partition_id", "partition number", True),
    Field(17, "prev_job", "preceding job number", True),
    Field(18, "think", "think time", False),
)

NFIELDS = len(FIELDS)
COLUMNS: tuple[str, ...] = tuple(f.column for f in FIELDS)
INT_FIELDS: tuple[int, ...] = tuple(i for i, f in enumerate(FIELDS) if f.integer)
FLOAT_FIELDS: tuple[int, ...] = tuple(i for i, f in enumerate(FIELDS) if not f.integer)

# Integers beyond this magnitude have no exact DOUBLE; such a value in a DOUBLE
# field is refused rather than rounded.
EXACT_DOUBLE_LIMIT = 2**53
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
