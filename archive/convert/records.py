"""Raw accounting records (CSV, Slurm sacct) into an SWF log, and into the archive.

Every job goes through the same steps, in this order (docs/pages/definitions/cleaning.md sections 1
and 2):

1. the recovery table computes arrival, wait and run from the raw times
   (recovery.py);
2. normalization: negative wait and run times, zero counts and sizes;
3. jobs are sorted by arrival, stably (records with the same arrival keep
   their order in the file); a job whose arrival cannot be known goes last,
   with submit time -1;
4. users, groups, applications, queues and partitions become serial numbers
   1, 2, ... in order of first appearance in that sorted order; the names are
   dropped and the mapping is kept nowhere;
5. jobs are numbered from 1, and submit times are relative to the earliest
   arrival, the header's UnixStartTime (rounded down to a whole second when
   the earliest arrival has a fraction).

The header has no conversion date, so one input always gives the same bytes.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import os
import re
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import pandas as pd

from ... import __version__
from ..kernel.errors import InputError, UsageError
from ..kernel.names import check_log_name
from ..kernel.output import write_bytes
from ..kernel.ranges import MAX_PROCESSORS, whole
from ..store.file import Archive
from ..store.ingest import IngestResult, ingest
from ..swf.fields import COLUMNS, FIELDS
from ..swf.header import header_facts, parse_header_line
from ..swf.instants import job_problem
from ..swf.rawfile import read_text
from .recovery import (
    CLOCK_ALLOWANCE,
    RawJob,
    normalize_span,
    parse_decimal,
    parse_duration,
    parse_time,
    parse_whole,
    positive_or_unknown,
    recover,
)
from .sacct import read_sacct

FORMATS = ("csv", "sacct")


@dataclass
class ConvertedLog:
    text: str  # the SWF file
    jobs: pd.DataFrame  # the 18 fields of each job as written, -1 for unknown
    facts: dict[str, object]  # what ingest reads from the header (logs-table columns)
    warnings: list[str]  # what the conversion dropped or changed; also header Notes


# -- CSV ------------------------------------------------------------------------

# Column name (lower case, words separated by one space) -> RawJob attribute.
CSV_COLUMNS: dict[str, str] = {
    "arrival": "arr", "start": "start", "end": "end", "run": "run", "cpu": "cpu",
    "status": "status", "user": "user", "group": "group", "application": "app",
    "queue": "queue", "partition": "partition", "processors": "procs",
    "requested processors": "req_procs", "requested time": "req_time",
    "memory": "mem", "requested memory": "req_mem",
}
_TIMES = {"arr", "start", "end"}
_DURATIONS = {"run", "cpu", "req_time"}
_COUNTS = {"procs", "req_procs"}
_SIZES = {"mem", "req_mem"}
STATUS_WORDS = {"completed": 1, "success": 1, "failed": 0, "cancelled": 5, "canceled": 5}
SWF_STATUS = range(-1, 6)


def column_key(name: str) -> str:
    """`Requested_Processors`, `requested-processors` and `requested processors` are one name."""
    return re.sub(r"[\s_-]+", " ", name.strip().lower())


def _status(text: str) -> int:
    word = STATUS_WORDS.get(text.lower())
    if word is not None:
        return word
    try:
        code = parse_whole(text)
    except ValueError:
        code = None
    if code not in SWF_STATUS:
        raise ValueError("not a status (an SWF code -1..5, or completed, success, failed, cancelled)")
    return code


def _csv_value(attr: str, cell: str, zone: tzinfo) -> object:
    """A cell's value. -1, SWF's unknown, is missing in every column but the
    three times (where it is an instant)."""
    if attr in _TIMES:
        return parse_time(cell, zone)
    if attr in _DURATIONS:
        value = parse_duration(cell)
    elif attr in _COUNTS:
        value = parse_whole(cell)
    elif attr in _SIZES:
        value = parse_decimal(cell)
    elif attr == "status":
        value = _status(cell)
    else:
        return None if cell == "-1" else cell
    return None if value == -1 else value


def read_csv(path: str, lines: list[str], zone: tzinfo) -> list[RawJob]:
    """One record per row; the header names the columns (see CSV_COLUMNS)."""
    reader = csv.reader(lines)
    header = next(reader, None)
    while header is not None and not any(c.strip() for c in header):
        header = next(reader, None)
    if header is None:
        raise InputError(path, None, "empty file: no header row")
    head_line = reader.line_num
    attrs = []
    for name in header:
        attr = CSV_COLUMNS.get(column_key(name))
        if attr is None:
            raise InputError(path, head_line, f"unknown column {name.strip()!r}; accepted: "
                             + ", ".join(CSV_COLUMNS))
        if attr in attrs:
            raise InputError(path, head_line, f"column {column_key(name)!r} appears twice")
        attrs.append(attr)
    jobs = []
    for row in reader:
        if not any(c.strip() for c in row):
            continue
        line = reader.line_num
        if len(row) != len(attrs):
            raise InputError(path, line, f"{len(row)} cells, the header has {len(attrs)}",
                             ",".join(row))
        job = RawJob(line)
        for attr, name, cell in zip(attrs, header, row):
            cell = cell.strip()
            if not cell:
                continue
            try:
                setattr(job, attr, _csv_value(attr, cell, zone))
            except ValueError as e:
                raise InputError(path, line, f"column {name.strip()}: {e}", cell) from None
        jobs.append(job)
    return jobs


# -- from raw records to SWF ---------------------------------------------------------

_NAMES = ("user", "group", "app", "queue", "partition")


@dataclass
class _Job:
    arr: Decimal | None
    wait: Decimal | None
    run: Decimal | None
    raw: RawJob


def _normalized(raw: list[RawJob], notes: list[str]) -> list[_Job]:
    """Recovery, then normalization, counting what normalization changed."""
    spans = {"to 0": 0, "to -1": 0}
    zeros = 0
    stand_in = 0  # jobs whose arrival is their start, or their end less their run
    jobs = []
    for r in raw:
        t = recover(r)
        if r.arr is None and t.arr is not None:
            stand_in += 1
        times = []
        for v in (t.wait, t.run):
            n = normalize_span(v)
            if n != v:
                spans["to -1" if n is None else "to 0"] += 1
            times.append(n)
        for attr in ("procs", "req_procs", "mem", "req_mem", "req_time"):
            v = getattr(r, attr)
            if positive_or_unknown(v) is None and v is not None:
                zeros += 1
                setattr(r, attr, None)
        jobs.append(_Job(t.arr, times[0], times[1], r))
    if spans["to -1"] or spans["to 0"]:
        notes.append(f"negative wait or run times: {spans['to 0']} set to 0 (clock skew), "
                     f"{spans['to -1']} below -{CLOCK_ALLOWANCE} s set to -1")
    if zeros:
        notes.append(f"{zeros} zero processor, memory or requested-time values set to -1")
    if stand_in:
        notes.append(f"{stand_in} jobs have no arrival time: it is taken from their start, "
                     "and their wait is unknown (-1)")
    return jobs


def _check_times(path: str, job: _Job) -> None:
    """Arrival, start and end inside the calendar range every command can
    date (instants.py), as ingest will require of the log; refused at the
    record's line otherwise."""
    if job.arr is None:
        return
    unknown = Decimal(-1)  # (normalized wait and run are never negative)
    problem = job_problem(job.arr, unknown if job.wait is None else job.wait,
                          unknown if job.run is None else job.run)
    if problem is not None:
        raise InputError(path, job.raw.line, problem.replace("submit", "arrival"))


