"""Job predicates in the archive's own notation, turned into SQL safely.

`user=21 and job>13716 and job<16208`, with and/or/not, parentheses,
`between`, `in`, a daily window `daily('03:40','03:50')` in the log's local
time, and submit times given as dates (`submit < '1998-06-01'`). The text is
parsed with sqlglot and a new expression tree is built from a whitelist of
node kinds, fields and literal values; nothing of the text reaches the
database any other way. Anything else is refused with a message naming it.

A predicate has at most MAX_TERMS conditions, MAX_VALUES listed values and
MAX_DEPTH levels of nesting, checked on its tokens before sqlglot parses
them: the parser recurses about twenty Python frames per parenthesis, so a
deeper text would end in a RecursionError rather than a message.
"""
from __future__ import annotations

import functools
import math
import re
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel
from sqlglot.tokens import Token, TokenType

from ..kernel.clock import LogClock
from ..kernel.errors import PredicateError, one_line
from ..swf.fields import FIELDS

# Limits no predicate written by hand or by a script comes near: a person
# nests a handful of parentheses, and a script joins conditions with and/or
# or lists values with `in`, which do not nest. 24 levels keep sqlglot's
# parser (about 20 Python frames a level) well inside the default recursion
# limit wherever it is called from. 20,000 conditions (twice what a long
# generated filter needs) take sqlglot and DuckDB some 20 s; a longer list of
# jobs is `job in (...)`, whose values cost far less.
MAX_DEPTH = 24  # parentheses, `not` and unary signs nested in one another
MAX_TERMS = 20_000  # conditions joined by and/or
MAX_VALUES = 100_000  # values of `in` lists, all together
INT64 = (-(2**63), 2**63 - 1)  # every field of a job is a 64-bit integer or a double
OPAQUE_TERMS = 100  # see predicate_condition

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
_DUCKDB = Dialect.get_or_raise("duckdb")
# Tokens that open a nested operand: the parser recurses once for each.
_PREFIX = {TokenType.NOT, TokenType.DASH, TokenType.PLUS, TokenType.TILDE,
           TokenType.PIPE_SLASH, TokenType.DPIPE_SLASH}


def parse_predicate(text: str, clock: LogClock = LogClock()) -> exp.Expression:
    """The predicate as a new sqlglot condition over the jobs columns."""
    if not isinstance(text, str):
        raise PredicateError(f"a predicate is text, not {type(text).__name__}")
    try:
        return _parsed(text, clock).copy()  # a copy: the caller may graft it into a rule
    except RecursionError:  # a last guard: check_size keeps the nesting far below this
        raise _too_deep(text) from None


@functools.lru_cache(maxsize=4)
def _parsed(text: str, clock: LogClock) -> exp.Expression:
    """A build reads a step's predicate three times (check, view, rows) and
    an export twice; a long one takes a second to parse, a copy a third."""
    try:
        tokens = _DUCKDB.tokenize(text)
    except sqlglot.errors.SqlglotError as e:
        raise PredicateError(f"cannot read predicate {_short(text)}: {one_line(e)}") from None
    statements = split_statements(tokens)
    if len(statements) != 1:
        raise PredicateError(f"a predicate is one condition, not {len(statements)} statements: "
                             f"{_short(text)}")
    check_size(statements[0])
    try:
        # Parsed as a condition, not a statement: no fallback to a 'Command'.
        parser = _DUCKDB.parser(error_level=ErrorLevel.IMMEDIATE)
        tree = parser.parse_into(exp.Condition, statements[0], text)[0]
        if tree is None:
            raise PredicateError(f"an empty predicate: {_short(text)}")
        return _Builder(clock).build(tree)
    except sqlglot.errors.SqlglotError as e:
        raise PredicateError(f"cannot read predicate {_short(text)}: {_problem(e)}") from None
    except RecursionError:  # a last guard: check_size keeps the nesting far below this
        raise _too_deep(text) from None


def predicate_condition(text: str, clock: LogClock = LogClock()) -> exp.Expression:
    """The predicate as a condition for a WHERE clause (the rebuilt tree).
    From OPAQUE_TERMS and/or connectives on, it is wrapped in `CASE WHEN ...
    THEN true ELSE false END` (the same rows: no field is ever NULL), which
    DuckDB's filter pushdown leaves alone: it combines the comparisons of a
    long conjunction pair by pair, and 10,000 terms such as `job <> N` took
    it more than 20 GB of memory."""
    tree = parse_predicate(text, clock)
    if sum(1 for _ in tree.find_all(exp.Connector)) >= OPAQUE_TERMS:
        tree = exp.Case(ifs=[exp.If(this=tree, true=exp.true())], default=exp.false())
    return exp.Paren(this=tree)


def predicate_sql(text: str, clock: LogClock = LogClock()) -> str:
    """predicate_condition as DuckDB SQL: the tree is this call's own copy,
    so the generator may work on it without copying it again."""
    try:
        return predicate_condition(text, clock).this.sql(dialect="duckdb", copy=False)
    except RecursionError:
        raise _too_deep(text) from None


