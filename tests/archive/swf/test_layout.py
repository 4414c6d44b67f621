"""The layout of job lines (archive/swf/layout.py) and its check in the tokenizer.

Export writes a job line from its values in the log's layout, and the line
as written only when the tokenizer said the layout would not give it back.
So the tokenizer may say "not as rendered" of a line that is, never "as
rendered" of one that is not. Tested here against a spelling written anew
with Decimal, on generated layouts and lines, spelled the layout's way or
not; and detection on printf-written logs.
"""
from __future__ import annotations

from decimal import Decimal

import numpy as np
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from wla.archive.swf.fields import EXACT_DOUBLE_LIMIT, FIELDS, NFIELDS
from wla.archive.swf.layout import Layout, render_lines, spell
from wla.archive.swf.reader import parse_bytes
from wla.archive.swf.tokenizer import Scan

MANY = settings(max_examples=250, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])


@st.composite
def layouts(draw) -> Layout:
    spaces = [draw(st.integers(0, 2))] + [draw(st.integers(1, 3)) for _ in range(NFIELDS - 1)]
    widths = [draw(st.integers(0, 9)) for _ in range(NFIELDS)]
    decimals = [0 if f.integer else draw(st.sampled_from([0, 0, 1, 2, 3])) for f in FIELDS]
    return Layout(tuple(spaces), tuple(widths), tuple(decimals), draw(st.sampled_from(" \t")),
                  draw(st.integers(0, 2)), draw(st.booleans()), True)


@st.composite
def fractions(draw) -> float:
    """A number of up to 12 digits with 1 to 5 decimals."""
    places = draw(st.integers(1, 5))
    return float(Decimal(draw(st.integers(-10**7, 10**7))).scaleb(-places))


FLOATS = st.one_of(st.just(-1.0), st.just(0.0), st.just(-0.0),
                   st.integers(-10**6, 10**9).map(float), fractions(),
                   st.sampled_from([0.1 + 0.2, 1 / 3, 2.675, 0.125, 1.5e-05, 123456789012.5,
                                    float(EXACT_DOUBLE_LIMIT), 999.995, 1e15 + 0.5]),
                   st.floats(min_value=-1e12, max_value=1e12, allow_nan=False))
INTS = st.one_of(st.just(-1), st.just(0), st.integers(-10**6, 10**9),
                 st.integers(-(2**63), 2**63 - 1))
FAST_INTS = st.one_of(st.just(-1), st.just(0), st.integers(-10**6, 10**9),
                      st.integers(-10**17, 10**17))  # within what the tokenizer converts itself


def spelled(layout: Layout, k: int, v: float | int) -> str:
    """The layout's spelling of field k's value, from its rule, with Decimal:
    a whole number plainly; a float field with decimals, but for -1, in
    exactly that many where they are exact and fit its width; else a whole
    value whole and a fraction in its fewest exact decimals (up to 17, a
    mantissa up to 2^53), else as Python writes it."""
    if FIELDS[k].integer:
        return str(int(v))
    v += 0.0  # -0.0 is 0
    shortest = Decimal(repr(v))
    d, width = layout.decimals[k], layout.widths[k]
    if d and v != -1:
        fixed = shortest.quantize(Decimal(1).scaleb(-d))
        text = format(fixed, "f")
        if fixed == shortest and abs(fixed.scaleb(d)) < EXACT_DOUBLE_LIMIT and len(text) <= width:
            return text
    if v == int(v):
        return str(int(v))
    places = -shortest.as_tuple().exponent
    if places <= 17 and abs(shortest.scaleb(places)) <= EXACT_DOUBLE_LIMIT:
        return format(shortest, "f")
    return repr(v)


@MANY
@given(layouts(), st.data())
def test_spell_is_the_rule(layout, data):
    for k, f in enumerate(FIELDS):
        v = data.draw(INTS if f.integer else FLOATS)
        got, want = spell(layout, k, v).decode(), spelled(layout, k, v)
        if not f.integer and len(Decimal(want).as_tuple().digits) > 15 and "e" not in want:
            # Beyond 15 digits two decimals of a length may be the same
            # double; any one is exact. (Python writes the nearest.)
            assert float(got) == v and len(got) == len(want), (k, v, got, want)
        else:
            assert got == want, (k, v)


