"""Reading one SWF file into columns, header lines and rejected lines.

Nothing here touches the archive: a file is read whole and checked before a
single row is written, so a refused file leaves the archive as it was.
"""
from __future__ import annotations

import hashlib
import os
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import ExtendedFormatError, InputError
from .fields import COLUMNS
from .header import HeaderLine, parse_header_line
from .lineparse import LineError, parse_line
from .tokenizer import IS_INT, SLOT, tokenize

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

    @property
    def jobs(self) -> int:
        return len(self.columns["line_no"])


def _decompress(path: str, raw: bytes) -> bytes:
    """Inflate every gzip member; a bad stream is reported at the line it broke."""
    out: list[bytes] = []

    def fail(problem: str) -> InputError:
        done = b"".join(out)
        return InputError(path, done.count(b"\n") + 1, problem)

    rest = memoryview(raw)
    while len(rest):
        d = zlib.decompressobj(wbits=31)
        try:
            out.append(d.decompress(rest))
            out.append(d.flush())
        except zlib.error as e:
            out.append(_inflated_before_error(rest))
            raise fail(f"corrupt gzip data ({e})") from None
        if not d.eof:
            raise fail("gzip data is truncated")
        rest = memoryview(d.unused_data)
        if len(rest) and rest[:2] != b"\x1f\x8b":
            if bytes(rest).strip(b"\x00"):
                raise fail("bytes after the end of the gzip data")
            break
    return b"".join(out)


def _inflated_before_error(member: memoryview) -> bytes:
    """What a broken gzip member yields before it breaks (error path only):
    inflate in pieces, then replay the piece that fails a byte at a time."""
    d = zlib.decompressobj(wbits=31)
    got: list[bytes] = []
    step = 1 << 16
    for pos in range(0, len(member), step):
        saved = d.copy()
        try:
            got.append(d.decompress(member[pos:pos + step]))
        except zlib.error:
            try:
                for b in range(pos, min(pos + step, len(member))):
                    got.append(saved.decompress(member[b:b + 1]))
            except zlib.error:
                pass
            break
    return b"".join(got)


def read_bytes(path: str | os.PathLike) -> tuple[bytes, int]:
    """The SWF text of a file, gzip'd or not, and the file's own size."""
    path = str(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as e:
        raise InputError(path, None, f"cannot read file ({e.strerror})") from None
    if not raw:
        raise InputError(path, None, "file is empty")
    if raw[:2] == b"\x1f\x8b":
        data = _decompress(path, raw)
    elif path.lower().endswith(".gz"):
        raise InputError(path, None, "named .gz but is not gzip data")
    else:
        data = raw
    if not data:
        raise InputError(path, None, "file is empty (no data inside the gzip stream)")
    return data, len(raw)


def parse_bytes(path: str, data: bytes, file_size: int, lenient: bool = False,
                name: str | None = None, sha: str | None = None) -> ParsedLog:
    """Parse SWF text. Strict: the first problem raises InputError. Lenient:
    bad lines become rejects and the rest is kept."""
    sha = sha or hashlib.sha256(data).hexdigest()
    ints, floats, job_line, comments, slow, nblank, nlines = tokenize(data)
    problems: list[Reject] = []

    header: list[HeaderLine] = []
    for line_no, a, b in comments.tolist():
        raw = data[a:b]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            problems.append(Reject(line_no, raw.decode("utf-8", "backslashreplace"),
                                   f"header line is not valid UTF-8 (byte {e.start + 1})"))
            continue
        header.append(parse_header_line(line_no, text.rstrip("\r")))

    keep = np.ones(len(job_line), dtype=bool)
    for line_no, a, b, j in slow.tolist():
        raw = data[a:b]
        try:
            values = parse_line(raw)
        except LineError as e:
            if e.extended and j == 0:
                raise ExtendedFormatError(
                    path, line_no,
                    f"{e.reason}: this is an extended SWF format (more than 18 "
                    "columns, e.g. with node lists); only the standard 18-field "
                    "format can be ingested",
                    raw.decode("ascii", "backslashreplace"),
                ) from None
            problems.append(Reject(line_no, raw.decode("utf-8", "backslashreplace"), e.reason))
            keep[j] = False
            continue
        for k, v in enumerate(values):
            (ints if IS_INT[k] else floats)[SLOT[k], j] = v

    job = ints[SLOT[0]]
    problems.extend(_duplicates(data, job, job_line, keep))
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
    return ParsedLog(path, name or log_name(path), file_size, len(data), sha, header,
                     columns, problems, nblank, nlines, lenient)


def _duplicates(data: bytes, job: np.ndarray, job_line: np.ndarray,
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
    lines = data.split(b"\n") if len(same) else []
    out = []
    for pos, f in zip(order[same].tolist(), first.tolist()):
        slot = idx[pos]
        keep[slot] = False
        line_no = int(job_line[slot])
        out.append(Reject(line_no, lines[line_no - 1].decode("ascii", "replace"),
                          f"job number {int(j[pos])} repeats (first on line "
                          f"{int(job_line[idx[f]])})"))
    return out


def read_swf(path: str | os.PathLike, lenient: bool = False,
             name: str | None = None) -> ParsedLog:
    data, size = read_bytes(path)
    return parse_bytes(str(path), data, size, lenient, name)

