"""The catalog: what logs the archive holds, and the facts a user may set."""
from __future__ import annotations

import pandas as pd

from .errors import UsageError
from .ingest import valid_tz
from .store import Archive

LS_COLUMNS = [
    "name", "first_submit_date", "last_submit_date", "months",
    "machine_size", "users", "jobs", "utilization",
]


def catalog(archive: Archive) -> pd.DataFrame:
    """One row per log, like the Parallel Workloads Archive's own table."""
    cols = ", ".join(LS_COLUMNS)
    return archive.sql(f"SELECT {cols} FROM log_summary ORDER BY name")


def log_info(archive: Archive, name: str) -> dict:
    """Everything the archive knows of one log: file, header, figures."""
    log_id = archive.log_id(name)
    row = archive.sql("SELECT * FROM logs WHERE log_id = ?", [log_id]).iloc[0].to_dict()
    summary = archive.sql("SELECT * FROM log_summary WHERE log_id = ?", [log_id]).iloc[0].to_dict()
    header = archive.sql(
        "SELECT line_no, text, label, value FROM header_lines WHERE log_id = ? ORDER BY seq",
        [log_id],
    )
    return {"log": row, "summary": summary, "header": header}


def log_facts(archive: Archive, name: str) -> dict:
    """The log's row of the logs table, unknown values as None."""
    row = archive.con.execute("SELECT * EXCLUDE (ingested_at) FROM logs WHERE log_id = ?",
                              [archive.log_id(name)]).df().iloc[0].to_dict()
    return {k: (None if pd.isna(v) else v.item() if hasattr(v, "item") else v) for k, v in row.items()}


# Facts a user may set on a log: name on the command line -> logs column.
SETTABLE = {
    "max-procs": "machine_size",
    "unix-start-time": "unix_start_time",
    "time-zone-string": "tz",
}


def set_fact(archive: Archive, name: str, fact: str, value: str) -> str:
    """Set a fact the header lacks or states wrongly, e.g. the machine size of
    a log whose header was lost. The header lines themselves stay as written."""
    archive.require_writable()
    log_id = archive.log_id(name)
    column = SETTABLE.get(fact)
    if column is None:
        raise UsageError(f"cannot set {fact!r}; settable: {', '.join(SETTABLE)}")
    if column == "tz":
        tz = valid_tz(archive.con, value)
        if tz is None:
            raise UsageError(f"unknown time zone {value!r} (use a tz database name such as US/Pacific)")
        with archive.transaction() as con:
            con.execute("UPDATE logs SET tz = ? WHERE log_id = ?", [tz, log_id])
        return f"{name}: time zone set to {tz}"
    try:
        number = int(value)
    except ValueError:
        raise UsageError(f"{fact} takes a whole number, not {value!r}") from None
    if not -(2**63) <= number < 2**63:
        raise UsageError(f"{fact} {value} is outside the 64-bit range")
    with archive.transaction() as con:
        if column == "machine_size":
            if number <= 0:
                raise UsageError("max-procs must be positive")
            con.execute("UPDATE logs SET machine_size = ?, machine_size_source = 'set' "
                        "WHERE log_id = ?", [number, log_id])
        else:
            con.execute(f"UPDATE logs SET {column} = ? WHERE log_id = ?", [number, log_id])
    return f"{name}: {fact} set to {number}"