def _number(v: object) -> str:
    """SWF text that ingest reads back as exactly this value: whole numbers
    without '.0', fractions in their shortest round-trip form."""
    if v is None:
        return "-1"
    if isinstance(v, int):
        return str(v)
    if v == v.to_integral_value():
        return str(int(v))
    return np.format_float_positional(float(v), unique=True, trim="-")


def _swf_rows(jobs: list[_Job]) -> tuple[list[list[object]], Decimal | None]:
    """The 18 fields of each job in file order, and the UnixStartTime."""
    order = sorted(range(len(jobs)), key=lambda i: (jobs[i].arr is None, jobs[i].arr or 0))
    known = [j.arr for j in jobs if j.arr is not None]
    origin = Decimal(int(min(known).to_integral_value(rounding="ROUND_FLOOR"))) if known else None
    serials: dict[str, dict[str, int]] = {k: {} for k in _NAMES}
    rows = []
    for number, i in enumerate(order, start=1):
        j, r = jobs[i], jobs[i].raw
        ids = []
        for k in _NAMES:
            name = getattr(r, k)
            ids.append(None if name is None else serials[k].setdefault(name, len(serials[k]) + 1))
        submit = j.arr - origin if j.arr is not None else None
        rows.append([number, submit, j.wait, j.run, r.procs, r.cpu, r.mem, r.req_procs,
                     r.req_time, r.req_mem, r.status, *ids, None, None])
    return rows, origin


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def human_time(epoch: int, zone: tzinfo) -> str:
    """As the archive's headers write it, `Fri Apr 24 18:11:04 PDT 1998`,
    with English names whatever the locale."""
    t = datetime.fromtimestamp(epoch, zone)
    return (f"{_DAYS[t.weekday()]} {_MONTHS[t.month - 1]} {t.day:02d} {t:%H:%M:%S} "
            f"{t.tzname()} {t.year}")


def _header(rows: list[list[object]], jobs: list[_Job], origin: Decimal | None, source: str,
            fmt: str, tz: str | None, zone: tzinfo, max_procs: int | None,
            computer: str | None, notes: list[str]) -> list[str]:
    lines = ["; Version: 2.2"]
    if computer:
        lines.append(f"; Computer: {computer}")
    lines.append(f"; Conversion: wla {__version__} from {source} ({fmt})")
    lines += [f"; MaxJobs: {len(rows)}", f"; MaxRecords: {len(rows)}"]
    if origin is not None:
        lines.append(f"; UnixStartTime: {origin}")
    if tz:
        lines.append(f"; TimeZoneString: {tz}")
    if origin is not None:
        lines.append(f"; StartTime: {human_time(int(origin), zone)}")
        lines.append(f"; EndTime: {human_time(int(_last_event(jobs)), zone)}")
    if max_procs is not None:
        lines.append(f"; MaxProcs: {max_procs}")
    lines.append("; Note: users, groups, applications, queues and partitions are numbered "
                 "in order of first appearance")
    lines += [f"; Note: {n}" for n in notes]
    return lines


