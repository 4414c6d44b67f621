"""The archive file: opening it, its lock, its schema, and transactions."""
from __future__ import annotations

import os
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import duckdb

from ..kernel.errors import ArchiveLocked, ArchiveMissing, LogNotFound, QueryError, WlaError, one_line
from ..kernel.names import known_hint
from ..swf.rawfile import not_regular
from .location import archive_path
from .lock import lock_holder
from .migrate import prepare
from .views import read_through_current_views

if TYPE_CHECKING:  # DuckDB makes the DataFrames itself; pandas is loaded by the first one
    import pandas as pd


def default_path() -> str:
    """The archive file when none is given: $WLA_ARCHIVE, else ./archive.duckdb."""
    return archive_path()


# DuckDB's own guards, behind the query gate (guard.py): no extension is
# installed or loaded behind the user's back, and a reader cannot reach files
# (COPY, EXPORT, read_text, glob, ...) or change these settings.
_ALWAYS = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}


def _config(read_only: bool, read_files: bool) -> dict[str, object]:
    config: dict[str, object] = dict(_ALWAYS, enable_external_access=read_files)
    if read_only:
        config["lock_configuration"] = True
    return config


def _regular_or_absent(path: str) -> None:
    """DuckDB would wait on a FIFO given as the archive, or read a device
    without end: anything but a regular file (or nothing yet) is refused."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as e:
        raise WlaError(f"cannot open archive {path}: {e.strerror or e}") from None
    kind = not_regular(mode)
    if kind is not None:
        raise WlaError(f"cannot open archive {path}: {kind}, not a regular file")


def _connect(path: str, read_only: bool, read_files: bool = False) -> duckdb.DuckDBPyConnection:
    _regular_or_absent(path)
    try:
        return duckdb.connect(path, read_only=read_only, config=_config(read_only, read_files))
    except duckdb.Error as e:
        # Every failure to open the file is an IOException; whether another
        # process holds it is asked of the system, not read from the message.
        holder = lock_holder(path, write=not read_only) if isinstance(e, duckdb.IOException) else None
        if holder is not None:
            who = f" (PID {holder})" if holder else ""
            raise ArchiveLocked(
                f"archive {path} is locked by another process{who}; "
                "try again when it has finished"
            ) from None
        raise WlaError(f"cannot open archive {path}: {one_line(e)}") from None


class Archive:
    """One archive file. Writers hold DuckDB's file lock for as long as they
    are open, so a second process is told the archive is locked. A reader
    may be allowed to read the user's own files from queries (`read_files`);
    a writer never runs a user's query at all."""

    def __init__(self, path: str | os.PathLike | None = None, write: bool = False,
                 read_files: bool = False):
        self.path = str(path or default_path())
        self.writable = write
        if write and read_files:
            raise WlaError("reading files from queries is for an archive opened read-only")
        if not write and not Path(self.path).exists():
            raise ArchiveMissing(f"no archive at {self.path} (ingest a log to create one)")
        self.con = _connect(self.path, read_only=not write, read_files=read_files)
        if write:
            try:
                prepare(self.con, self.path)
            except BaseException:
                self.close()
                raise
        else:  # an older wla's archive is read through this wla's views (views.py)
            read_through_current_views(self.con)

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
        """A user's query over all logs, as a DataFrame: one reading statement
        (guard.py), on an archive opened read-only."""
        return self._run(self.checked(query), params).df()

    def checked(self, query: str) -> duckdb.Statement:
        """The query's one statement, once the gate has passed it."""
        if self.writable:
            raise QueryError("queries run on an archive opened read-only; open it with "
                             "wla.archive.open(path) to query it")
        from .guard import checked_statement  # sqlglot: only for a user's query

        return checked_statement(self.con, query)

    def df(self, sql: str, params: list | None = None) -> pd.DataFrame:
        """wla's own SQL (never a user's text) and its rows as a DataFrame."""
        return self._run(sql, params).df()

    def rows(self, sql: str, params: list | None = None) -> list[tuple]:
        """wla's own SQL and its rows as tuples (no pandas: a quick command's)."""
        return self._run(sql, params).fetchall()

    def arrays(self, sql: str, params: list | None = None) -> dict:
        """wla's own SQL and its columns as numpy arrays (no pandas)."""
        return self._run(sql, params).fetchnumpy()

    def _run(self, sql: str | duckdb.Statement, params: list | None) -> duckdb.DuckDBPyConnection:
        try:
            return self.con.execute(sql, params or [])
        except duckdb.Error as e:
            raise query_error(e) from None

    def log_id(self, name: str) -> int:
        rows = self.con.execute("SELECT log_id FROM logs WHERE name = ?", [name]).fetchall()
        if not rows:
            known = [r[0] for r in self.con.execute("SELECT name FROM logs ORDER BY name").fetchall()]
            raise LogNotFound(f"no log named {name!r}{known_hint(name, known)}")
        return int(rows[0][0])

    def log_names(self) -> list[str]:
        return [r[0] for r in self.con.execute("SELECT name FROM logs ORDER BY name").fetchall()]

    def require_writable(self) -> None:
        if not self.writable:
            raise WlaError(f"archive {self.path} is open read-only")


def query_error(e: duckdb.Error) -> QueryError:
    """A database error of a query, as the user is told it."""
    if isinstance(e, duckdb.PermissionException):
        return QueryError.naming(f"queries do not reach files unless allowed ({{read_files}}): {one_line(e)}",
                                 "read_files")
    return QueryError(_with_hints(e))


# DuckDB's lines after the first that help the user mend the query.
_HINTS = ("Candidate bindings:", "Did you mean", "HINT:")


def _with_hints(e: duckdb.Error) -> str:
    """The error's first line and DuckDB's hints after it (the columns it
    has, the name it would take), on one line; not the quoted query."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    if not lines:
        return one_line(e)
    return " ".join([lines[0]] + [ln for ln in lines[1:] if ln.startswith(_HINTS)])


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


def open(path: str | os.PathLike | None = None, write: bool = False,  # noqa: A001
         read_files: bool = False) -> Archive:
    """Open an archive: read-only unless `write`; a writer creates the file.
    `read_files` lets the reader's queries read files (read_csv, ...)."""
    return Archive(path, write=write, read_files=read_files)
