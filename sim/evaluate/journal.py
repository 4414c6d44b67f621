"""A sweep's journal: one line per finished run, appended and flushed as
each arrives, so that a sweep stopped by Ctrl-C or kill -9 resumes where it
stood and redoes no finished run. The first line describes the sweep; a
journal of another sweep is refused. Numbers are written as JSON writes a
double (the shortest text that reads back as the same double), so resumed
results are bit-identical to uninterrupted ones. A line cut short by a kill
is dropped and its run done again."""
from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path
from typing import Any, Iterator

from wla.archive.errors import UsageError

FORMAT = "wla sweep journal 1"


def spec_hash(spec: dict) -> str:
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()


def _value(x: float) -> float | None:
    return None if math.isnan(x) else x


class Journal:
    """Finished runs keyed by (point, run), and the file they go to."""

    def __init__(self, path: str | os.PathLike, spec: dict, resume: bool):
        self.path = Path(path)
        self.hash = spec_hash(spec)
        self.done: set[tuple[int, int]] = set()  # keys only: the values stay on disk
        if self.path.exists():
            if not resume:
                raise UsageError(f"{self.path} holds an unfinished sweep: add --resume to finish it, "
                                 "or remove the file to start again")
            self._read()
        elif resume:
            raise UsageError(f"nothing to resume: no journal at {self.path}")
        try:
            self._file = self.path.open("a", encoding="utf-8")
            if not self.path.stat().st_size:
                self._write({"format": FORMAT, "hash": self.hash, "spec": spec})
        except OSError as e:
            raise UsageError(f"cannot write the journal {self.path}: {e.strerror or e}") from None

    def _read(self) -> None:
        raw = self.path.read_bytes()
        lines = raw.split(b"\n")
        complete = len(raw) - len(lines[-1])  # bytes up to the last newline
        try:
            head = json.loads(lines[0])
        except ValueError:
            head = None
        if not isinstance(head, dict) or head.get("format") != FORMAT:
            raise UsageError(f"{self.path} is not a wla sweep journal")
        if head.get("hash") != self.hash:
            raise UsageError(f"{self.path} is the journal of another sweep (other log, grids or options); "
                             "run that sweep with --resume, or remove the file")
        for line in lines[1:-1]:
            point, run = json.loads(line)[:2]
            self.done.add((point, run))
        if complete < len(raw):  # a line cut short: drop it before appending
            with self.path.open("r+b") as f:
                f.truncate(complete)

    def _write(self, row: Any) -> None:
        self._file.write(json.dumps(row, allow_nan=False) + "\n")
        self._file.flush()

    def add(self, point: int, run: int, values: tuple[float, ...]) -> None:
        self.done.add((point, run))
        self._write([point, run, *(_value(v) for v in values)])

    def rows(self) -> Iterator[tuple[int, int, tuple[float, ...]]]:
        """Every finished run, as written (in the order they finished)."""
        self._file.flush()
        with self.path.open(encoding="utf-8") as f:
            next(f)
            for line in f:
                point, run, *values = json.loads(line)
                yield point, run, tuple(math.nan if v is None else v for v in values)

    def close(self) -> None:
        self._file.close()

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)
