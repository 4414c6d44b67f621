"""Durations a reader can take in at a glance: seconds stay the unit of
record (the format's), and a large figure also says itself in the unit a
person would use (`8,597,585 s (99.5 d)`), the same way in every command
and on the site. Counts read the same way everywhere too: the noun agrees
with the number (`count`)."""
from __future__ import annotations

import math

from .clock import DAY

# From the largest down: the first unit the duration reaches is the one used.
UNITS = (("y", 365.0 * DAY), ("d", float(DAY)), ("h", 3600.0), ("min", 60.0))


def human(seconds: float) -> str:
    """`seconds` in the largest unit it reaches, one decimal: `1.6 d`, `3.0 h`,
    `12 s`; an unknown (None, NaN) is `-`."""
    if seconds is None or (isinstance(seconds, float) and not math.isfinite(seconds)):
        return "-"
    size = abs(float(seconds))
    for unit, scale in UNITS:
        if size >= scale:
            return f"{seconds / scale:.1f} {unit}"
    return f"{seconds:.0f} s" if size >= 1 or seconds == 0 else f"{seconds:.2g} s"


def seconds(value: float) -> str:
    """`value` seconds with thousands separators, and in human units when an
    hour or more: `8,597,585 s (99.5 d)`, `95 s`."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    text = f"{value:,.0f} s"
    return f"{text} ({human(value)})" if abs(value) >= 3600 else text


def count(n: int, noun: str, nouns: str | None = None) -> str:
    """`n` things, the noun agreeing with the number: `1 version`, `2
    versions`, `1,024 jobs`; `nouns` for a plural that is not NOUN + s."""
    return f"{n:,} {noun if n == 1 else nouns or noun + 's'}"
