"""A rule's parameters: their types, their ranges, and the check every value
passes, from a rule's header, a recipe or the command line alike.

Every number, in range or not, is finite and within the 64-bit range: it
becomes a literal that DuckDB compares with 64-bit fields.
"""
from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass

from wla.archive.kernel.errors import RuleError

PARAM_TYPES = ("integer", "number", "boolean", "text", "integers", "predicate", "time")
NUMERIC = ("integer", "number", "integers", "time")
INT64 = (-(2**63), 2**63 - 1)
_BOUND = re.compile(r"^(>=|>|<=|<) (\S+)$")
_INTERVAL = re.compile(r"^in ([\[(])\s*(\S+?)\s*,\s*(\S+?)\s*([\])])$")


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


def parse_default(text: str, ptype: str, where: str, bounds: Bounds | None) -> object:
    """A default as a parameter line states it (TOML), checked; None for 'none'."""
    if text == "none":
        return None
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        raise RuleError(f"{where}: default {text!r} is not a TOML value") from None
    return check_value(value, ptype, f"{where}: default", bounds)


def parse_bounds(text: str | None, ptype: str, where: str) -> Bounds | None:
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
