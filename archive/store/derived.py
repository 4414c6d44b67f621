"""Logs wla makes from another log (a resampled workload): SWF text read
back like any file, so that export gives it back byte for byte, stored with
its kind, its source, how it was made, and a row per job saying where the
job came from; all in one transaction."""
from __future__ import annotations

import json

import pandas as pd

from ..kernel.errors import LogExists
from ..kernel.names import check_log_name
from ..swf.header import header_facts
from ..swf.reader import parse_bytes
from .file import Archive, transaction
from .ingest import _append, _insert_log, valid_tz


def free_name(archive: Archive, name: str) -> str:
    """`name` if a derived log may take it: a valid name the archive does not
    hold yet (checked before the work that makes the log, and again when it
    is stored)."""
    name = check_log_name(name)
    if archive.con.execute("SELECT 1 FROM logs WHERE name = ?", [name]).fetchall():
        raise LogExists.naming(f"the archive already holds a log named {name!r}; choose another {{name}}", "name")
    return name


def store_derived(archive: Archive, name: str, text: bytes, *, kind: str, method: str, source_log_id: int,
                  parameters: dict, per_job: tuple[str, pd.DataFrame] | None = None) -> int:
    """Store SWF `text` as log `name`; returns its log id. `per_job` is a
    table name and its rows (without log_id)."""
    import wla

    archive.require_writable()
    name = free_name(archive, name)
    p = parse_bytes(f"{name}.swf", text, len(text), name=name)
    facts = header_facts(p.header)
    facts["tz"] = valid_tz(archive.con, facts["time_zone_string"])
    con = archive.con
    with transaction(con):
        log_id = int(con.execute("SELECT coalesce(max(log_id), 0) + 1 FROM logs").fetchall()[0][0])
        _insert_log(con, log_id, p, facts)
        con.execute("UPDATE logs SET kind = ?, source_log_id = ? WHERE log_id = ?", [kind, source_log_id, log_id])
        con.execute("INSERT INTO derived_logs VALUES (?, ?, ?, ?, ?)",
                    [log_id, method, source_log_id, json.dumps(parameters, sort_keys=True), wla.__version__])
        if per_job is not None:
            _append(con, per_job[0], log_id, per_job[1])
    return log_id


def derived_from(archive: Archive, log_id: int) -> dict | None:
    """How a derived log was made, or None for a log read from a file or a version."""
    from .migrate import has_table

    if not has_table(archive.con, "derived_logs"):
        return None
    rows = archive.con.execute(
        "SELECT d.method, s.name, d.parameters, d.wla_version FROM derived_logs AS d "
        "JOIN logs AS s ON s.log_id = d.source_log_id WHERE d.log_id = ?", [log_id]).fetchall()
    if not rows:
        return None
    method, source, params, version = rows[0]
    return {"method": method, "source": source, "parameters": json.loads(params), "wla_version": version}

