"""Questions over the archive: one read-only SQL statement at a time."""
from __future__ import annotations

import pandas as pd
import sqlglot
from sqlglot import exp

from .errors import QueryError
from .store import Archive

# Statements that only read. Anything else (INSERT, COPY ... TO, ATTACH,
# CREATE, SET, ...) is refused before it reaches the database, which is
# itself opened read-only as a second guard.
_READING = (exp.Query, exp.Describe, exp.Show)


def check_read_only(query: str) -> None:
    try:
        statements = [s for s in sqlglot.parse(query, read="duckdb") if s is not None]
    except sqlglot.errors.ParseError:
        return  # DuckDB's own parser decides; the read-only file still guards
    if len(statements) != 1:
        raise QueryError(f"one statement at a time, not {len(statements)}")
    stmt = statements[0]
    if not isinstance(stmt, _READING):
        kind = stmt.key.upper()
        raise QueryError(f"the archive is read-only for queries: {kind} statements are not allowed")


def run_query(archive: Archive, query: str) -> pd.DataFrame:
    """Run one read-only statement over all logs and return its rows."""
    check_read_only(query)
    try:
        return archive.sql(query)
    except QueryError as e:
        if "read-only" in str(e):
            raise QueryError(f"the archive is read-only for queries: {e}") from None
        raise
