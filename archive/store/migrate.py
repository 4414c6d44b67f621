"""The archive's schema version, and the steps that bring an older archive to it.

An archive records the version of its schema in archive_meta (key
'schema_version'); one without it was written before versions were
recorded, version 1. Opening an archive for writing makes the tables that
are missing (schema/tables.sql: every statement idempotent), then runs each
migration above the archive's version in order, each in its own transaction
with the new version, then makes the views again. A new archive starts at
SCHEMA_VERSION. A read-only open cannot migrate and reads the archive as it
is: an older archive's logs, versions and decisions read the same, through
this wla's views (views.py). An archive written by a newer wla is not
opened for writing.
"""
from __future__ import annotations

import functools
import hashlib
from typing import Callable

import duckdb
from wla.schema import load_sql

from ..kernel.errors import WlaError

SCHEMA_VERSION = 4
TABLES = "tables"
VIEWS = ("macros", "views", "figures", "catalog", "quality")  # made again at every writable open; macros first
_KEY = "schema_version"
_VIEWS_KEY = "views_sha256"


def schema_version(con: duckdb.DuckDBPyConnection) -> int:
    """The archive's schema version: as recorded, else 1."""
    if not has_table(con, "archive_meta"):
        return 1
    rows = con.execute("SELECT value FROM archive_meta WHERE key = ?", [_KEY]).fetchall()
    return int(rows[0][0]) if rows else 1


def has_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return bool(con.execute(  # duckdb_tables(): a third of information_schema's time
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name = ?", [name]).fetchall()[0][0])


def _set_version(con: duckdb.DuckDBPyConnection, version: int) -> None:
    con.execute("INSERT OR REPLACE INTO archive_meta VALUES (?, ?)", [_KEY, str(version)])


def prepare(con: duckdb.DuckDBPyConnection, path: str) -> None:
    """Bring a writable archive to SCHEMA_VERSION (see the module's doc)."""
    fresh = not has_table(con, "logs")
    current = SCHEMA_VERSION if fresh else schema_version(con)
    if current > SCHEMA_VERSION:
        raise WlaError(f"archive {path} has schema version {current}, written by a newer wla; "
                       f"this one writes version {SCHEMA_VERSION}: upgrade wla to change it")
    con.execute(load_sql(TABLES))
    if fresh:
        _set_version(con, SCHEMA_VERSION)
    for version in range(current + 1, SCHEMA_VERSION + 1):
        con.begin()  # each step whole or not at all (file.transaction, which imports this)
        try:
            for step in MIGRATIONS[version]:
                step(con)
            _set_version(con, version)
        except BaseException:
            con.rollback()
            raise
        con.commit()
    for name in VIEWS:
        con.execute(load_sql(name))
    if _stored_views(con) != views_fingerprint():  # readers skip making views that are already these
        con.execute("INSERT OR REPLACE INTO archive_meta VALUES (?, ?)", [_VIEWS_KEY, views_fingerprint()])


@functools.cache
def views_fingerprint() -> str:
    """The sha256 of this wla's view and macro files: what the archive's
    stored views are when a writable open of this wla made them last."""
    return hashlib.sha256("\n".join(load_sql(name) for name in VIEWS).encode()).hexdigest()


def _stored_views(con: duckdb.DuckDBPyConnection) -> str | None:
    """The fingerprint of the views the archive holds, as its last writer recorded it."""
    try:
        rows = con.execute("SELECT value FROM archive_meta WHERE key = ?", [_VIEWS_KEY]).fetchall()
    except duckdb.CatalogException:  # an archive from before archive_meta
        return None
    return rows[0][0] if rows else None


def stored_views_are_current(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the archive's views are this wla's: recorded so by a writer of
    this schema version (a newer one may keep other views under the same record)."""
    return _stored_views(con) == views_fingerprint() and schema_version(con) == SCHEMA_VERSION


def _fingerprints_cover_parameters(con: duckdb.DuckDBPyConnection) -> None:
    """Version 2: a rule's fingerprint covers its parameters (names, types,
    defaults, ranges), action and computed part, not its SQL alone. Each
    rule the archive kept gets the new fingerprint of the text it kept, so
    that a file of the same name, version and text is the same rule, and one
    whose defaults changed under the same version (capacity v1 once did) is
    refused. Steps, decisions and published notes keep the fingerprints
    they were made with: they are history, and published files quote them.
    A kept rule that no longer parses keeps its old fingerprint; a file of
    its name and version is then refused as changed."""
    from ..clean.rules import rule_fingerprint  # clean builds on store, not the other way

    for name, version, sql, file in con.execute("SELECT name, version, sql, file FROM rules").fetchall():
        try:
            fingerprint = rule_fingerprint(sql, file)
        except WlaError:
            continue
        con.execute("UPDATE rules SET fingerprint = ? WHERE name = ? AND version = ?",
                    [fingerprint, name, version])


def _layouts_unknown(con: duckdb.DuckDBPyConnection) -> None:
    """Version 3: a log keeps the layout of its job lines (`logs.layout`)
    and the lines that layout does not give back (`verbatim_lines`), so that
    export writes the file as it was. The text of a log ingested before is
    gone, so its layout stays unknown (NULL) and it is exported as before,
    columns as wide as their widest value; so are its versions, whose
    published files therefore read the same. The version is raised all the
    same: an older wla, which knows nothing of `verbatim_lines`, would leave
    a replaced log's lines there."""
    con.execute("UPDATE logs SET layout = NULL WHERE layout IS NOT NULL")


def _figures_kept(con: duckdb.DuckDBPyConnection) -> None:
    """Version 3 too: each log's figures are kept in `log_figures`, which
    the catalog reads instead of every job; computed here for the logs
    stored before, by the view that computes them at every store."""
    from .figures import keep_all_figures  # figures.py reads the view made here

    for name in ("macros", "figures"):
        con.execute(load_sql(name))
    keep_all_figures(con)


def _notes_kept(con: duckdb.DuckDBPyConnection) -> None:
    """Version 4: the user's notes on logs (`wla note`), in `notes`, which
    tables.sql makes (empty: an older archive has none). Nothing else
    changes; the version is raised so that an older wla, which knows
    nothing of notes, does not write an archive that holds them."""
    if not has_table(con, "notes"):
        raise WlaError("the notes table was not made before the migration to schema version 4")


MIGRATIONS: dict[int, tuple[Callable[[duckdb.DuckDBPyConnection], None], ...]] = {
    2: (_fingerprints_cover_parameters,),
    3: (_layouts_unknown, _figures_kept),
    4: (_notes_kept,),
}
