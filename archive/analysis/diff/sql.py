"""The statements of both diffs, read by name from `schema/diff.sql`.

One file holds every statement `wla diff` runs, job by job and by rule,
written one way: constant SQL with its values bound as `$name` parameters.
They are DuckDB's own SQL (UNPIVOT over COLUMNS(*), QUALIFY, SEMI and ANTI
joins), which sqlglot does not read as a tree, and nothing in them comes
from outside but the bound values (tests/test_sql_one_way.py).
"""
from __future__ import annotations

import re
from functools import cache

from wla.schema import load_sql

# `-- name: NAME`, then the statement, up to the first line that ends with a semicolon.
_STATEMENT = re.compile(r"^-- name: (\w+)\n(.*?);[ \t]*$", re.MULTILINE | re.DOTALL)


@cache
def statements() -> dict[str, str]:
    """Every statement of schema/diff.sql, by its name, in the file's order."""
    return {m.group(1): m.group(2) for m in _STATEMENT.finditer(load_sql("diff"))}


def statement(name: str) -> str:
    """The statement called `name`, as DuckDB runs it (without its semicolon)."""
    return statements()[name]
