"""The jobs of A and B paired by job number and occurrence (a number that
occurs k times in a log: its i-th line in A with its i-th line in B), as
temporary tables of the connection that live while the diff reads them:

- `wla_diff_rows`: both logs' jobs, with their side and occurrence
- `wla_diff_match`: every pair not the same in both (only in A, only in B, changed)
- `wla_diff_values`: the fields of the changed jobs, one row each, as exact text
- `wla_diff_groups`: the jobs of each group findings.py describes
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from ...store.file import Archive
from .sql import statement

MADE = ("rows", "match", "values", "groups")  # each reads those before it
DROPPED = ("drop_groups", "drop_values", "drop_match", "drop_rows")


@contextmanager
def paired(archive: Archive, a: int, b: int) -> Iterator[None]:
    """The tables of the logs `a` and `b` (log ids) while the block runs,
    dropped after it, however it ends."""
    con = archive.con
    try:
        con.execute(statement("rows"), {"a": a, "b": b})
        for name in MADE[1:]:
            con.execute(statement(name))
        yield
    finally:
        for name in DROPPED:
            con.execute(statement(name))
