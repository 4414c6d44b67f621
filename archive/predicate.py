"""Job predicates in the archive's own notation, turned into SQL safely.

`user=21 and job>13716 and job<16208`, with and/or/not, parentheses,
`between`, `in`, a daily window `daily('03:40','03:50')` in the log's local
time, and submit times given as dates (`submit < '1998-06-01'`). The text is
parsed with sqlglot and a new expression tree is built from a whitelist of
node kinds, fields and literal values; nothing of the text reaches the
database any other way. Anything else is refused with a message naming it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlglot
from sqlglot import exp

from .errors import WlaError
from .fields import FIELDS
from .store import one_line


class PredicateError(WlaError):
    """A predicate that is not in the notation, or names what does not exist."""


# Names a predicate may use -> jobs column. The SWF names of the id fields are
# accepted without their `_id`.
FIELD_NAMES: dict[str, str] = {f.column: f.column for f in FIELDS}
FIELD_NAMES.update({"user": "user_id", "group": "group_id", "app": "app_id",
                    "queue": "queue_id", "partition": "partition_id"})

# Comparisons a predicate may use, each with its mirror (`5 < job` is `job > 5`).
_MIRROR = {exp.GT: exp.LT, exp.LT: exp.GT, exp.GTE: exp.LTE, exp.LTE: exp.GTE,
           exp.EQ: exp.EQ, exp.NEQ: exp.NEQ}
_TIME_OF_DAY = re.compile(r"^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2})?)?$")


@dataclass(frozen=True)
class LogClock:
    """What turns dates and times of day into a log's submit seconds."""

    unix_start_time: int | None = None
    tz: str | None = None  # None: UTC


def parse_predicate(text: str, clock: LogClock = LogClock()) -> exp.Expression:
    """The predicate as a new sqlglot condition over the jobs columns."""
    try:
        statements = sqlglot.parse(text, read="duckdb")
    except sqlglot.errors.SqlglotError as e:
        raise PredicateError(f"cannot read predicate {text!r}: {one_line(e)}") from None
    statements = [s for s in statements if s is not None]
    if len(statements) != 1:
        raise PredicateError(f"a predicate is one condition, not {len(statements)} statements: {text!r}")
    return _Builder(clock).build(statements[0])


def predicate_sql(text: str, clock: LogClock = LogClock()) -> str:
    """The predicate as DuckDB SQL (generated from the rebuilt tree)."""
    return parse_predicate(text, clock).sql(dialect="duckdb")


def submit_seconds(text: str, clock: LogClock) -> int:
    """A date (in the log's local time) as seconds on the log's submit clock."""
    return _Builder(clock)._submit_seconds(text)


