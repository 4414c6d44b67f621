"""Reading one SWF file into columns, header lines and rejected lines.

Nothing here touches the archive: a file is read whole and checked before a
single row is written, so a refused file leaves the archive as it was. Every
time a kept job has falls inside the calendar range (instants.py), so every
later command can date it.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..kernel.errors import BeyondLimits, ExtendedFormatError, InputError, LineError
from .fields import COLUMNS
from .header import HeaderLine, leading_integer, parse_header_line
from .instants import inside, job_problem, out_of_range, outside
from .layout import Layout, detect, lines_as_written
from .limits import MAX_HEADER_LINES, MAX_REJECTS, MAX_VERBATIM_LINES
from .lineparse import parse_line
from .rawfile import read_text
from .tokenizer import IS_INT, SLOT, Scan

_SWF_SUFFIX = re.compile(r"(\.swf)?(\.gz)?$", re.I)


def log_name(path: str | os.PathLike) -> str:
    """A log's natural name: the file name without `.swf` / `.gz`."""
    return _SWF_SUFFIX.sub("", Path(path).name) or Path(path).name


@dataclass
class Reject:
    line_no: int
    text: str
    reason: str


@dataclass
class ParsedLog:
    path: str
    name: str
    file_size: int  # bytes of the file as stored (compressed or not)
    data_size: int  # bytes of the SWF text
    sha256: str  # of the SWF text, so a gzip'd and a plain copy are the same log
    header: list[HeaderLine]
    columns: dict[str, np.ndarray]  # line_no and the 18 fields, in file order
    rejects: list[Reject] = field(default_factory=list)
    blank_lines: int = 0
    lines: int = 0
    lenient: bool = False
    unix_start_time: int | None = None  # the header's, when inside the calendar range
    layout: Layout | None = None  # how the job lines are written (layout.py); None: not kept
    # (line number, bytes without the \n) of every line the layout and the
    # header lines do not give back: blank, rejected and irregular lines
    verbatim: list[tuple[int, bytes]] = field(default_factory=list)

    @property
    def jobs(self) -> int:
        return len(self.columns["line_no"])


def read_bytes(path: str | os.PathLike) -> tuple[bytearray, int]:
    """The SWF text of a file, gzip'd or not, and the file's own size (rawfile.py)."""
    return read_text(path)


def parse_bytes(path: str, data: bytes | bytearray, file_size: int, lenient: bool = False,
                name: str | None = None, sha: str | None = None) -> ParsedLog:
    """Parse SWF text. Strict: the first problem raises InputError. Lenient:
    bad lines become rejects and the rest is kept."""
    sha = sha or hashlib.sha256(data).hexdigest()
    layout = detect(data)
    scan = Scan(data, layout=layout.arrays())
    keep = np.ones(len(scan.job_line_all), dtype=bool)
    problems: list[Reject] = []
    header: list[HeaderLine] = []
    raw_header: dict[int, bytes] = {}
    try:
        for comments, slow in scan.batches():
            # (slow lines first: when the comments pass their limit, a bad
            # line before it is already known, and strict names that one)
            _slow_lines(path, data, slow, scan, keep, problems, lenient)
            _comment_lines(data, comments, header, problems, raw_header)
            _count_rejects(problems, lenient)
        ints, floats, job_line = scan.blocks()
        keep = keep[:scan.jobs]
        known = len(problems)
        start, header = _start_time(header, problems, lenient)
        if lenient or len(problems) == known:  # (strict with a refused start: refused anyway)
            problems.extend(_outside_calendar(data, floats, scan, keep, start, lenient))
        problems.extend(_duplicates(data, ints[SLOT[0]], scan, keep))
        _count_rejects(problems, lenient)
    except BeyondLimits as e:  # strict: an earlier bad line is still the one named
        beyond = Reject(e.line_no, e.text, e.reason)
        first = beyond if lenient else min(problems + [beyond], key=lambda p: p.line_no)
        raise InputError(path, first.line_no, first.reason, first.text) from None
    if not keep.any() and not problems:
        raise InputError(path, None, f"no job lines (only {len(header)} header lines)")
    if problems and not lenient:
        first = min(problems, key=lambda p: p.line_no)
        raise InputError(path, first.line_no, first.reason, first.text)

    every = bool(keep.all())
    columns: dict[str, np.ndarray] = {
        "line_no": (job_line if every else job_line[keep]).astype(np.int32)
    }
    for k, col in enumerate(COLUMNS):
        row = (ints if IS_INT[k] else floats)[SLOT[k]]  # a contiguous view
        columns[col] = row if every else row[keep]
    problems.sort(key=lambda p: p.line_no)
    verbatim = _verbatim(data, scan, keep[:scan.jobs], header, raw_header, problems, layout)
    return ParsedLog(path, name or log_name(path), file_size, len(data), sha, header, columns,
                     problems, scan.blank_lines, scan.lines, lenient, start,
                     layout if verbatim is not None else None, verbatim or [])


