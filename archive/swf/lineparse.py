"""What a job line may hold, and what is wrong with one that holds something else.

This is the definition the fast tokenizer agrees with; it handles the lines
the tokenizer hands back (exponents, long mantissas, anything odd) and turns
bad ones into a one-line reason.
"""
from __future__ import annotations

import re
from decimal import Decimal

from ..kernel.errors import LineError, shorten
from .fields import EXACT_DOUBLE_LIMIT, FIELDS, INT64_MAX, INT64_MIN, NFIELDS

_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_NONFINITE = {b"nan", b"inf", b"infinity"}


def _field(k: int) -> str:
    f = FIELDS[k]
    return f"field {f.number} ({f.title})"


def parse_token(k: int, tok: bytes) -> int | float:
    """Convert token `tok` of field index `k`, or raise LineError."""
    text = tok.decode("ascii")
    shown = shorten(text, 40)
    if not _NUMBER.fullmatch(tok):
        if tok.lstrip(b"+-").lower() in _NONFINITE:
            raise LineError(f"{_field(k)} is NaN or infinite: {shown!r}")
        raise LineError(f"{_field(k)} is not a number: {shown!r}")
    d = Decimal(text)
    if d.is_zero():  # its exponent says nothing of its size: 0e99 is 0
        d = Decimal(0)
    whole = d == d.to_integral_value() if d.adjusted() < 40 else True
    if whole and (d.adjusted() > 19 or not INT64_MIN <= int(d) <= INT64_MAX):
        raise LineError(f"{_field(k)} is outside the 64-bit integer range: {shown!r}")
    if FIELDS[k].integer:
        if not whole:
            raise LineError(f"{_field(k)} must be a whole number: {shown!r}")
        return int(d)
    if whole:
        v = int(d)
        if abs(v) > EXACT_DOUBLE_LIMIT:
            raise LineError(
                f"{_field(k)} is too large to keep exactly (beyond 2^53): {shown!r}"
            )
        return float(v)
    return float(d) + 0.0


def parse_line(line: bytes) -> list[int | float]:
    """The 18 values of one job line, or LineError saying what is wrong."""
    if not line.isascii():
        col = next(c for c, b in enumerate(line) if b > 127)
        raise LineError(f"non-ASCII byte 0x{line[col]:02X} at column {col + 1} of a job line")
    toks = line.split()
    if len(toks) != NFIELDS:
        raise LineError(
            f"{len(toks)} fields, expected {NFIELDS}", extended=len(toks) > NFIELDS
        )
    return [parse_token(k, t) for k, t in enumerate(toks)]
