"""Cleaned versions: listing them, comparing two, and why a job is as it is."""
from __future__ import annotations

import pandas as pd

from ..errors import LogNotFound
from ..store.file import Archive
from ..swf.fields import COLUMNS

ORIGINAL = "original"  # names the log itself where a version is expected


def base_name(archive: Archive, log: str) -> str:
    """The original a log or version belongs to."""
    archive.log_id(log)
    rows = archive.con.execute(
        "SELECT b.name FROM versions AS v JOIN logs AS b ON b.log_id = v.base_log_id WHERE v.name = ?",
        [log]).fetchall()
    return rows[0][0] if rows else log


def version_name(archive: Archive, log: str, version: str) -> str:
    """`v1` of a log -> `LOG@v1`; `original` -> the log; a full name stays."""
    base = base_name(archive, log)
    if version == ORIGINAL:
        return base
    name = version if "@" in version else f"{base}@{version}"
    if not archive.con.execute("SELECT 1 FROM versions WHERE name = ?", [name]).fetchall():
        known = [r[0] for r in archive.con.execute(
            "SELECT version FROM versions v JOIN logs b ON b.log_id = v.base_log_id "
            "WHERE b.name = ? ORDER BY v.log_id", [base]).fetchall()]
        hint = f"; its versions: {', '.join(known)}" if known else "; it has no versions"
        raise LogNotFound(f"no version {version!r} of {base}{hint}")
    return name


def lineage(archive: Archive, name: str) -> list[int]:
    """The version's id and those of the versions it was built from."""
    ids = []
    log_id = archive.log_id(name)
    while True:
        row = archive.con.execute("SELECT source_log_id FROM versions WHERE log_id = ?", [log_id]).fetchall()
        if not row:
            return ids
        ids.append(log_id)
        log_id = row[0][0]


def versions(archive: Archive, log: str | None = None) -> pd.DataFrame:
    """One row per version: what it came from, its size, its recipe."""
    where, params = "", []
    if log is not None:
        where, params = "WHERE b.name = ?", [base_name(archive, log)]
    return archive.df(
        f"""
        SELECT v.name, b.name AS log, v.version, s.name AS built_from,
               b.jobs AS original_jobs, l.jobs,
               (SELECT count(*) FROM steps WHERE version_id = v.log_id) AS steps,
               left(v.recipe_hash, 12) AS recipe, v.built_at, v.published_at
        FROM versions AS v
        JOIN logs AS l ON l.log_id = v.log_id
        JOIN logs AS b ON b.log_id = v.base_log_id
        JOIN logs AS s ON s.log_id = v.source_log_id
        {where}
        ORDER BY b.name, v.log_id
        """, params)


def steps(archive: Archive, name: str) -> pd.DataFrame:
    return archive.df(
        "SELECT step, rule, rule_version, left(fingerprint, 12) AS fingerprint, params, "
        "jobs_in, dropped, changed, note FROM steps WHERE version_id = ? ORDER BY step",
        [archive.log_id(name)])


def _decided(ids: list[int]) -> str:
    return f"({', '.join(str(i) for i in ids) or 'NULL'})"


def diff(archive: Archive, log: str, v1: str, v2: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Jobs dropped or changed between two versions (either may be the
    original): a summary grouped by rule, and one row per job and field."""
    a, b = version_name(archive, log, v1), version_name(archive, log, v2)
    ida, idb = archive.log_id(a), archive.log_id(b)
    la, lb = _decided(lineage(archive, a)), _decided(lineage(archive, b))
    changed = " UNION ALL ".join(
        f"SELECT x.line_no, x.job, '{c}' AS field, x.{c} AS value_1, y.{c} AS value_2 "
        f"FROM x JOIN y USING (line_no) WHERE x.{c} IS DISTINCT FROM y.{c}" for c in COLUMNS)
    detail = archive.df(
        f"""
        WITH x AS (SELECT * FROM jobs WHERE log_id = {ida}),
             y AS (SELECT * FROM jobs WHERE log_id = {idb}),
             rows AS (
                SELECT x.line_no, x.job, $in2 AS change, NULL AS field,
                       NULL::DOUBLE AS value_1, NULL::DOUBLE AS value_2
                FROM x ANTI JOIN y USING (line_no)
                UNION ALL
                SELECT y.line_no, y.job, $in1, NULL, NULL, NULL
                FROM y ANTI JOIN x USING (line_no)
                UNION ALL
                SELECT line_no, job, 'changed', field, value_1, value_2 FROM ({changed})
             )
        SELECT r.change, coalesce(
                   (SELECT string_agg(DISTINCT d.rule, ', ') FROM decisions AS d
                    WHERE d.line_no = r.line_no
                      AND (r.change = $in1 AND d.version_id IN {la}
                           OR r.change <> $in1 AND d.version_id IN {lb})
                      AND (r.field IS NULL AND d.action = 'drop' OR d.field = r.field)),
                   (SELECT string_agg(DISTINCT d.rule, ', ') FROM decisions AS d
                    WHERE d.line_no = r.line_no AND d.version_id IN {la}
                      AND (r.field IS NULL AND d.action = 'drop' OR d.field = r.field)),
                   '?') AS rule,
               r.line_no, r.job, r.field, r.value_1, r.value_2
        FROM rows AS r
        ORDER BY r.change, rule, r.line_no, r.field
        """, {"in1": f"dropped in {v1}", "in2": f"dropped in {v2}"})
    summary = (detail.groupby(["change", "rule"], sort=True)
               .agg(jobs=("line_no", "nunique"), values=("line_no", "size")).reset_index())
    return summary, detail


def why(archive: Archive, log: str, job: int, version: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every decision that touched a job, and whether each version kept it."""
    base = base_name(archive, log)
    if version is not None:
        names = [version_name(archive, log, version)]
    elif base != log:
        names = [log]
    else:
        names = [r[0] for r in archive.con.execute(
            "SELECT v.name FROM versions v JOIN logs b ON b.log_id = v.base_log_id "
            "WHERE b.name = ? ORDER BY v.log_id", [base]).fetchall()]
    base_id = archive.log_id(base)
    lines = [r[0] for r in archive.con.execute(
        "SELECT line_no FROM jobs WHERE log_id = ? AND job = ? ORDER BY line_no", [base_id, job]).fetchall()]
    if not lines:
        raise LogNotFound(f"{base} has no job {job}")
    ids = sorted({i for n in names for i in lineage(archive, n)})
    decisions = archive.df(
        f"""
        SELECT version, step, rule, rule_version, left(fingerprint, 12) AS fingerprint,
               line_no, action, field, old_value, new_value, reason
        FROM decisions
        WHERE version_id IN {_decided(ids)} AND line_no IN ({', '.join(map(str, lines))})
        ORDER BY version_id, step, line_no, field NULLS FIRST
        """)
    kept = archive.df(
        f"""
        SELECT v.name AS version, l.line_no,
               EXISTS (SELECT 1 FROM jobs j WHERE j.log_id = v.log_id AND j.line_no = l.line_no) AS kept
        FROM versions v, (SELECT unnest([{', '.join(map(str, lines))}]) AS line_no) l
        WHERE v.name IN ({', '.join('?' for _ in names) or 'NULL'})
        ORDER BY v.log_id, l.line_no
        """, names)
    return decisions, kept