def _verbatim(data: bytes | bytearray, scan: Scan, keep: np.ndarray, header: list[HeaderLine],
              raw_header: dict[int, bytes], problems: list[Reject],
              layout: Layout) -> list[tuple[int, bytes]] | None:
    """The lines export could not rebuild, as written: kept job lines the
    layout does not render as they are, header lines that are not their text
    and the layout's line end, and the blank and rejected lines. None when
    they are more than MAX_VERBATIM_LINES: the log is then kept without its
    layout."""
    irregular = np.flatnonzero(scan.irregular[:scan.jobs] & keep)
    if len(irregular) + len(header) + len(problems) + scan.blank_lines > MAX_VERBATIM_LINES:
        return None
    out = []
    for j in irregular.tolist():
        a = int(scan.job_start[j])
        b = data.find(b"\n", a)
        out.append((int(scan.job_line_all[j]), bytes(data[a:b if b >= 0 else len(data)])))
    for h in header:
        raw = raw_header[h.line_no]
        if raw != h.text.encode("utf-8") + layout.eol:
            out.append((h.line_no, raw))
    out += lines_as_written(data, [p.line_no for p in problems], scan.blank_lines)
    out.sort()
    return out


def _comment_lines(data: bytes | bytearray, comments: np.ndarray, header: list[HeaderLine],
                   problems: list[Reject], raw_header: dict[int, bytes]) -> None:
    for line_no, a, b in comments.tolist():
        raw = bytes(data[a:b])
        if len(header) >= MAX_HEADER_LINES:
            raise BeyondLimits(line_no, raw.decode("utf-8", "backslashreplace"),
                               f"more than {MAX_HEADER_LINES:,} header lines (comment lines "
                               "starting with ';'); real logs have a few dozen")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            problems.append(Reject(line_no, raw.decode("utf-8", "backslashreplace"),
                                   f"header line is not valid UTF-8 (byte {e.start + 1})"))
            continue
        header.append(parse_header_line(line_no, text.rstrip("\r")))
        raw_header[line_no] = raw


def _slow_lines(path: str, data: bytes | bytearray, slow: np.ndarray, scan: Scan,
                keep: np.ndarray, problems: list[Reject], lenient: bool) -> None:
    """Parse the lines the tokenizer handed back. Strict, a line after a
    problem already found is not parsed: the file is refused anyway."""
    refused_at = min((p.line_no for p in problems), default=None)
    if not lenient and refused_at is not None:
        later = slow[:, 0] > refused_at
        slots = slow[later, 3]
        keep[slots[slots >= 0]] = False
        slow = slow[~later]
    for line_no, a, b, j in slow.tolist():
        if not lenient and refused_at is not None and line_no > refused_at:
            if j >= 0:
                keep[j] = False
            continue
        raw = bytes(data[a:b])
        try:
            values = parse_line(raw)
        except LineError as e:
            if e.extended and line_no == scan.first_job_line:
                raise ExtendedFormatError(
                    path, line_no,
                    f"{e.reason}: this is an extended SWF format (more than 18 "
                    "columns, e.g. with node lists); only the standard 18-field "
                    "format can be ingested",
                    raw.decode("ascii", "backslashreplace"),
                ) from None
            problems.append(Reject(line_no, raw.decode("utf-8", "backslashreplace"), e.reason))
            refused_at = line_no if refused_at is None else min(refused_at, line_no)
            if j >= 0:
                keep[j] = False
            continue
        for k, v in enumerate(values):
            (scan.ints if IS_INT[k] else scan.floats)[SLOT[k], j] = v


