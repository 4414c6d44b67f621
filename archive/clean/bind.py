"""Turning a rule and its parameter values into the SQL of one step.

Values enter the rule only as nodes of sqlglot's tree (literals, or a
predicate rebuilt from its whitelist), never by pasting text.
"""
from __future__ import annotations

import json
import numbers

from sqlglot import exp

from ..kernel.clock import LogClock
from ..kernel.errors import RuleError
from ..store.predicate import parse_predicate, submit_seconds
from .rules import Rule

# `$name_text` stands in reasons, which every dropped or changed job repeats:
# a predicate of thousands of terms is shortened there (the step's parameters
# keep it whole).
TEXT_WIDTH = 240


def value_text(value: object) -> str:
    """A parameter value as a person writes it (reasons, notes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    if value is None:
        return "none"
    return str(value)


def short_text(value: object) -> str:
    """value_text, shortened to TEXT_WIDTH characters."""
    text = value_text(value)
    return text if len(text) <= TEXT_WIDTH else text[: TEXT_WIDTH - 1] + "\u2026"


def _quoted(value: object) -> str:
    """A value for a header line: every string inside it JSON-quoted with
    non-ASCII escaped, so no line break (\\n, \\r, U+2028 ...) can get out."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=True)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_quoted(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_quoted(str(k))}: {_quoted(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (bool, numbers.Real)) or value is None:
        return value_text(value)
    return json.dumps(str(value), ensure_ascii=True)


def params_text(params: dict[str, object]) -> str:
    """Parameters as `name=value, ...` on one line (strings JSON-quoted)."""
    return ", ".join(f"{k}={_quoted(v)}" for k, v in params.items())


def _number(value: float | int) -> exp.Expression:
    # In parentheses: `-$x` with x = -5 must not read `--5`, a comment.
    return exp.Paren(this=exp.Literal.number(value))


def _literal(rule: Rule, name: str, value: object, clock: LogClock) -> exp.Expression:
    ptype = rule.params[name].type
    if value is None:
        return exp.Null()
    if ptype in ("integer", "number"):
        return _number(value)
    if ptype == "boolean":
        return exp.Boolean(this=bool(value))
    if ptype == "text":
        return exp.Literal.string(value)
    if ptype == "predicate":
        return exp.Paren(this=parse_predicate(str(value), clock))
    if ptype == "time":
        return _number(submit_seconds(value, clock) if isinstance(value, str) else value)
    raise RuleError(f"{rule.file}: ${name} of type {ptype} cannot stand here")


def bind(rule: Rule, params: dict[str, object], clock: LogClock, builtins: dict[str, int],
         source: exp.Expression) -> exp.Expression:
    """The rule's SELECT with every `$name` replaced and `input` read from
    `source` (a table, a view or a subquery)."""
    body = rule.body.copy()
    for ph in list(body.find_all(exp.Placeholder)):
        name = ph.name
        if name in builtins:
            ph.replace(_number(builtins[name]))
        elif name.endswith("_text") and name[:-5] in params:
            ph.replace(exp.Literal.string(short_text(params[name[:-5]])))
        elif rule.params[name].type == "integers":
            parent = ph.parent
            if not isinstance(parent, exp.In) or ph.arg_key != "field":
                raise RuleError(f"{rule.file}: ${name} is a list and stands only after IN")
            values = params[name] or []
            if values:
                parent.set("field", None)
                parent.set("expressions", [exp.Literal.number(v) for v in values])
            else:
                parent.replace(exp.false())
        else:
            ph.replace(_literal(rule, name, params[name], clock))
    for table in list(body.find_all(exp.Table)):
        if table.name == "input" and not table.args.get("db"):
            relation = source.copy()
            relation.set("alias", exp.TableAlias(this=exp.to_identifier(table.alias or "input")))
            table.replace(relation)
    return body
