"""A sweep's journal: one line per finished run, appended and flushed as
each arrives, so that a sweep stopped by Ctrl-C or kill -9 resumes where it
stood and redoes no finished run.

The first line describes the sweep (its format and the hash of its
settings); a journal of another sweep is refused. Each later line is
`[point, run, value, ..., check]`: the run's metrics as JSON writes a double
(the shortest text that reads back as the same double, so resumed results
are bit-identical to uninterrupted ones; NaN as null), and the first 16 hex
digits of the sha256 of the sweep's hash followed by the compact JSON of the
line without its check. Resuming reads every line before anything runs: a
line that is not exactly what this sweep writes (edited, repeated, out of
range, of another sweep, not text) refuses the whole journal, since a table
built from it would not be the uninterrupted sweep's. The one damage a stop
leaves, a last line cut short before its newline, is dropped and its run
done again."""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any, Iterator

from wla.archive.kernel.errors import ParameterError, UsageError, WlaError, shorten, visible
from wla.archive.swf.rawfile import not_regular, open_regular

FORMAT = "wla sweep journal 2"
FORMAT_NAME = "wla sweep journal "  # what every format's name starts with
CHECK_DIGITS = 16
START_OVER = "remove it and run the sweep again without {resume}"  # names sweep()'s `resume`
# What a line cut short can hold: the start of `[point, run, values..., "check"]`.
CUT_LINE = re.compile(rb'\[[-0-9a-fE.+, nul"]*]?')


def spec_hash(spec: dict) -> str:
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()


