"""SQL statements built as sqlglot trees, never as text with values pasted in.

A name (of a view, a table, a column) becomes a quoted identifier, a value a
literal or a bound parameter (`?`); sqlglot writes the statement. Constant
SQL with nothing from outside in it stays plain text. The one DuckDB form
sqlglot does not write, a view's `WITH (DEFER_BINDING)`, is a node of the
dialect below. tests/test_sql_one_way.py keeps SQL from being pasted again.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import duckdb
from sqlglot import exp
from sqlglot.dialects.duckdb import DuckDB


class DeferBinding(exp.Property):
    """`WITH (DEFER_BINDING)` on a view: bound when queried, not when made."""

    arg_types: dict = {}


class WlaDuckDB(DuckDB):
    """DuckDB as sqlglot writes it, plus DeferBinding."""

    class Generator(DuckDB.Generator):
        PROPERTIES_LOCATION = {**DuckDB.Generator.PROPERTIES_LOCATION,
                               DeferBinding: exp.Properties.Location.POST_WITH}
        TRANSFORMS = {**DuckDB.Generator.TRANSFORMS, DeferBinding: lambda self, e: "DEFER_BINDING"}


def text(statement: exp.Expression) -> str:
    """The statement as DuckDB SQL."""
    return statement.sql(dialect=WlaDuckDB)


def run(con: duckdb.DuckDBPyConnection, statement: exp.Expression,
        params: Sequence | dict | None = None) -> duckdb.DuckDBPyConnection:
    """Execute a statement built here, with its bound parameters."""
    return con.execute(text(statement), params if params is not None else [])


def name(identifier: str) -> exp.Identifier:
    """Any name as a quoted identifier (`"LOG@v1/2-recover"`, quotes doubled)."""
    return exp.to_identifier(identifier, quoted=True)


def table(identifier: str) -> exp.Table:
    """A table or view by its name, quoted."""
    return exp.Table(this=name(identifier))


def columns(names: Iterable[str], table_alias: str | None = None) -> list[exp.Column]:
    return [exp.column(c, table=table_alias) for c in names]


def call(function: str, *args: exp.Expression) -> exp.Anonymous:
    """A DuckDB function call written exactly as named (sqlglot would turn
    some, e.g. concat, into an operator with other NULL semantics)."""
    return exp.Anonymous(this=function, expressions=list(args))


def create_view(view: str, query: exp.Query, defer_binding: bool = False) -> exp.Create:
    props = exp.Properties(expressions=[DeferBinding()]) if defer_binding else None
    return exp.Create(this=table(view), kind="VIEW", expression=query, properties=props)


def create_table(target: str, query: exp.Query, temporary: bool = False,
                 replace: bool = False) -> exp.Create:
    props = exp.Properties(expressions=[exp.TemporaryProperty()]) if temporary else None
    return exp.Create(this=table(target), kind="TABLE", expression=query, replace=replace,
                      properties=props)


def drop(kind: str, target: str, if_exists: bool = False) -> exp.Drop:
    """DROP VIEW or DROP TABLE of one name."""
    return exp.Drop(tables=[table(target)], kind=kind, exists=if_exists)


def delete_where(target: str, key: str) -> exp.Delete:
    """DELETE FROM target WHERE key = ?"""
    return exp.delete(table(target), where=exp.column(key).eq(exp.Placeholder()))


def insert_row(target: str, names: Sequence[str], now: Sequence[str] = ()) -> exp.Insert:
    """INSERT of one row: a `?` per name, now() for the columns in `now`."""
    values = [exp.Placeholder() for _ in names] + [exp.func("now") for _ in now]
    return exp.insert(exp.values([tuple(values)]), table(target),
                      columns=[name(c) for c in (*names, *now)])


def insert_select(target: str, query: exp.Query, names: Sequence[str] | None = None) -> exp.Insert:
    return exp.insert(query, table(target), columns=[name(c) for c in names] if names else None)


def comment_on_table(target: str, comment: str) -> exp.Comment:
    return exp.Comment(this=table(target), kind="TABLE", expression=exp.Literal.string(comment))


def copy_to_parquet(source: str, path: str, metadata: dict[str, str]) -> exp.Copy:
    """COPY source TO 'path' (FORMAT parquet, KV_METADATA {key: 'value', ...})."""
    kv = exp.Struct(expressions=[exp.PropertyEQ(this=name(k), expression=exp.Literal.string(v))
                                 for k, v in metadata.items()])
    return exp.Copy(this=table(source), kind=False, files=[exp.Literal.string(path)],
                    params=[exp.CopyParameter(this=exp.var("FORMAT"), expression=exp.var("parquet")),
                            exp.CopyParameter(this=exp.var("KV_METADATA"), expression=kv)])
