"""A rule's fingerprint: sha256 of canonical JSON of what changes what the
rule does (its normalized SQL, its parameters' names, types, defaults and
ranges, its action, its computed part), never its layout, comments,
rationale or the parameters' descriptions.
"""
from __future__ import annotations

import hashlib
import json

from sqlglot import exp

from .header import rule_parts
from .params import Param


def normal_sql(body: exp.Expression) -> str:
    """The SQL as sqlglot writes it back: comments, case of identifiers and
    white space do not count."""
    return body.sql(dialect="duckdb", comments=False, normalize=True)


def param_canon(p: Param) -> list:
    """What of a parameter changes what a rule does: its name, type, whether
    it is required, default and range (not its description). A number's
    default is a float, so `5` and `5.0` are the same default."""
    default = float(p.default) if p.type == "number" and p.default is not None else p.default
    return [p.name, p.type, p.required, default, str(p.bounds) if p.bounds else None]


def canonical(body: exp.Expression, params: dict[str, Param], action: str = "modify",
              computed: str | None = None) -> str:
    """The rule as the fingerprint reads it: canonical JSON of its normalized
    SQL, its parameters (by name), its action and its computed part."""
    canon = {"sql": normal_sql(body), "params": [param_canon(params[k]) for k in sorted(params)],
             "action": action, "computed": computed}
    return json.dumps(canon, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def fingerprint(body: exp.Expression, params: dict[str, Param], action: str = "modify",
                computed: str | None = None) -> str:
    """sha256 of the whole rule (see canonical): a new default, type, range
    or parameter is a new fingerprint as much as new SQL is; layout,
    comments and the rationale are not."""
    return hashlib.sha256(canonical(body, params, action, computed).encode("utf-8")).hexdigest()


def fingerprint_v1(body: exp.Expression) -> str:
    """The fingerprint as archives of schema version 1 recorded it: of the
    SQL alone. Only to recognise a version published then (build.clean)."""
    return hashlib.sha256(normal_sql(body).encode("utf-8")).hexdigest()


def rule_fingerprint(text: str, file: str) -> str:
    """The fingerprint of a rule file's text, without checking it against
    the archive's tables (a rule the archive kept from an older schema)."""
    keys, params, body, action = rule_parts(text, file)
    return fingerprint(body, params, action, keys.get("computed") or None)
