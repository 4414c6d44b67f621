"""What a version's page shows beyond a log's: the recipe, each step with
its rule (name, version, fingerprint, rationale, parameters, counts), the
decision counts, every decision (for the lookup of a job), and the
published file and provenance when the version is published."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from wla.archive.clean.provenance import provenance_json
from wla.archive.kernel.errors import WlaError
from wla.archive.kernel.output import write_bytes
from wla.archive.kernel.plain import plain
from wla.archive.resolve import lineage
from wla.archive.store.export import swf_bytes
from wla.archive.store.file import Archive

DECISION_COLUMNS = ["version", "step", "rule", "line_no", "job", "action", "field", "old_value", "new_value",
                    "reason"]


def version_facts(archive: Archive, name: str) -> dict:
    """The versions row with the names of what it was built from."""
    cursor = archive.con.execute(
        "SELECT v.version, b.name AS log, s.name AS built_from, s.log_id = v.base_log_id AS from_original, "
        "b.jobs AS original_jobs, l.jobs, v.recipe, v.recipe_hash, v.wla_version, "
        "strftime(timezone('UTC', v.built_at), '%Y-%m-%d %H:%M:%S UTC') AS built_at, v.build_seconds, "
        "strftime(timezone('UTC', v.published_at), '%Y-%m-%d %H:%M:%S UTC') AS published_at, v.published_sha256 "
        "FROM versions v JOIN logs l ON l.log_id = v.log_id JOIN logs b ON b.log_id = v.base_log_id "
        "JOIN logs s ON s.log_id = v.source_log_id WHERE v.log_id = ?", [archive.log_id(name)])
    return {d[0]: plain(v) for d, v in zip(cursor.description, cursor.fetchall()[0])}


def version_steps(archive: Archive, name: str) -> list[dict]:
    """Each step: its rule at the version used (rationale and the parameters
    it declares, as the archive recorded the rule), the values given, counts."""
    cursor = archive.con.execute(
        "SELECT s.step, s.rule, s.rule_version, s.fingerprint, r.rationale, r.params AS declared, "
        "s.params, s.jobs_in, s.dropped, s.changed, s.note "
        "FROM steps s LEFT JOIN rules r ON r.name = s.rule AND r.version = s.rule_version "
        "WHERE s.version_id = ? ORDER BY s.step", [archive.log_id(name)])
    out = []
    for row in cursor.fetchall():
        step = {d[0]: plain(v) for d, v in zip(cursor.description, row)}
        declared = json.loads(step.pop("declared") or "{}")
        given = json.loads(step["params"])
        step["params"] = [{"name": p, "value": json.dumps(given.get(p), ensure_ascii=False),
                           "type": declared.get(p, {}).get("type", ""),
                           "doc": declared.get(p, {}).get("doc", "")}
                          for p in sorted(set(given) | set(declared))]
        out.append(step)
    return out


def decision_counts(archive: Archive, name: str) -> list[dict]:
    """Decisions of this version by step, rule, action and field."""
    cursor = archive.con.execute(
        "SELECT step, rule, action, field, count(*) AS decisions, count(DISTINCT line_no) AS jobs "
        "FROM decisions WHERE version_id = ? GROUP BY ALL ORDER BY step, action, field NULLS FIRST",
        [archive.log_id(name)])
    return [{d[0]: plain(v) for d, v in zip(cursor.description, r)} for r in cursor.fetchall()]


def job_runs(archive: Archive, log_id: int) -> list[int]:
    """The log's job numbers as runs of consecutive numbers, flat: [first,
    last, first, last, ...] in order. Logs number their jobs mostly one after
    another, so a log of 200,000 jobs takes a few numbers, not 200,000."""
    rows = archive.con.execute(
        "WITH j AS (SELECT DISTINCT job FROM jobs WHERE log_id = ?), "
        "r AS (SELECT job, job - row_number() OVER (ORDER BY job) AS run FROM j) "
        "SELECT min(job), max(job) FROM r GROUP BY run ORDER BY 1", [log_id]).fetchall()
    return [int(n) for row in rows for n in row]


def decisions_script(archive: Archive, name: str) -> tuple[str, int]:
    """Every decision on the jobs of this version and of the versions it was
    built from, as a script that sets `window.wlaDecisions` (a page opened
    from file:// may load scripts but not fetch JSON). Reasons repeat over
    many jobs, so each is written once and the rows hold its number. With
    them the job numbers the version keeps and those of the log it was built
    from, so that the lookup tells a kept job from one the log never had."""
    newest_first = lineage(archive, name)
    ids = sorted(newest_first)
    source = archive.con.execute("SELECT v.source_log_id, l.name FROM versions v JOIN logs l "
                                 "ON l.log_id = v.source_log_id WHERE v.log_id = ?", [newest_first[-1]]).fetchall()[0]
    rows = archive.con.execute(
        "SELECT version, step, rule, line_no, job, action, field, old_value, new_value, reason "
        "FROM decisions WHERE list_contains(?, version_id) "
        "ORDER BY version_id, step, line_no, field NULLS FIRST", [ids]).fetchall()
    reasons: dict[str, int] = {}
    data = []
    for row in rows:
        *values, reason = (plain(v) for v in row)
        data.append([*values, reasons.setdefault(reason, len(reasons))])
    payload = {"version": name, "columns": DECISION_COLUMNS, "reasons": list(reasons), "rows": data,
               "log": source[1], "log_jobs": job_runs(archive, source[0]),
               "kept": job_runs(archive, archive.log_id(name))}
    text = "window.wlaDecisions = " + json.dumps(payload, separators=(",", ":"), sort_keys=True) + ";\n"
    return text, len(rows)


def write_published(archive: Archive, name: str, recorded_sha256: str, swf_path: Path, prov_path: Path) -> int:
    """The published SWF file, made as `wla publish` makes it, and the
    version's PROV-JSON. The text must have the sha256 publishing recorded:
    else the archive was changed since and the site would show another file."""
    text = swf_bytes(archive, name)
    sha = hashlib.sha256(text).hexdigest()
    if sha != recorded_sha256:
        raise WlaError(f"{name} was published with sha256 {recorded_sha256[:12]} and now reads {sha[:12]}; "
                       "the archive has been changed by hand (not put in the site)")
    write_bytes(swf_path, text)
    write_bytes(prov_path, provenance_json(archive, name).encode("utf-8"))
    return 2


def version_page(archive: Archive, name: str) -> dict:
    """Everything the version section of a version's page shows."""
    facts = version_facts(archive, name)
    return {"version": facts, "steps": version_steps(archive, name),
            "counts": decision_counts(archive, name), "decision_columns": DECISION_COLUMNS}
