"""Header comments: `; Label: value` lines and the log facts they state."""
from __future__ import annotations

import re
from typing import NamedTuple

_LABELLED = re.compile(r"^\s*;\s*([A-Za-z][A-Za-z0-9_]*)\s*:\s*(.*?)\s*$", re.S)
_LEADING_INT = re.compile(r"^\s*([+-]?\d+)")


class HeaderLine(NamedTuple):
    line_no: int
    text: str  # the line as written, without its line break
    label: str | None  # None for a comment without a label
    value: str | None


def parse_header_line(line_no: int, text: str) -> HeaderLine:
    m = _LABELLED.match(text)
    if m is None:
        return HeaderLine(line_no, text, None, None)
    return HeaderLine(line_no, text, m.group(1), m.group(2))


def leading_integer(value: str | None) -> int | None:
    """The integer a header value starts with: `338 (batch partition; 512
    total)` is 338. One of more than 30 digits is returned as +-10**30, beyond
    every range the archive checks (int() refuses very long digit strings)."""
    if value is None:
        return None
    m = _LEADING_INT.match(value)
    if m is None:
        return None
    text = m.group(1)
    sign = -1 if text[0] == "-" else 1
    digits = text.lstrip("+-").lstrip("0") or "0"
    return sign * 10**30 if len(digits) > 30 else sign * int(digits)


def leading_int(value: str | None) -> int | None:
    """The integer a header value starts with, when it fits 64 bits."""
    number = leading_integer(value)
    # Beyond 64 bits it is no fact the archive can use; the line keeps it.
    return number if number is not None and -(2**63) <= number < 2**63 else None


# Header labels stored as columns of the logs table: label -> (column, kind).
# Every header line, these included, is also kept verbatim in header_lines.
KNOWN_LABELS: dict[str, tuple[str, str]] = {
    "version": ("swf_version", "text"),
    "computer": ("computer", "text"),
    "installation": ("installation", "text"),
    "conversion": ("conversion", "text"),
    "maxjobs": ("max_jobs", "int"),
    "maxrecords": ("max_records", "int"),
    "preemption": ("preemption", "text"),
    "unixstarttime": ("unix_start_time", "int"),
    "timezone": ("time_zone", "int"),
    "timezonestring": ("time_zone_string", "text"),
    "starttime": ("start_time", "text"),
    "endtime": ("end_time", "text"),
    "maxnodes": ("max_nodes", "int"),
    "maxprocs": ("max_procs", "int"),
    "maxruntime": ("max_runtime", "int"),
    "maxmemory": ("max_memory", "int"),
    "allowoveruse": ("allow_overuse", "text"),
    "maxqueues": ("max_queues", "int"),
    "maxpartitions": ("max_partitions", "int"),
}
HEADER_COLUMNS: tuple[str, ...] = tuple(c for c, _ in KNOWN_LABELS.values())


def header_facts(lines: list[HeaderLine]) -> dict[str, object]:
    """The logs-table columns a header states; the first line of a label wins."""
    facts: dict[str, object] = {c: None for c in HEADER_COLUMNS}
    for h in lines:
        if h.label is None:
            continue
        known = KNOWN_LABELS.get(h.label.lower())
        if known is None or facts[known[0]] is not None:
            continue
        column, kind = known
        facts[column] = leading_int(h.value) if kind == "int" else (h.value or None)
    size, source = None, None
    if facts["max_procs"] is not None and facts["max_procs"] > 0:
        size, source = facts["max_procs"], "MaxProcs"
    elif facts["max_nodes"] is not None and facts["max_nodes"] > 0:
        size, source = facts["max_nodes"], "MaxNodes"
    facts["machine_size"] = size
    facts["machine_size_source"] = source
    return facts