@st.composite
def lines(draw) -> tuple[Layout, bytes, bool]:
    """A layout and a job line: its fields spelled and padded the layout's
    way, or (now and then) otherwise; and whether all were its way, in
    decimals of at most 15 digits."""
    layout = draw(layouts())
    pad = layout.pad
    out, canonical = [], True
    for k, f in enumerate(FIELDS):
        v = draw(FAST_INTS if f.integer else FLOATS)
        token = spelled(layout, k, v)
        canonical &= f.integer or ("e" not in token and len(Decimal(token).as_tuple().digits) <= 15)
        odd = draw(st.integers(0, 12)) == 0
        if odd:
            canonical = False
            token = draw(st.sampled_from([
                token + ("0" if "." in token else ".0"), "+" + token.lstrip("-"), "0" + token.lstrip("-"),
                token + ".", repr(float(v)), f"{float(v):.2f}", f"{float(v):e}", token]))
        lead = layout.spaces[k] + max(0, layout.widths[k] - len(token))
        if draw(st.integers(0, 15)) == 0:
            canonical = False
            lead = max(1 if k else 0, lead + draw(st.sampled_from([-1, 1])))
        out.append(pad * lead + token)
    tail = pad * layout.tail + ("\r" if layout.crlf else "")
    if draw(st.integers(0, 15)) == 0:
        canonical, tail = False, draw(st.sampled_from(["", " ", "\r", " \r", "\t"]))
    return layout, ("".join(out) + tail).encode("ascii"), canonical


def _scan(layout: Layout, line: bytes) -> tuple[Scan, bool]:
    scan = Scan(line + b"\n", layout=layout.arrays())
    for _ in scan.batches():
        pass
    return scan, bool(scan.irregular[0])


@MANY
@given(lines())
def test_a_line_said_to_be_as_rendered_is_rendered_so(case):
    layout, line, canonical = case
    scan, irregular = _scan(layout, line)
    assert scan.jobs == 1
    ints, floats, _ = scan.blocks()
    text, offsets, lengths = render_lines(layout, np.ascontiguousarray(ints), np.ascontiguousarray(floats))
    if not irregular:
        event("as rendered")
        assert text == line + b"\n"
    else:
        event("kept as written")
    # A line spelled the layout's way within 15 digits is recognised as such.
    if canonical:
        assert not irregular, line


def printf_log(formats: list[str], rows: list[list]) -> bytes:
    header = "; Version: 2.2\n; Computer: generated\n"
    body = "".join(" ".join(f % v if v != -1 else "%*d" % (len(f % 0), -1) for f, v in zip(formats, row)) + "\n"
                   for row in rows)
    return (header + body).encode()


@settings(max_examples=40, deadline=None, database=None)
@given(st.lists(st.integers(1, 9), min_size=NFIELDS, max_size=NFIELDS), st.integers(1, 300),
       st.integers(0, 2**32 - 1))
def test_detect_finds_a_printf_layout(widths, n, seed):
    """Lines a printf wrote ('%5d %8d ... %6.2f ...', -1 as '%6d') are all
    rendered: none is kept as written, whatever the widths and however
    often a number is wider than its field."""
    formats = [f"%{w}.2f" if not f.integer and w >= 4 else f"%{w}d" for w, f in zip(widths, FIELDS)]
    rng = np.random.default_rng(seed)

    def value(k: int) -> float | int:
        if rng.integers(0, 5) == 0:
            return -1
        if formats[k].endswith("f"):  # two decimals, within the width
            return int(rng.integers(0, 10 ** (widths[k] - 1))) / 100
        return int(rng.integers(0, 10 ** int(rng.integers(0, 10)) + 1))

    text = printf_log(formats, [[j] + [value(k) for k in range(1, NFIELDS)] for j in range(1, n + 1)])
    p = parse_bytes("printf.swf", text, len(text))
    assert p.jobs == n and p.verbatim == []
    event(f"decimals {sorted(set(p.layout.decimals))}")
