"""The views a reader sees: this wla's, whichever wla last wrote the archive.

Views are code, not data. A writable open makes them again (migrate.py); a
read-only open cannot write, and an archive last written by another wla
holds that wla's views (a typed_jobs without kind, original and version,
say). A reader therefore makes this wla's macros and views as temporary
ones of its own connection, which DuckDB resolves before the stored ones;
the tables are read as they are and nothing is written. They are what this
wla's code reads, so an archive of a newer schema gets them too; one whose
tables they cannot read keeps its own views.

A writable open records the fingerprint of the views it made in
archive_meta ('views_sha256'); a reader whose views have that fingerprint
reads the stored ones and makes none (making them costs more than opening
the file). An archive without the record, or with another's, gets them
made.
"""
from __future__ import annotations

import duckdb
from wla.schema import load_sql

from .migrate import VIEWS, has_table, stored_views_are_current


def temporary(sql: str) -> str:
    """A view file's statements, each making a temporary view or macro: the
    files say CREATE OR REPLACE VIEW / MACRO."""
    return (sql.replace("CREATE OR REPLACE VIEW", "CREATE OR REPLACE TEMP VIEW")
               .replace("CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO"))


def read_through_current_views(con: duckdb.DuckDBPyConnection) -> bool:
    """On a read-only connection, make this wla's views, all or none;
    whether they were made."""
    if stored_views_are_current(con):
        return True
    con.begin()
    try:
        kept = has_table(con, "log_figures")
        for name in VIEWS:
            con.execute(temporary(load_sql(name)))
            if name == "figures" and not kept:  # an archive older than version 3
                con.execute("CREATE OR REPLACE TEMP VIEW log_figures AS SELECT * FROM job_figures")
    except duckdb.Error:
        con.rollback()
        return False
    con.commit()
    return True