def _count_rejects(problems: list[Reject], lenient: bool) -> None:
    """Lenient keeps every bad line as a row; past MAX_REJECTS the file is no
    log with some bad lines but something else, and is refused. Strict keeps
    only the first problem: the file is refused at it."""
    if lenient and len(problems) > MAX_REJECTS:
        worst = sorted(problems, key=lambda p: p.line_no)[MAX_REJECTS]
        raise BeyondLimits(worst.line_no, worst.text, f"more than {MAX_REJECTS:,} bad lines; "
                           "this does not look like an SWF log")
    if not lenient and len(problems) > 1:
        problems[:] = [min(problems, key=lambda p: p.line_no)]


def _start_time(header: list[HeaderLine], problems: list[Reject],
                lenient: bool) -> tuple[int | None, list[HeaderLine]]:
    """The log's UnixStartTime, as header_facts will read it (the first line
    labelled so that starts with a number), and the header lines kept. A
    value outside the calendar range is a bad line: lenient sets it apart and
    reads the next one, strict refuses the file (the start is then None)."""
    refused: set[int] = set()
    start = None
    for h in header:
        if h.label is None or h.label.lower() != "unixstarttime":
            continue
        number = leading_integer(h.value)
        if number is None:
            continue
        if inside(number):
            start = number
            break
        problems.append(Reject(h.line_no, h.text, out_of_range("UnixStartTime", number)))
        if not lenient:
            return None, header
        refused.add(h.line_no)
    return start, [h for h in header if h.line_no not in refused] if refused else header


def _outside_calendar(data: bytes | bytearray, floats: np.ndarray, scan: Scan, keep: np.ndarray,
                      start: int | None, lenient: bool) -> list[Reject]:
    """Kept jobs with a submit, start or end time outside the calendar range
    (instants.py), measured from `start`; they lose `keep`. Strict needs only
    the first."""
    submit, wait, run = floats[SLOT[1]], floats[SLOT[2]], floats[SLOT[3]]
    bad = np.flatnonzero(outside(submit, wait, run, start) & keep)
    if not lenient:
        bad = bad[:1]
    out = []
    for j in bad.tolist():
        keep[j] = False
        problem = job_problem(float(submit[j]), float(wait[j]), float(run[j]), start)
        out.append(Reject(int(scan.job_line_all[j]), _line_text(data, scan, j), problem))
    return out


def _line_text(data: bytes | bytearray, scan: Scan, j: int) -> str:
    """The text of job slot j's line, without its line break (as written)."""
    a = int(scan.job_start[j])
    b = data.find(b"\n", a)
    return bytes(data[a:b if b >= 0 else len(data)]).decode("ascii", "replace")


def _duplicates(data: bytes | bytearray, job: np.ndarray, scan: Scan,
                keep: np.ndarray) -> list[Reject]:
    """Second and later lines with a job number already used; they lose `keep`."""
    idx = np.flatnonzero(keep)
    j = job[idx]
    if len(j) < 2 or bool(np.all(j[1:] > j[:-1])):
        return []
    order = np.argsort(j, kind="stable")
    sj = j[order]
    same = np.flatnonzero(sj[1:] == sj[:-1]) + 1
    if len(same) == 0:
        return []
    first = order[np.searchsorted(sj, sj[same])]
    job_line = scan.job_line_all
    out = []
    for pos, f in zip(order[same].tolist(), first.tolist()):
        slot = idx[pos]
        keep[slot] = False
        out.append(Reject(int(job_line[slot]), _line_text(data, scan, slot),
                          f"job number {int(j[pos])} repeats (first on line "
                          f"{int(job_line[idx[f]])})"))
    return out


def read_swf(path: str | os.PathLike, lenient: bool = False,
             name: str | None = None) -> ParsedLog:
    data, size = read_bytes(path)
    return parse_bytes(str(path), data, size, lenient, name)

