"""A rule's query against the archive's schema: every table and column
known, every job column returned and nothing but `_drop` and `_why_<field>`
besides, and its lineage (the job columns it reads and those it writes).
"""
from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, traverse_scope
from wla.archive.kernel.errors import RuleError, one_line
from wla.schema import load_sql

from ...swf.fields import COLUMNS, FIELDS

JOB_COLUMNS: tuple[str, ...] = ("line_no", *COLUMNS)


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


def check_query(body: exp.Expression, file: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Refuse unknown tables and columns and a wrong output; return the
    columns the rule returns, and the job columns it reads and writes."""
    schema = table_schema()
    named = _named(body, schema, file)
    for table in body.find_all(exp.Table):
        if table.name not in schema and table.name not in named:
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


def _named(body: exp.Expression, schema: dict[str, dict[str, str]], file: str) -> set[str]:
    """The names the query's WITH gives its parts; none may hide a table
    (binding reads every `input` as the step before)."""
    names = {cte.alias_or_name for cte in body.find_all(exp.CTE)}
    hiding = sorted(names & set(schema))
    if hiding:
        raise RuleError(f"{file}: a WITH part is named {hiding[0]!r}, as a table a rule reads; rename it")
    return names


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
