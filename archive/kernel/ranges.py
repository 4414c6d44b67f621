"""The ranges of wla's numeric parameters, checked the same way everywhere.

The command line passes numbers through as typed: `nan`, `inf` and integers
of any size among them. Each library function checks its own parameters
with these, so the Python API refuses what the command line refuses, and an
error names the parameter and the range allowed (OptionError).
"""
from __future__ import annotations

import math
from numbers import Integral, Real

from .errors import OptionError

# Processors of a machine: 32-bit, two hundred times the largest machine built.
MAX_PROCESSORS = 2**31 - 1
# Counts and limits with no bound of their own (rows shown, users, jobs, the
# solver's nodes): 32-bit, which HiGHS's node limit is.
MAX_COUNT = 2**31 - 1
# Threads: more than any machine has cores to give one command.
MAX_WORKERS = 1024
# Seeds: what a 64-bit integer column holds, where settings are stored.
MAX_SEED = 2**63 - 1
INT64 = (-(2**63), 2**63 - 1)


def _shown(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, Real):
        return repr(value)
    if isinstance(value, Integral):
        return str(int(value))
    return repr(float(value))


def whole(name: str, value: object, low: int, high: int) -> int:
    """`value` as an int when it is a whole number in [low, high] (an integral
    float such as 4.0 counts); else OptionError naming `name` and the range."""
    number = None
    if isinstance(value, Integral) and not isinstance(value, bool):
        number = int(value)
    elif isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value) \
            and float(value).is_integer():
        number = int(value)
    if number is None or not low <= number <= high:
        raise OptionError(name, f"must be a whole number from {low:,} to {high:,}, not {_shown(value)}")
    return number


def number(name: str, value: object, low: float | None = None, high: float | None = None, *,
           low_open: bool = False, high_open: bool = False) -> float:
    """`value` as a float when it is finite and within the bounds (None: none;
    `*_open`: the bound itself excluded); else OptionError with the range."""
    ok = isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        x = float(value)
        if low is not None:
            ok = x > low if low_open else x >= low
        if ok and high is not None:
            ok = x < high if high_open else x <= high
    if not ok:
        raise OptionError(name, f"must be {_range(low, high, low_open, high_open)}, not {_shown(value)}")
    return float(value)


def _bound(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def _range(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    if low is not None and high is not None:
        return f"a number in {'(' if low_open else '['}{_bound(low)}, {_bound(high)}{')' if high_open else ']'}"
    if low is not None:
        return f"a finite number {'>' if low_open else '>='} {_bound(low)}"
    if high is not None:
        return f"a finite number {'<' if high_open else '<='} {_bound(high)}"
    return "a finite number"
