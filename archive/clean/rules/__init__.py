"""Cleaning rules: SQL files with a header, checked and fingerprinted with sqlglot.

A rule is a SELECT over the relation `input` (the columns line_no and the 18
fields) that returns the same columns, with new values where it changes
them, plus optional columns the engine reads:

- `_drop`: why the job is dropped (NULL keeps it);
- `_why_<field>`: why that field changed (read only where it did).

Parameters are written `$name` and become literals through sqlglot's tree;
each is also available as `$name_text`, its value as text. `$version_id` and
`$step` name the step being built. A rule whose header says `computed: X`
reads `computed_drops`, which Python fills before the view is made.

A parameter line reads `--   name (type[ range][, default value]): what it is`,
the range one of `>= N`, `> N`, `<= N`, `< N` or `in [A, B]` (a round bracket
leaves its end out). Every number, in range or not, is finite and within the
64-bit range: it becomes a literal that DuckDB compares with 64-bit fields.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, traverse_scope
from sqlglot.tokens import TokenType
from wla.schema import load_sql

from ...errors import InputError, InvalidName, RuleError, one_line
from ...names import check_name
from ...swf.fields import COLUMNS, FIELDS
from ..predicate import split_statements
from ..textfile import read_text

JOB_COLUMNS: tuple[str, ...] = ("line_no", *COLUMNS)
PARAM_TYPES = ("integer", "number", "boolean", "text", "integers", "predicate", "time")
BUILTINS = ("version_id", "step")
_HEADER_KEY = re.compile(r"^--\s*(name|version|rationale|params|action|computed):\s*(.*)$")
_PARAM = re.compile(r"^--\s+(\w+) \((\w+)(?: ([^,]+?|in [\[(][^\])]*[\])]))?(?:, default (.+?))?\): (.+)$")
_BOUND = re.compile(r"^(>=|>|<=|<) (\S+)$")
_INTERVAL = re.compile(r"^in ([\[(])\s*(\S+?)\s*,\s*(\S+?)\s*([\])])$")
INT64 = (-(2**63), 2**63 - 1)
_DUCKDB = Dialect.get_or_raise("duckdb")
_QUERY_START = {TokenType.SELECT, TokenType.WITH, TokenType.FROM, TokenType.L_PAREN}
NUMERIC = ("integer", "number", "integers", "time")
ACTIONS = ("modify", "recover")  # what a changed field is, in decisions


@dataclass(frozen=True)
class Bounds:
    """The values a numeric parameter may take, as its header states them."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False  # `> low` rather than `>= low`
    high_open: bool = False

    def admits(self, x: float) -> bool:
        if self.low is not None and (x < self.low or (self.low_open and x == self.low)):
            return False
        return not (self.high is not None and (x > self.high or (self.high_open and x == self.high)))

    def __str__(self) -> str:
        if self.low is not None and self.high is not None:
            return (f"in {'(' if self.low_open else '['}{_num(self.low)}, {_num(self.high)}"
                    f"{')' if self.high_open else ']'}")
        if self.low is not None:
            return f"{'>' if self.low_open else '>='} {_num(self.low)}"
        return f"{'<' if self.high_open else '<='} {_num(self.high)}"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: object  # None: no default (required) or 'none' (filled per log)
    required: bool
    doc: str
    bounds: Bounds | None = None  # for integer, number and integers


@dataclass(frozen=True)
class Rule:
    name: str
    version: int
    rationale: str
    params: dict[str, Param]
    sql: str  # the whole file
    body: exp.Expression  # the parsed SELECT
    fingerprint: str
    file: str
    action: str = "modify"  # what a changed field is: 'modify' or 'recover'
    computed: str | None = None
    outputs: tuple[str, ...] = field(default=())  # the columns it returns
    reads: tuple[str, ...] = field(default=())  # job columns it reads (lineage)
    writes: tuple[str, ...] = field(default=())  # job columns it may change

    def as_dict(self) -> dict:
        """The rule as `wla rules --json` shows it."""
        return {
            "name": self.name, "version": self.version, "fingerprint": self.fingerprint, "file": self.file,
            "rationale": self.rationale,
            "params": [{"name": p.name, "type": p.type, "required": p.required,
                        "default": None if p.required else p.default, "doc": p.doc}
                       for p in self.params.values()],
            "reads": list(self.reads), "writes": list(self.writes),
        }

    def params_json(self) -> str:
        return json.dumps({p.name: {"type": p.type, "default": p.default, "required": p.required,
                                    "doc": p.doc, **({"range": str(p.bounds)} if p.bounds else {})}
                           for p in self.params.values()}, sort_keys=True)


