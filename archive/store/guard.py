"""The one gate every user-supplied query passes: exactly one reading statement.

A query from a user (`wla sql`, `--query`, `Archive.sql`) must be read the
same way by two parsers before it runs. sqlglot parses it into a tree whose
statement is on an allow-list and which holds no writing node anywhere; what
sqlglot cannot parse is refused, never passed on. DuckDB's own parser must
then also see one statement, of type SELECT, and that statement (not the raw
text) is what runs, so a text the two parsers split differently (a quote
escaped for one and not the other) cannot smuggle a second statement in.
Behind this gate the archive connection itself is read-only with file access,
extension loading and configuration changes switched off (store.py).
"""
from __future__ import annotations

import duckdb
import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError

from ..kernel.errors import QueryError, one_line

# Statements a query may be: SELECT (with WITH and FROM-first forms), set
# operations, a parenthesized query, and the describing statements.
ALLOWED_STATEMENTS: tuple[type[exp.Expression], ...] = (
    exp.Select, exp.SetOperation, exp.Subquery, exp.Describe, exp.Show, exp.Summarize,
)

# Nodes that write, change the session or stand for a statement sqlglot did
# not understand; refused wherever they appear in the tree.
_WRITING: tuple[type[exp.Expression], ...] = (
    exp.DDL, exp.DML, exp.Command, exp.Into, exp.Set, exp.Pragma, exp.Use, exp.Attach,
    exp.Detach, exp.Install, exp.Transaction, exp.Commit, exp.Rollback, exp.Drop, exp.Alter,
    exp.TruncateTable, exp.Export, exp.LoadData, exp.Grant, exp.Analyze, exp.Cache,
    exp.Uncache, exp.Refresh, exp.Kill, exp.Declare, exp.Put, exp.Get, exp.Execute,
)

# Functions that run SQL held in a string, which the gate cannot see into.
_HIDDEN_SQL = frozenset({"query", "query_table", "json_execute_serialized_sql"})

_ADVICE = "queries only read: SELECT, WITH, UNION/INTERSECT/EXCEPT, DESCRIBE, SHOW, SUMMARIZE"


def _kind(node: exp.Expression) -> str:
    if isinstance(node, exp.Command):  # a statement sqlglot knows only by its first word
        return str(node.this).upper()
    return node.key.upper()


def parse_query(text: str) -> exp.Expression:
    """The query's one statement as sqlglot reads it, or QueryError saying why not."""
    if not isinstance(text, str):
        raise QueryError(f"a query is text, not {type(text).__name__}")
    if not text.strip():
        raise QueryError("the query is empty")
    try:
        statements = sqlglot.parse(text, read="duckdb", error_level=ErrorLevel.RAISE)
    except SqlglotError as e:
        raise QueryError(f"cannot read the query as one reading statement: {one_line(e)}") from None
    except RecursionError:
        raise QueryError("cannot read the query: it is nested too deeply") from None
    statements = [s for s in statements if s is not None]
    if not statements:
        raise QueryError("the query holds no statement (only comments or semicolons)")
    if len(statements) != 1:
        raise QueryError(f"one statement at a time, not {len(statements)}")
    tree = statements[0]
    if isinstance(tree, exp.Command):
        raise QueryError(f"the archive is read-only for queries: {_kind(tree)} ... is not a reading statement "
                         f"wla can check ({_ADVICE})")
    if not isinstance(tree, ALLOWED_STATEMENTS):
        raise QueryError(f"the archive is read-only for queries: {_kind(tree)} statements are not allowed "
                         f"({_ADVICE})")
    for node in tree.walk():
        if isinstance(node, _WRITING):
            raise QueryError(f"the archive is read-only for queries: {_kind(node)} is not allowed "
                             f"inside a query ({_ADVICE})")
        if isinstance(node, exp.Anonymous) and str(node.this).lower() in _HIDDEN_SQL:
            raise QueryError(f"{node.this}() runs SQL held in a string, which is not allowed in a query")
    return tree


def checked_statement(con: duckdb.DuckDBPyConnection, text: str) -> duckdb.Statement:
    """The one SELECT statement DuckDB reads in `text`, once sqlglot agrees it
    only reads; run this statement, not the text."""
    parse_query(text)
    try:
        statements = con.extract_statements(text)
    except duckdb.Error as e:
        raise QueryError(one_line(e)) from None
    if len(statements) != 1:
        raise QueryError(f"one statement at a time, not {len(statements)} (as the database reads it)")
    statement = statements[0]
    if statement.type != duckdb.StatementType.SELECT:
        kind = str(statement.type).rsplit(".", 1)[-1]
        raise QueryError(f"the archive is read-only for queries: {kind} statements are not allowed ({_ADVICE})")
    return statement
