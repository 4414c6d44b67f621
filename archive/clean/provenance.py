"""A version's provenance as W3C PROV-JSON: what it came from, how, by whom."""
from __future__ import annotations

import json
from urllib.parse import quote

from ..resolve import lineage, resolve_version
from ..store.file import Archive

PREFIX = {
    "wla": "urn:wla:ns#",
    "log": "urn:wla:log:",
    "rule": "urn:wla:rule:",
    "recipe": "urn:wla:recipe:",
    "build": "urn:wla:build:",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
}


def _id(prefix: str, local: str) -> str:
    # PROV qualified names: characters outside a name are percent-encoded.
    return f"{prefix}:{quote(local, safe='')}"


def _qn(name: str) -> dict:
    return {"$": name, "type": "prov:QUALIFIED_NAME"}


def _time(value) -> dict | None:
    return None if value is None else {"$": value, "type": "xsd:dateTime"}


def provenance(archive: Archive, log: str, version: str | None = None) -> dict:
    """The PROV document of one version: the original and the version as
    entities, the build as activity, each rule at its version and the recipe
    as plans, wla as the agent."""
    named = resolve_version(archive, log, version)
    name, vid = named.name, named.log_id
    con = archive.con
    (recipe, rhash, wla_version, built_at, seconds, published_at, published_sha,
     source_id) = con.execute(
        "SELECT recipe, recipe_hash, wla_version, strftime(timezone('UTC', built_at), '%Y-%m-%dT%H:%M:%S.%fZ'), "
        "build_seconds, strftime(timezone('UTC', published_at), '%Y-%m-%dT%H:%M:%S.%fZ'), "
        "published_sha256, source_log_id FROM versions WHERE log_id = ?", [vid]).fetchall()[0]
    source, source_sha, source_jobs, source_file = con.execute(
        "SELECT name, sha256, jobs, file_name FROM logs WHERE log_id = ?", [source_id]).fetchall()[0]
    jobs, size, size_source = con.execute("SELECT jobs, machine_size, machine_size_source FROM logs "
                                          "WHERE log_id = ?", [vid]).fetchall()[0]
    steps = con.execute(
        "SELECT s.step, s.rule, s.rule_version, s.fingerprint, s.params, s.dropped, s.changed, "
        "r.sql, r.sqlglot_version, r.rationale FROM steps s JOIN rules r "
        "ON r.name = s.rule AND r.version = s.rule_version WHERE s.version_id = ? ORDER BY s.step",
        [vid]).fetchall()

    src_id, ver_id = _id("log", source), _id("log", name)
    build_id, recipe_id = _id("build", name), _id("recipe", rhash)
    agent_id = _id("wla", f"wla-{wla_version}")
    source_entity = {"prov:type": _qn("wla:Log"), "prov:label": source, "wla:jobs": source_jobs}
    if len(lineage(archive, source)) == 0:
        source_entity.update({"wla:sha256": source_sha, "wla:file": source_file})
    else:
        source_entity["prov:type"] = _qn("wla:Version")
    version_entity = {"prov:type": _qn("wla:Version"), "prov:label": name, "wla:jobs": jobs,
                      "wla:recipe_sha256": rhash}
    if size_source == "recipe":  # a step set it (the regime rule), as its Note line says
        version_entity["wla:machine_size"] = size
    if published_at is not None:
        version_entity.update({"wla:published": _time(published_at), "wla:sha256": published_sha})
    doc: dict = {
        "prefix": PREFIX,
        "entity": {
            src_id: source_entity,
            ver_id: version_entity,
            recipe_id: {"prov:type": _qn("prov:Plan"), "prov:label": f"recipe {rhash[:12]}",
                        "wla:text": recipe},
        },
        "activity": {
            build_id: {"prov:label": f"build of {name}", "prov:startTime": _time(built_at),
                       "wla:seconds": round(seconds, 3)},
        },
        "agent": {
            agent_id: {"prov:type": _qn("prov:SoftwareAgent"), "prov:label": f"wla {wla_version}",
                       "wla:version": wla_version},
        },
        "used": {"_:used1": {"prov:activity": build_id, "prov:entity": src_id}},
        "wasGeneratedBy": {"_:gen1": {"prov:entity": ver_id, "prov:activity": build_id}},
        "wasDerivedFrom": {"_:der1": {"prov:generatedEntity": ver_id, "prov:usedEntity": src_id,
                                      "prov:activity": build_id}},
        "wasAssociatedWith": {"_:assoc0": {"prov:activity": build_id, "prov:agent": agent_id,
                                           "prov:plan": recipe_id}},
    }
    for step, rule, rv, fp, params, dropped, changed, sql, sg_version, rationale in steps:
        plan = _id("rule", f"{rule}/{rv}")
        doc["entity"][plan] = {"prov:type": _qn("prov:Plan"), "prov:label": f"rule {rule} version {rv}",
                               "wla:fingerprint": fp, "wla:sql": sql, "wla:sqlglot": sg_version,
                               "wla:rationale": rationale}
        doc["wasAssociatedWith"][f"_:assoc{step}"] = {
            "prov:activity": build_id, "prov:agent": agent_id, "prov:plan": plan,
            "wla:step": step, "wla:params": params,
            "wla:dropped": dropped, "wla:changed": changed}
    return doc


def provenance_json(archive: Archive, log: str, version: str | None = None) -> str:
    return json.dumps(provenance(archive, log, version), indent=1, sort_keys=False) + "\n"