def _last_event(jobs: list[_Job]) -> Decimal:
    """The latest end, or arrival where the end is unknown."""
    return max(j.arr + j.wait + j.run if j.wait is not None and j.run is not None else j.arr
               for j in jobs if j.arr is not None)


def _job_lines(rows: list[list[object]]) -> list[str]:
    cells = [[_number(v) for v in row] for row in rows]
    widths = [max(len(c[k]) for c in cells) for k in range(len(FIELDS))] if cells else []
    return [" ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells]


def _frame(rows: list[list[object]]) -> pd.DataFrame:
    data = {}
    for k, f in enumerate(FIELDS):
        values = [-1 if row[k] is None else row[k] for row in rows]
        data[f.column] = np.array([int(v) for v in values] if f.integer
                                  else [float(v) for v in values],
                                  dtype=np.int64 if f.integer else np.float64)
    return pd.DataFrame(data, columns=list(COLUMNS))


# -- reading the input ----------------------------------------------------------------


def _zone(tz: str | None) -> tzinfo:
    if tz is None:
        return timezone.utc
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageError(f"unknown time zone {tz!r} (use a tz database name such as US/Pacific)") from None


def _lines(path: str) -> list[str]:
    """The file's lines as text; `.gz` files are inflated. Read as SWF files
    are (rawfile.py): a regular file only, in bounded pieces."""
    data, _ = read_text(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(path, data[: e.start].count(b"\n") + 1, "not UTF-8 text") from None
    return list(io.StringIO(text, newline=""))  # \n, \r\n or \r; not str.splitlines' others


def to_swf(path: str | os.PathLike, fmt: str, *, tz: str | None = None,
           max_procs: int | None = None, computer: str | None = None) -> ConvertedLog:
    """An accounting file (`fmt` csv or sacct) as an SWF log. Naive times in
    the file are local times of `tz` (a tz database name), else UTC."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; one of: {', '.join(FORMATS)}")
    if max_procs is not None:
        max_procs = whole("max_procs", max_procs, 1, MAX_PROCESSORS)
    zone = _zone(tz)
    path = os.fspath(path)
    lines = _lines(path)
    notes: list[str] = []
    if fmt == "csv":
        raw = read_csv(path, lines, zone)
    else:
        log = read_sacct(path, lines, zone)
        raw, notes = log.jobs, list(log.warnings)
    if not raw:
        raise InputError(path, None, "no jobs")
    jobs = _normalized(raw, notes)
    for job in jobs:
        _check_times(path, job)
    rows, origin = _swf_rows(jobs)
    unknown = sum(j.arr is None for j in jobs)
    if unknown:
        notes.append(f"{unknown} jobs have no arrival time; they are last, with submit time -1")
    header = _header(rows, jobs, origin, Path(path).name, fmt, tz, zone, max_procs, computer, notes)
    text = "\n".join(header + _job_lines(rows)) + "\n"
    facts = header_facts([parse_header_line(i, t) for i, t in enumerate(header, start=1)])
    return ConvertedLog(text, _frame(rows), facts, notes)


# -- into the archive -------------------------------------------------------------------


def _default_name(path: str | os.PathLike) -> str:
    p = Path(path)
    if p.suffix.lower() == ".gz":
        p = p.with_suffix("")
    return p.stem or p.name


def convert(archive: Archive, path: str | os.PathLike, fmt: str, *, name: str | None = None,
            out: str | os.PathLike | None = None, tz: str | None = None,
            max_procs: int | None = None, replace: bool = False) -> IngestResult:
    """Convert an accounting file and ingest the SWF log: written to `out`,
    or to a temporary file whose name the archive never keeps (the log's
    file_name is the accounting file's path instead). The log's name is the
    file's name without its extension unless `name` is given. A failed ingest
    raises its error."""
    archive.require_writable()
    name = check_log_name(name if name is not None else _default_name(path))
    log = to_swf(path, fmt, tz=tz, max_procs=max_procs)
    source = os.fspath(path)
    with ExitStack() as stack:
        if out is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="wla-convert-"))
            target = Path(folder) / (re.sub(r"[\\/]", "_", name) + ".swf")
        else:
            target = Path(out)
        write_bytes(target, log.text.encode("utf-8"))
        [result] = ingest(archive, [target], name=name, replace=replace)
        if result.error is not None:
            raise result.error
        if out is None:
            if result.status in ("ingested", "replaced"):
                with archive.transaction() as con:
                    con.execute("UPDATE logs SET file_name = ? WHERE name = ?", [source, name])
            result = dataclasses.replace(result, path=source)
    return result