def line_check(sweep_hash: str, row: list) -> str:
    """The check a line ends with: it ties the row to its sweep and to its
    text, so neither an edited line nor one of another sweep passes."""
    body = json.dumps(row, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256((sweep_hash + body).encode()).hexdigest()[:CHECK_DIGITS]


def _value(x: float) -> float | None:
    return None if math.isnan(x) else x


def _constant(name: str) -> tuple:
    """NaN, Infinity, -Infinity as JSON's extension reads them: kept apart
    (no JSON value is a tuple) so that the line is refused for them."""
    return ("constant", name)


def _is_int(x: Any) -> bool:
    return type(x) is int  # bool is an int to isinstance, not to the journal


class Journal:
    """Finished runs keyed by (point, run), and the file they go to. `points`,
    `runs` and `width` (values per run) are what a line is checked against."""

    def __init__(self, path: str | os.PathLike, spec: dict, resume: bool, points: int, runs: int, width: int):
        self.path = Path(path)
        self.hash = spec_hash(spec)
        self.points, self.runs, self.width = points, runs, width
        # a double's shortest text is at most 24 characters; a point or run fits in 20
        self.line_max = 64 + 32 * (width + 1)
        self.head = json.dumps({"format": FORMAT, "hash": self.hash, "spec": spec})
        self.done: dict[tuple[int, int], int] = {}  # (point, run) -> its line; the values stay on disk
        exists = self._kind()
        if exists:
            if not resume:
                raise ParameterError(f"{self.path} holds an unfinished sweep: add {{resume}} to finish it, "
                                     "or remove the file to start again", "resume")
            self._read()
        elif resume:
            raise UsageError(f"nothing to resume: no journal at {self.path}")
        self._file = self._append()
        try:
            if not os.fstat(self._file.fileno()).st_size:
                self._write(self.head)
        except OSError as e:
            self._file.close()
            raise UsageError(f"cannot write the journal {self.path}: {e.strerror or e}") from None

    def _where(self, line: int) -> str:
        return f"sweep journal {visible(str(self.path))}, line {line}"

    def _refuse(self, line: int, problem: str) -> UsageError:
        return ParameterError(f"{self._where(line)}: {problem}; the journal cannot be resumed: {START_OVER}",
                              "resume")

    def _kind(self) -> bool:
        """Whether the journal exists; anything but a regular file is refused
        from its status, before it is opened (a FIFO would wait for a writer)."""
        try:
            mode = os.stat(self.path).st_mode
        except FileNotFoundError:
            return False
        except OSError as e:
            raise UsageError(f"cannot read the sweep journal {visible(str(self.path))}: {e.strerror or e}") from None
        kind = not_regular(mode)
        if kind is not None:
            raise ParameterError(f"the sweep journal {visible(str(self.path))} is {kind}, not a regular file: "
                                 "remove it, or {journal} the sweep elsewhere", "journal")
        return True

    def _append(self):
        """The journal open for appending; O_NONBLOCK and the check of the
        open file keep a FIFO slipped in since the stat from holding the sweep."""
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.path, flags, 0o666)
        except OSError as e:
            raise UsageError(f"cannot write the journal {self.path}: {e.strerror or e}") from None
        kind = not_regular(os.fstat(fd).st_mode)
        if kind is not None:
            os.close(fd)
            raise UsageError(f"the sweep journal {visible(str(self.path))} is {kind}, not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "a", encoding="utf-8")

    def _read(self) -> None:
        """Check every line; drop a last line cut short (only once all the
        rest is known good, so a refused journal is left as it was)."""
        complete = 0
        for line_no, key, end, _ in self._scan(values=False):
            if key is not None:
                self.done[key] = line_no
            complete = end
        if complete < os.stat(self.path).st_size:
            fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            try:
                if stat.S_ISREG(os.fstat(fd).st_mode):
                    os.ftruncate(fd, complete)
            finally:
                os.close(fd)

    def _scan(self, values: bool) -> Iterator[tuple[int, tuple[int, int] | None, int, tuple[float, ...]]]:
        """(line, (point, run), bytes up to its end, values) for every line,
        checked; key None for the head. Reading is bounded: each line by its
        most possible length, and their number by the runs of the sweep
        (one more line than there are runs is a repeat)."""
        try:
            fd = open_regular(str(self.path))
        except WlaError as e:
            raise UsageError(f"cannot read the sweep journal: {e}") from None
        seen: dict[tuple[int, int], int] = {}
        with os.fdopen(fd, "rb") as f:
            head = f.readline(2 * len(self.head) + 4096)
            self._check_head(head)
            end = len(head)
            yield 1, None, end, ()
            line_no = 1
            while True:
                raw = f.readline(self.line_max + 1)
                if not raw:
                    return
                line_no += 1
                if not raw.endswith(b"\n"):
                    if len(raw) > self.line_max:
                        raise self._refuse(line_no, f"longer than {self.line_max:,} bytes, more than any run's line")
                    if not CUT_LINE.fullmatch(raw):
                        raise self._refuse(line_no, "the last line has no newline and is not the start of a "
                                                    "journal line, so it is no line cut short by a stop")
                    return  # cut short by a stop: its run is done again
                try:
                    point, run, row = self._parse(raw[:-1])
                except ValueError as e:  # what is wrong with the line
                    raise self._refuse(line_no, str(e)) from None
                if (point, run) in seen:
                    raise self._refuse(line_no, f"run {run} of point {point} is written twice "
                                                f"(also on line {seen[point, run]})")
                seen[point, run] = line_no
                end += len(raw)
                yield line_no, (point, run), end, row if values else ()

    def _check_head(self, raw: bytes) -> None:
        if not raw:
            raise self._refuse(1, "the file is empty, not a wla sweep journal")
        try:
            head = json.loads(raw.decode("utf-8")) if raw.endswith(b"\n") else None
        except (UnicodeDecodeError, ValueError, RecursionError) as e:
            problem = _undecodable(raw, e) if isinstance(e, UnicodeDecodeError) else ""
            raise self._refuse(1, problem or "not a wla sweep journal") from None
        if (not isinstance(head, dict) or not isinstance(head.get("format"), str)
                or not head["format"].startswith(FORMAT_NAME)):
            raise self._refuse(1, "not a wla sweep journal")
        if head.get("hash") != self.hash:
            raise ParameterError(f"{self._where(1)}: the journal of another sweep (other log, grids or options); "
                                 f"run that sweep with {{resume}}, or {START_OVER}", "resume")
        if head["format"] != FORMAT:
            raise self._refuse(1, f"written by another version of wla (format {shorten(head['format'], 40)!r}; "
                                  f"this wla resumes {FORMAT!r})")

    def _parse(self, raw: bytes) -> tuple[int, int, tuple[float, ...]]:
        """A run's line as written by `add`, or ValueError saying what it is not."""
        if not raw.strip():
            raise ValueError("a blank line")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(_undecodable(raw, e)) from None
        try:
            row = json.loads(text, parse_constant=_constant)
        except (ValueError, RecursionError) as e:
            msg = f" ({e.msg} at column {e.colno})" if isinstance(e, json.JSONDecodeError) else ""
            raise ValueError(f"not a journal line{msg}") from None
        if not isinstance(row, list) or len(row) < 3:
            raise ValueError("not a journal line [point, run, values..., check]")
        *row, check = row
        if not isinstance(check, str):
            raise ValueError("no check at its end (a line of an older journal, or an edited one)")
        point, run, *values = row
        if len(values) != self.width:
            raise ValueError(f"{len(values)} values where a run of this sweep has {self.width}")
        if not _is_int(point) or not 0 <= point < self.points:
            raise ValueError(f"point {shorten_json(point)} is not a point of this sweep (0 to {self.points - 1})")
        if not _is_int(run) or not 0 <= run <= self.runs:
            raise ValueError(f"run {shorten_json(run)} is not a run of this sweep (0 to {self.runs})")
        for k, v in enumerate(values):
            if type(v) is tuple:
                raise ValueError(f"value {k + 1} is {v[1]}, which a journal never holds (a run without a value "
                                 "is written null)")
            if v is not None and type(v) is not float:
                raise ValueError(f"value {k + 1} is {shorten_json(v)}, not a number as the journal writes them")
            if v is not None and not math.isfinite(v):
                raise ValueError(f"value {k + 1} is not finite")
        if not re.fullmatch(f"[0-9a-f]{{{CHECK_DIGITS}}}", check) or check != line_check(self.hash, row):
            raise ValueError("its check does not match: the line was changed, or is from the journal of another sweep")
        return point, run, tuple(math.nan if v is None else v for v in values)

    def _write(self, text: str) -> None:
        self._file.write(text + "\n")
        self._file.flush()

    def add(self, point: int, run: int, values: tuple[float, ...]) -> None:
        self.done[point, run] = -1
        row = [point, run, *(_value(v) for v in values)]
        self._write(json.dumps([*row, line_check(self.hash, row)], allow_nan=False))

    def rows(self) -> Iterator[tuple[int, int, tuple[float, ...]]]:
        """Every finished run, as written (in the order they finished), each
        line checked again as it is read back."""
        self._file.flush()
        for _, key, _, values in self._scan(values=True):
            if key is not None:
                yield key[0], key[1], values

    def close(self) -> None:
        self._file.close()

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)


def _undecodable(raw: bytes, e: UnicodeDecodeError) -> str:
    return f"not UTF-8 text (byte 0x{raw[e.start]:02x} at column {e.start + 1})"


def shorten_json(v: Any) -> str:
    """A value of a line as the line wrote it, shortened."""
    text = v[1] if type(v) is tuple else json.dumps(v)
    return text if len(text) <= 30 else text[:29] + "…"