def check_size(tokens: list[Token]) -> None:
    """Refuse a predicate beyond MAX_TERMS conditions, MAX_VALUES listed
    values or MAX_DEPTH levels of nesting (parentheses, and each `not` or
    sign in a row before an operand), counted on its tokens, so that quoted
    strings and comments do not count, before the parser recurses."""
    terms, values, depth, run, deepest = 1, 0, [0], 0, 0
    for tok in tokens:
        kind = tok.token_type
        if kind in (TokenType.AND, TokenType.OR):
            terms += 1
        elif kind == TokenType.BETWEEN:
            terms -= 1  # its `and` joins two values, not two conditions
        elif kind == TokenType.COMMA:
            values += 1
        if kind in _PREFIX:
            run += 1
            deepest = max(deepest, depth[-1] + run)
            continue
        if kind == TokenType.L_PAREN:
            depth.append(depth[-1] + run + 1)
            deepest = max(deepest, depth[-1])
        elif kind == TokenType.R_PAREN and len(depth) > 1:
            depth.pop()
        run = 0
    if deepest > MAX_DEPTH:
        raise PredicateError(f"a predicate nested {deepest} levels deep (parentheses, `not` and "
                             f"signs within one another); at most {MAX_DEPTH}")
    if terms > MAX_TERMS:
        raise PredicateError(f"a predicate of {terms:,} conditions joined by and/or; at most "
                             f"{MAX_TERMS:,} (a list of values is `field in (...)`)")
    if values > MAX_VALUES:
        raise PredicateError(f"a predicate listing {values:,} values; at most {MAX_VALUES:,}")


def split_statements(tokens: list[Token]) -> list[list[Token]]:
    """The tokens between semicolons, empty stretches left out: what a text
    holds is known before any of it is parsed."""
    out: list[list[Token]] = [[]]
    for tok in tokens:
        if tok.token_type == TokenType.SEMICOLON:
            out.append([])
        else:
            out[-1].append(tok)
    return [s for s in out if s]


def _problem(e: sqlglot.errors.SqlglotError) -> str:
    """sqlglot's complaint without its Python class names."""
    errors = getattr(e, "errors", None)
    if not errors:
        return one_line(e)
    first = errors[0]
    where = f" at {first['highlight']!r}" if first.get("highlight") else ""
    column = f" (column {first['col']})" if first.get("col") else ""
    return f"{first.get('description') or 'not a condition'}{where}{column}"


def _short(text: str, width: int = 80) -> str:
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def _too_deep(text: str) -> PredicateError:
    return PredicateError(f"a predicate nested too deeply to read: {_short(text)}")


def submit_seconds(text: str, clock: LogClock) -> int:
    """A date (in the log's local time) as seconds on the log's submit clock."""
    return _Builder(clock)._submit_seconds(text)


class _Builder:
    def __init__(self, clock: LogClock):
        self.clock = clock

    def build(self, node: exp.Expression) -> exp.Expression:
        if isinstance(node, (exp.And, exp.Or)):
            operands = [self._group(n) for n in _chain(node)]
            return (exp.and_ if isinstance(node, exp.And) else exp.or_)(*operands, copy=False)
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
            number = -number if negative else number
            if not (math.isfinite(number) and INT64[0] <= number <= INT64[1]):
                raise PredicateError(f"{node.sql(dialect='duckdb')!r} is out of range: a number in a "
                                     "predicate is finite and within the 64-bit range of the fields")
            return exp.Literal.number(number)
        if isinstance(inner, exp.Literal) and inner.is_string and not negative and field == "submit":
            return exp.Literal.number(self._submit_seconds(inner.this))
        raise self._refuse(node, f"{field} takes a number" + (" or a date" if field == "submit" else ""))

    def _zone(self) -> ZoneInfo:
        try:
            return ZoneInfo(self.clock.tz or "UTC")
        except (ZoneInfoNotFoundError, ValueError):
            raise PredicateError(f"unknown time zone {self.clock.tz!r}") from None

    def _submit_seconds(self, text: str) -> int:
        if not isinstance(text, str) or not _DATE.match(text):
            raise PredicateError(f"not a date: {text!r} (use YYYY-MM-DD or 'YYYY-MM-DD HH:MM')")
        try:
            when = datetime.fromisoformat(text)
        except ValueError as e:  # the pattern fits, the calendar does not: 2024-02-30
            raise PredicateError(f"not a date: {text!r} ({e})") from None
        if self.clock.unix_start_time is None:
            raise PredicateError("dates need the log's UnixStartTime (set it with `wla set LOG unix-start-time N`)")
        try:
            seconds = int(when.replace(tzinfo=self._zone()).timestamp())
        except (OverflowError, ValueError):  # year 1 or 9999 moved across a time zone
            raise PredicateError(f"date {text!r} is out of range in time zone "
                                 f"{self._zone().key}") from None
        seconds -= int(self.clock.unix_start_time)
        if not INT64[0] <= seconds <= INT64[1]:
            raise PredicateError(f"date {text!r} is out of range on this log's clock")
        return seconds

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


def _chain(node: exp.Expression) -> list[exp.Expression]:
    """The operands of a chain of one connector (`a or b or c`, which sqlglot
    parses as a left-deep tree), in order, found without recursion."""
    kind, out, stack = type(node), [], [node]
    while stack:
        n = stack.pop()
        if type(n) is kind:
            stack.extend((n.expression, n.this))
        else:
            out.append(n)
    return out