class _Builder:
    def __init__(self, clock: LogClock):
        self.clock = clock

    def build(self, node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.And):
            return exp.and_(self._group(node.this), self._group(node.expression))
        if isinstance(node, exp.Or):
            return exp.or_(self._group(node.this), self._group(node.expression))
        if isinstance(node, exp.Not):
            return exp.not_(self._group(node.this))
        if isinstance(node, exp.Paren):
            return exp.Paren(this=self.build(node.this))
        if type(node) in _MIRROR:
            return self._compare(node)
        if isinstance(node, exp.Between):
            field = self._field(node.this)
            return exp.Between(this=exp.column(field), low=self._value(field, node.args["low"]),
                               high=self._value(field, node.args["high"]))
        if isinstance(node, exp.In):
            field = self._field(node.this)
            if node.args.get("query") or node.args.get("unnest") or not node.expressions:
                raise self._refuse(node, "`in` takes a list of values")
            return exp.In(this=exp.column(field),
                          expressions=[self._value(field, v) for v in node.expressions])
        if isinstance(node, exp.Anonymous) and str(node.this).lower() == "daily":
            return self._daily(node)
        raise self._refuse(node)

    def _group(self, node: exp.Expression) -> exp.Expression:
        built = self.build(node)  # and/or inside and/or/not keep their grouping
        return exp.Paren(this=built) if isinstance(built, (exp.And, exp.Or)) else built

    @staticmethod
    def _refuse(node: exp.Expression, why: str = "") -> PredicateError:
        what = node.sql(dialect="duckdb")
        why = f": {why}" if why else ""
        return PredicateError(f"not allowed in a predicate: {what!r}{why} (use fields, numbers, "
                              "dates, and/or/not, between, in, daily('HH:MM','HH:MM'))")

    def _field(self, node: exp.Expression) -> str:
        if not isinstance(node, exp.Column) or node.table or not isinstance(node.this, exp.Identifier):
            raise self._refuse(node, "expected a field")
        name = node.this.name.lower()
        if name not in FIELD_NAMES:
            known = ", ".join(sorted(FIELD_NAMES))
            raise PredicateError(f"unknown field {node.this.name!r} in predicate (fields: {known})")
        return FIELD_NAMES[name]

    def _compare(self, node: exp.Expression) -> exp.Expression:
        left, right, kind = node.this, node.expression, type(node)
        if not isinstance(left, exp.Column) and isinstance(right, exp.Column):
            left, right, kind = right, left, _MIRROR[kind]
        field = self._field(left)
        return kind(this=exp.column(field), expression=self._value(field, right))

    def _value(self, field: str, node: exp.Expression) -> exp.Expression:
        negative = isinstance(node, exp.Neg)
        inner = node.this if negative else node
        if isinstance(inner, exp.Literal) and not inner.is_string:
            try:
                number = float(inner.this) if any(c in inner.this for c in ".eE") else int(inner.this)
            except ValueError:
                raise self._refuse(node, "not a number") from None
            return exp.Literal.number(-number if negative else number)
        if isinstance(inner, exp.Literal) and inner.is_string and not negative and field == "submit":
            return exp.Literal.number(self._submit_seconds(inner.this))
        raise self._refuse(node, f"{field} takes a number" + (" or a date" if field == "submit" else ""))

    def _zone(self) -> ZoneInfo:
        try:
            return ZoneInfo(self.clock.tz or "UTC")
        except (ZoneInfoNotFoundError, ValueError):
            raise PredicateError(f"unknown time zone {self.clock.tz!r}") from None

    def _submit_seconds(self, text: str) -> int:
        if not _DATE.match(text):
            raise PredicateError(f"not a date: {text!r} (use YYYY-MM-DD or 'YYYY-MM-DD HH:MM')")
        if self.clock.unix_start_time is None:
            raise PredicateError("dates need the log's UnixStartTime (set it with `wla set LOG unix-start-time N`)")
        when = datetime.fromisoformat(text).replace(tzinfo=self._zone())
        return int(when.timestamp()) - self.clock.unix_start_time

    def _daily(self, node: exp.Anonymous) -> exp.Expression:
        args = node.expressions
        if len(args) != 2 or not all(isinstance(a, exp.Literal) and a.is_string for a in args):
            raise self._refuse(node, "daily takes two times of day, daily('03:40','03:50')")
        start, end = (a.this for a in args)
        for t in (start, end):
            if not _TIME_OF_DAY.match(t):
                raise PredicateError(f"not a time of day: {t!r} (use HH:MM or HH:MM:SS)")
        if self.clock.unix_start_time is None:
            raise PredicateError("daily() needs the log's UnixStartTime (set it with `wla set LOG unix-start-time N`)")
        instant = exp.Anonymous(this="to_timestamp", expressions=[
            exp.Add(this=exp.Literal.number(self.clock.unix_start_time), expression=exp.column("submit"))])
        local = exp.Anonymous(this="timezone", expressions=[
            exp.Literal.string(self._zone().key), instant])
        clock_time = exp.cast(local, "TIME")
        lo, hi = exp.cast(exp.Literal.string(start), "TIME"), exp.cast(exp.Literal.string(end), "TIME")
        if start <= end:
            return exp.Paren(this=exp.Between(this=clock_time, low=lo, high=hi))
        return exp.Paren(this=exp.or_(exp.GTE(this=clock_time, expression=lo),
                                      exp.LTE(this=clock_time.copy(), expression=hi)))
