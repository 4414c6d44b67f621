"""A rule file read into its parts: the header block (name, version,
rationale, parameters, action, computed part) and the one query after it,
parsed strictly. Nothing here checks the query against the archive's tables
(checks.py does).

A parameter line reads `--   name (type[ range][, default value]): what it is`,
the range one of `>= N`, `> N`, `<= N`, `< N` or `in [A, B]` (a round bracket
leaves its end out).
"""
from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers
from sqlglot.tokens import TokenType
from wla.archive.kernel.errors import RuleError

from ...store.predicate import split_statements
from .params import PARAM_TYPES, Param, parse_bounds, parse_default

ACTIONS = ("modify", "recover")  # what a changed field is, in decisions
_HEADER_KEY = re.compile(r"^--\s*(name|version|rationale|params|action|computed):\s*(.*)$")
_PARAM = re.compile(r"^--\s+(\w+) \((\w+)(?: ([^,]+?|in [\[(][^\])]*[\])]))?(?:, default (.+?))?\): (.+)$")
_DUCKDB = Dialect.get_or_raise("duckdb")
_QUERY_START = {TokenType.SELECT, TokenType.WITH, TokenType.FROM, TokenType.L_PAREN}


def _header(text: str, file: str) -> tuple[dict[str, str], dict[str, Param], str]:
    """The header block's keys, its parameters and the SQL after it."""
    lines = text.splitlines()
    keys: dict[str, str] = {}
    params: dict[str, Param] = {}
    current = None
    i = 0
    for i, line in enumerate(lines):
        if not line.startswith("--"):
            break
        m = _HEADER_KEY.match(line)
        if m:
            current = m.group(1)
            keys[current] = m.group(2).strip()
            continue
        if current == "params":
            p = _PARAM.match(line)
            if not p:
                raise RuleError(f"{file}:{i + 1}: a parameter reads "
                                "'--   name (type[ range][, default value]): what it is'")
            name, ptype, limits, default, doc = p.groups()
            if ptype not in PARAM_TYPES:
                raise RuleError(f"{file}:{i + 1}: unknown parameter type {ptype!r}; one of: {', '.join(PARAM_TYPES)}")
            where = f"{file}:{i + 1}"
            bounds = parse_bounds(limits, ptype, where)
            params[name] = Param(name, ptype, parse_default(default, ptype, where, bounds) if default else None,
                                 default is None, doc.strip(), bounds)
        elif current == "rationale":
            keys["rationale"] = (keys["rationale"] + " " + line[2:].strip()).strip()
        elif line[2:].strip():
            raise RuleError(f"{file}:{i + 1}: unexpected header line {line!r}")
    else:
        i = len(lines)
    for key in ("name", "version", "rationale"):
        if not keys.get(key):
            raise RuleError(f"{file}: the header has no {key!r}")
    return keys, params, "\n".join(lines[i:])


def _query(sql_text: str, file: str) -> exp.Expression:
    """The rule's one query, parsed strictly. Only text that begins as a
    query reaches the parser: sqlglot reads a statement it does not know
    (CALL, LOAD ...) as a 'Command', with a warning on its logger."""
    try:
        chunks = split_statements(_DUCKDB.tokenize(sql_text))
        if len(chunks) != 1 or chunks[0][0].token_type not in _QUERY_START:
            raise RuleError(f"{file}: a rule is one SELECT over input")
        parser = _DUCKDB.parser(error_level=ErrorLevel.IMMEDIATE)
        statements = [s for s in parser.parse(chunks[0], sql_text) if s is not None]
    except sqlglot.errors.SqlglotError as e:
        raise RuleError(f"{file}: cannot parse the SQL: {str(e).splitlines()[0]}") from None
    if len(statements) != 1 or not isinstance(statements[0], exp.Query):
        raise RuleError(f"{file}: a rule is one SELECT over input")
    return statements[0]


def rule_parts(text: str, file: str) -> tuple[dict[str, str], dict[str, Param], exp.Expression, str]:
    """The header's keys and parameters, the parsed SELECT, and the action."""
    keys, params, sql_text = _header(text, file)
    body = normalize_identifiers(_query(sql_text, file), dialect="duckdb")  # unquoted names: any case
    action = keys.get("action") or "modify"
    if action not in ACTIONS:
        raise RuleError(f"{file}: action {action!r} is not one of: {', '.join(ACTIONS)}")
    return keys, params, body, action
