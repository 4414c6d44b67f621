"""The archive file: opening it, its lock, its schema, and transactions."""
from __future__ import annotations

import os
import re
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Iterator

import duckdb
import pandas as pd
from wla.schema import load_sql

from .errors import ArchiveLocked, ArchiveMissing, LogNotFound, QueryError, WlaError

DEFAULT_PATH = "archive.duckdb"
ENV_PATH = "WLA_ARCHIVE"
SCHEMA_FILES = ("tables", "views", "catalog", "quality")


def default_path() -> str:
    return os.environ.get(ENV_PATH) or DEFAULT_PATH


def _connect(path: str, read_only: bool) -> duckdb.DuckDBPyConnection:
    try:
        return duckdb.connect(path, read_only=read_only)
    except duckdb.Error as e:
        msg = str(e)
        if "lock" in msg.lower():
            pid = re.search(r"PID (\d+)", msg)
            who = f" (PID {pid.group(1)})" if pid else ""
            raise ArchiveLocked(
                f"archive {path} is locked by another process{who}; "
                "try again when it has finished"
            ) from None
        raise WlaError(f"cannot open archive {path}: {one_line(e)}") from None


class Archive:
    """One archive file. Writers hold DuckDB's file lock for as long as they
    are open, so a second process is told the archive is locked."""

    def __init__(self, path: str | os.PathLike | None = None, write: bool = False):
        self.path = str(path or default_path())
        self.writable = write
        if not write and not Path(self.path).exists():
            raise ArchiveMissing(f"no archive at {self.path} (ingest a log to create one)")
        self.con = _connect(self.path, read_only=not write)
        if write:
            for name in SCHEMA_FILES:
                self.con.execute(load_sql(name))

    # -- life cycle -------------------------------------------------------
    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None

    def __enter__(self) -> "Archive":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def bulk_writes(self) -> Iterator[None]:
        """Commit without checkpointing; one checkpoint at the end. Committed
        data stays durable through DuckDB's write-ahead log meanwhile."""
        self.con.execute("SET checkpoint_threshold = '16GB'")
        try:
            yield
        finally:
            self.con.execute("RESET checkpoint_threshold")
            self.con.execute("CHECKPOINT")

    def transaction(self) -> AbstractContextManager[duckdb.DuckDBPyConnection]:
        return transaction(self.con)

    # -- reading ----------------------------------------------------------
    def sql(self, query: str, params: list | None = None) -> pd.DataFrame:
        """Run one query over the archive and return its rows as a DataFrame."""
        try:
            return self.con.execute(query, params or []).df()
        except duckdb.Error as e:
            raise QueryError(one_line(e)) from None

    def log_id(self, name: str) -> int:
        rows = self.con.execute("SELECT log_id FROM logs WHERE name = ?", [name]).fetchall()
        if not rows:
            known = [r[0] for r in self.con.execute("SELECT name FROM logs ORDER BY name").fetchall()]
            hint = f"; the archive holds: {', '.join(known)}" if known else "; the archive is empty"
            raise LogNotFound(f"no log named {name!r}{hint}")
        return int(rows[0][0])

    def log_names(self) -> list[str]:
        return [r[0] for r in self.con.execute("SELECT name FROM logs ORDER BY name").fetchall()]

    def require_writable(self) -> None:
        if not self.writable:
            raise WlaError(f"archive {self.path} is open read-only")


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """All or nothing: an exception inside rolls every write back."""
    con.begin()
    try:
        yield con
    except BaseException:
        con.rollback()
        raise
    con.commit()


def one_line(e: Exception) -> str:
    """The first non-blank line of an error: what a user is shown."""
    lines = [ln for ln in str(e).splitlines() if ln.strip()]
    return lines[0] if lines else type(e).__name__


def open(path: str | os.PathLike | None = None, write: bool = False) -> Archive:  # noqa: A001
    """Open an archive: read-only unless `write`; a writer creates the file."""
    return Archive(path, write=write)