def _default(text: str, ptype: str, where: str, bounds: Bounds | None) -> object:
    if text == "none":
        return None
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        raise RuleError(f"{where}: default {text!r} is not a TOML value") from None
    return check_value(value, ptype, f"{where}: default", bounds)


def _bounds(text: str | None, ptype: str, where: str) -> Bounds | None:
    """A range as a parameter line states it, or None."""
    if text is None:
        return None
    if ptype not in ("integer", "number", "integers"):
        raise RuleError(f"{where}: a range is for integer, number and integers parameters, "
                        f"not {ptype}")

    def number(t: str) -> float:
        try:
            x = float(t)
        except ValueError:
            raise RuleError(f"{where}: {t!r} in the range is not a number") from None
        if not math.isfinite(x):
            raise RuleError(f"{where}: the range {text!r} has an end that is not finite")
        return x

    m = _BOUND.match(text)
    if m:
        op, x = m.group(1), number(m.group(2))
        if op.startswith(">"):
            return Bounds(low=x, low_open=op == ">")
        return Bounds(high=x, high_open=op == "<")
    m = _INTERVAL.match(text)
    if m:
        low, high = number(m.group(2)), number(m.group(3))
        if low > high:
            raise RuleError(f"{where}: the range {text!r} is empty")
        return Bounds(low, high, m.group(1) == "(", m.group(4) == ")")
    raise RuleError(f"{where}: {text!r} is not a range; write >= N, > N, <= N, < N or in [A, B]")


def _number_problem(x: float) -> str | None:
    """Why a number cannot be a parameter's value, or None."""
    if isinstance(x, float) and not math.isfinite(x):
        return "is not a finite number"
    if not INT64[0] <= x <= INT64[1]:
        return "is outside the 64-bit range of the fields (about ±9.2e18)"
    return None


