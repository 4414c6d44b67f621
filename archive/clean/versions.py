"""Cleaned versions: listing them, their steps, their recipes, and why a job
is as it is. Comparing two is `../analysis/diff/by_rule.py`'s."""
from __future__ import annotations

import pandas as pd

from ..kernel.errors import LogNotFound
from ..resolve import lineage, resolve, resolve_version
from ..store.file import Archive


def base_name(archive: Archive, log: str) -> str:
    """The original a log or version belongs to."""
    return resolve(archive, log).log


def version_name(archive: Archive, log: str, version: str | None = None) -> str:
    """The full name of a log or version from any spelling (resolve.py):
    `LOG`, `v1` -> `LOG@v1`; `original` -> the log; `LOG@v1` stays."""
    return resolve(archive, log, version).name


def versions(archive: Archive, log: str | None = None) -> pd.DataFrame:
    """One row per version: what it came from, its size, its recipe."""
    return archive.df(
        """
        SELECT v.name, b.name AS log, v.version, s.name AS built_from,
               b.jobs AS original_jobs, l.jobs,
               (SELECT count(*) FROM steps WHERE version_id = v.log_id) AS steps,
               left(v.recipe_hash, 12) AS recipe, v.built_at, v.published_at
        FROM versions AS v
        JOIN logs AS l ON l.log_id = v.log_id
        JOIN logs AS b ON b.log_id = v.base_log_id
        JOIN logs AS s ON s.log_id = v.source_log_id
        WHERE $log IS NULL OR b.name = $log
        ORDER BY b.name, v.log_id
        """, {"log": None if log is None else base_name(archive, log)})


def steps(archive: Archive, name: str) -> pd.DataFrame:
    return archive.df(
        "SELECT step, rule, rule_version, left(fingerprint, 12) AS fingerprint, params, "
        "jobs_in, dropped, changed, note FROM steps WHERE version_id = ? ORDER BY step",
        [archive.log_id(name)])


def why(archive: Archive, log: str, job: int, version: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every decision that touched a job, and whether each version kept it."""
    named = resolve(archive, log, version)
    base = named.log
    if version is not None or named.version is not None:
        names = [named.name]
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
        """
        SELECT version, step, rule, rule_version, left(fingerprint, 12) AS fingerprint,
               line_no, action, field, old_value, new_value, reason
        FROM decisions
        WHERE list_contains($ids, version_id) AND list_contains($lines, line_no)
        ORDER BY version_id, step, line_no, field NULLS FIRST
        """, {"ids": ids, "lines": lines})
    kept = archive.df(
        """
        SELECT v.name AS version, l.line_no,
               EXISTS (SELECT 1 FROM jobs j WHERE j.log_id = v.log_id AND j.line_no = l.line_no) AS kept
        FROM versions v, (SELECT unnest($lines) AS line_no) l
        WHERE list_contains($names, v.name)
        ORDER BY v.log_id, l.line_no
        """, {"lines": lines, "names": names})
    return decisions, kept


def recipe_text(archive: Archive, log: str, version: str | None = None) -> str:
    """The recipe a version was built from, as it was written."""
    named = resolve_version(archive, log, version)
    return archive.con.execute("SELECT recipe FROM versions WHERE log_id = ?", [named.log_id]).fetchall()[0][0]
