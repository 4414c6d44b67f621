"""The canonical job selection: a log's jobs, narrowed by predicates in the
archive's notation; every command that reads "the jobs of a log" goes here."""
from __future__ import annotations

from sqlglot import exp

from ..clean.predicate import predicate_condition
from ..clock import LogClock
from ..statements import text
from ..swf.fields import FIELDS
from .catalog import log_facts
from .file import Archive


def selection(archive: Archive, name: str, where: str | None = None,
              exclude: str | None = None) -> exp.Expression:
    """The condition picking a log's jobs, narrowed by predicates in the
    archive's notation (built through sqlglot's tree, never pasted)."""
    cond: exp.Expression = exp.column("log_id").eq(exp.Literal.number(archive.log_id(name)))
    if where is None and exclude is None:
        return cond
    info = log_facts(archive, name)
    clock = LogClock(info["unix_start_time"], info["tz"])
    if where is not None:
        cond = exp.and_(cond, predicate_condition(where, clock), copy=False)
    if exclude is not None:
        cond = exp.and_(cond, exp.not_(predicate_condition(exclude, clock)), copy=False)
    return cond


def log_select(archive: Archive, name: str, where: str | None = None,
               exclude: str | None = None) -> exp.Select:
    """The query that returns a log's jobs as written, in file order."""
    return (exp.select("line_no", *(f.column for f in FIELDS)).from_("jobs")
            .where(selection(archive, name, where, exclude), copy=False).order_by("line_no"))


def log_query(archive: Archive, name: str, where: str | None = None, exclude: str | None = None) -> str:
    """log_select as DuckDB SQL."""
    return text(log_select(archive, name, where, exclude))