def check_value(value: object, ptype: str, where: str, bounds: Bounds | None = None) -> object:
    """A parameter value of the declared type, finite, within 64 bits and
    within the parameter's range, or an error naming where."""
    ok = {
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "text": isinstance(value, str),
        "predicate": isinstance(value, str),
        "time": isinstance(value, (int, float, str)) and not isinstance(value, bool),
        "integers": isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool)
                                                    for v in value),
    }[ptype]
    if not ok:
        raise RuleError(f"{where}: {value!r} is not of type {ptype}")
    if ptype in NUMERIC and not isinstance(value, str):
        for x in value if isinstance(value, list) else [value]:
            why = _number_problem(x)
            if why is None and bounds is not None and not bounds.admits(x):
                why = f"is out of range: {ptype} {bounds}"
            if why is not None:
                raise RuleError(f"{where}: {x!r} {why}")
    return value


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
            bounds = _bounds(limits, ptype, where)
            params[name] = Param(name, ptype, _default(default, ptype, where, bounds) if default else None,
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


def _normal_sql(body: exp.Expression) -> str:
    """The SQL as sqlglot writes it back: comments, case of identifiers and
    white space do not count."""
    return body.sql(dialect="duckdb", comments=False, normalize=True)


def _param_canon(p: Param) -> list:
    """What of a parameter changes what a rule does: its name, type, whether
    it is required, default and range (not its description). A number's
    default is a float, so `5` and `5.0` are the same default."""
    default = float(p.default) if p.type == "number" and p.default is not None else p.default
    return [p.name, p.type, p.required, default, str(p.bounds) if p.bounds else None]


def canonical(body: exp.Expression, params: dict[str, Param], action: str = "modify",
              computed: str | None = None) -> str:
    """The rule as the fingerprint reads it: canonical JSON of its normalized
    SQL, its parameters (by name), its action and its computed part."""
    canon = {"sql": _normal_sql(body), "params": [_param_canon(params[k]) for k in sorted(params)],
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
    return hashlib.sha256(_normal_sql(body).encode("utf-8")).hexdigest()


def table_schema() -> dict[str, dict[str, str]]:
    """The archive's tables, read from tables.sql, plus `input`."""
    tables: dict[str, dict[str, str]] = {}
    for statement in sqlglot.parse(load_sql("tables"), read="duckdb"):
        if isinstance(statement, exp.Create) and statement.kind == "TABLE":
            schema = statement.this
            tables[schema.this.name] = {c.name: c.args["kind"].sql("duckdb")
                                        for c in schema.expressions if isinstance(c, exp.ColumnDef)}
    types = {f.column: "BIGINT" if f.integer else "DOUBLE" for f in FIELDS}
    tables["input"] = {"line_no": "INTEGER", **types}
    return tables


def _check(body: exp.Expression, file: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Refuse unknown tables and columns and a wrong output; return the
    columns the rule returns, and the job columns it reads and writes."""
    schema = table_schema()
    for table in body.find_all(exp.Table):
        if table.name not in schema:
            raise RuleError(f"{file}: unknown table {table.name!r}; a rule reads input "
                            f"and the archive's tables ({', '.join(sorted(schema))})")
    try:
        checked = qualify(body.copy(), schema=schema, dialect="duckdb", validate_qualify_columns=False)
    except sqlglot.errors.OptimizeError as e:
        raise RuleError(f"{file}: {one_line(e)}; input has {', '.join(JOB_COLUMNS)}") from None
    what = _unresolved(checked, schema)
    if what is not None:
        raise RuleError(f"{file}: {what}; input has {', '.join(JOB_COLUMNS)}")
    out = checked.named_selects
    missing = [c for c in JOB_COLUMNS if c not in out]
    if missing:
        raise RuleError(f"{file}: the rule must return every job column; missing: {', '.join(missing)}")
    extra = [c for c in out if c not in JOB_COLUMNS and c != "_drop"
             and not (c.startswith("_why_") and c[5:] in COLUMNS)]
    if extra:
        raise RuleError(f"{file}: unexpected output columns {', '.join(extra)}; besides the job "
                        "columns a rule returns only _drop and _why_<field>")
    return (tuple(out), *_lineage(checked))


def _unresolved(checked: exp.Expression, schema: dict[str, dict[str, str]]) -> str | None:
    """The first column qualification left without a table, said as what is
    wrong with it: no table of its query has it, or more than one does. (The
    same columns sqlglot's validation refuses; found in the tree rather than
    read back from its message.)"""
    for scope in traverse_scope(checked):
        if not isinstance(scope.expression, exp.Select):
            continue
        outside = [] if scope.is_correlated_subquery or scope.pivots else scope.external_columns
        for column in [*outside, *scope.unqualified_columns]:
            having = [alias for alias, (_, source) in scope.selected_sources.items()
                      if column.name in (source.expression.named_selects if isinstance(source, Scope)
                                         else schema.get(source.name, {}))]
            if not column.table and len(having) > 1:
                return f"ambiguous column {column.name!r} (in {', '.join(having)})"
            name = f"{column.table}.{column.name}" if column.table else column.name
            return f"unknown column {name!r}"
    return None


def _lineage(checked: exp.Expression) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The job columns a rule reads and those it writes; a column passed
    through unchanged is neither."""
    writes, passed = [], []
    for proj in checked.expressions:
        inner = proj.unalias()
        if proj.alias_or_name in JOB_COLUMNS:
            if isinstance(inner, exp.Column) and inner.name == proj.alias_or_name:
                passed.append(proj)
            else:
                writes.append(proj.alias_or_name)
    rest = checked.copy()
    for proj in [p for p in rest.expressions
                 if isinstance(p.unalias(), exp.Column) and p.alias_or_name == p.unalias().name]:
        proj.pop()
    reads = {c.name for c in rest.find_all(exp.Column) if c.name in JOB_COLUMNS[1:]}
    return tuple(sorted(reads)), tuple(sorted(writes))


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


def _parts(text: str, file: str) -> tuple[dict[str, str], dict[str, Param], exp.Expression, str]:
    """The header's keys and parameters, the parsed SELECT, and the action."""
    keys, params, sql_text = _header(text, file)
    body = normalize_identifiers(_query(sql_text, file), dialect="duckdb")  # unquoted names: any case
    action = keys.get("action") or "modify"
    if action not in ACTIONS:
        raise RuleError(f"{file}: action {action!r} is not one of: {', '.join(ACTIONS)}")
    return keys, params, body, action


def rule_fingerprint(text: str, file: str) -> str:
    """The fingerprint of a rule file's text, without checking it against
    the archive's tables (a rule the archive kept from an older schema)."""
    keys, params, body, action = _parts(text, file)
    return fingerprint(body, params, action, keys.get("computed") or None)


def parse_rule(text: str, file: str) -> Rule:
    """A rule from its file's text, checked against the jobs schema."""
    keys, params, body, action = _parts(text, file)
    for ph in body.find_all(exp.Placeholder):
        name = ph.name
        base = name[: -len("_text")] if name.endswith("_text") else name
        if base not in params and name not in BUILTINS:
            raise RuleError(f"{file}: ${name} is not a parameter of the rule")
    try:
        version = int(keys["version"])
    except ValueError:
        raise RuleError(f"{file}: version {keys['version']!r} is not an integer") from None
    try:
        check_name(keys["name"], "rule name")
    except InvalidName as e:
        raise RuleError(f"{file}: {e}") from None
    if keys["name"] != Path(file).stem:
        raise RuleError(f"{file}: the rule is named {keys['name']!r}; the file must be {keys['name']}.sql")
    outputs, reads, writes = _check(body, file)
    return Rule(
        name=keys["name"], version=version, rationale=keys["rationale"], params=params,
        sql=text, body=body, file=file, action=action, computed=keys.get("computed") or None,
        fingerprint=fingerprint(body, params, action, keys.get("computed") or None),
        outputs=outputs, reads=reads, writes=writes,
    )


def rule_files(extra: list[str | Path] | None = None) -> list[Path]:
    """The built-in rules, then those in the folders given (a later file of
    the same name replaces an earlier one)."""
    files = sorted(Path(str(f)) for f in resources.files("wla.schema").joinpath("rules").iterdir()
                   if f.name.endswith(".sql"))
    for folder in extra or []:
        files.extend(_folder_rules(str(folder)))
    return files


def _folder_rules(name: str) -> list[Path]:
    """The *.sql files of a folder given, each a readable regular file: a
    folder that cannot be listed would otherwise add no rules without a
    word, and a FIFO named x.sql would wait for a writer forever."""
    from ...swf.rawfile import not_regular, open_regular

    try:
        mode = os.stat(name).st_mode
    except FileNotFoundError:
        raise RuleError(f"{name}: no such folder of rules") from None
    except OSError as e:
        raise InputError(name, None, f"cannot read folder ({e.strerror or e})") from None
    kind = not_regular(mode)
    if kind != "a folder":
        raise InputError(name, None, f"is {kind or 'a file'}, not a folder of rules")
    try:
        os.listdir(name)  # glob says nothing of a folder it cannot list
        files = sorted(Path(name).glob("*.sql"))
    except OSError as e:
        raise InputError(name, None, f"cannot read folder ({e.strerror or e})") from None
    for f in files:
        os.close(open_regular(str(f)))
    return files


def load_rules(extra: list[str | Path] | None = None) -> dict[str, Rule]:
    """Every rule, parsed and checked; a broken file stops everything."""
    rules: dict[str, Rule] = {}
    for f in rule_files(extra):
        rule = parse_rule(read_text(f, "rule file", RuleError), str(f))
        rules[rule.name] = rule
    return dict(sorted(rules.items()))


def record(con, rules: list[Rule]) -> None:
    """Write rules the archive has not seen; refuse one that changed (its
    SQL, a parameter, a default, a range) while its version did not."""
    for rule in rules:
        rows = con.execute("SELECT fingerprint, sql, file FROM rules WHERE name = ? AND version = ?",
                           [rule.name, rule.version]).fetchall()
        if rows and rows[0][0] != rule.fingerprint:
            raise RuleError(
                f"{rule.file}: {_changes(rows[0][1], rows[0][2], rule)} of rule {rule.name} changed "
                f"but its version is still {rule.version} (the archive has fingerprint "
                f"{rows[0][0][:12]}, the file {rule.fingerprint[:12]}); give the rule a new version"
            )
        if not rows:
            con.execute("INSERT INTO rules VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [rule.name, rule.version, rule.fingerprint, rule.sql, sqlglot.__version__,
                         rule.rationale, rule.params_json(), rule.file])


def _changes(kept: str, file: str, rule: Rule) -> str:
    """What differs between the rule the archive kept and the file, in words."""
    try:
        keys, params, body, action = _parts(kept, file)
    except RuleError:
        return "the rule"
    said = []
    if _normal_sql(body) != _normal_sql(rule.body):
        said.append("the SQL")
    def shown(p, i):
        return ("required" if i == 3 and p[2] else
                 "none" if p[i] is None else p[i] if i != 3 else json.dumps(p[i]))
    changes = []
    for name in sorted(set(params) | set(rule.params)):
        if name not in rule.params or name not in params:
            changes.append(f"{name} {'removed' if name in params else 'added'}")
            continue
        before, after = _param_canon(params[name]), _param_canon(rule.params[name])
        changes += [f"{name}: {what} {shown(before, i)} -> {shown(after, i)}"
                    for what, i in (("type", 1), ("default", 3), ("range", 4))
                    if shown(before, i) != shown(after, i)]
    if changes:
        said.append(f"the parameters ({'; '.join(changes)})")
    if action != rule.action:
        said.append(f"the action ({action} -> {rule.action})")
    if (keys.get("computed") or None) != rule.computed:
        said.append("the computed part")
    return " and ".join(said) or "the rule"


def recorded(con, name: str, version: int) -> Rule | None:
    """A rule at an older version, rebuilt from the SQL the archive kept."""
    rows = con.execute("SELECT sql, file FROM rules WHERE name = ? AND version = ?",
                       [name, version]).fetchall()
    return parse_rule(rows[0][0], rows[0][1]) if rows else None
