"""How a file writes its job lines, so that export gives back the file itself.

Most SWF files were written by a printf: each field is a few pad characters
and its number right-aligned in a width, a wider number pushing the rest of
the line along, and a float field perhaps with fixed decimals (`%.2f`) where
they fit. `detect` finds, per field, the padding, width and decimals that
spell the most of PROBES job lines spread over a file. The tokenizer, as it
reads every line, marks each job line that its values rendered in that
layout would not give back (`tokenizer._as_rendered`: it may mark one that
would, never pass one that would not). The reader keeps those as written,
with every line that is neither a job nor a header line (blank and rejected
lines); `render_lines` rebuilds the others. So an export is the file byte
for byte, and the archive keeps a few dozen numbers per log, not its text.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from ..kernel.jit import njit
from .fields import EXACT_DOUBLE_LIMIT, FIELDS, FLOAT_FIELDS, INT64_MIN, INT_FIELDS, NFIELDS
from .tokenizer import IS_INT, MAX_DECIMALS, POW10, SLOT, is_space

BINS = 64  # padding and token lengths are measured up to this (longer ones share the last bin)
LINE_CAP = 1024  # the longest line rendered; a longer one is kept as written
PROBES = 4096  # job lines measured to find a layout, spread over the file
_LIMIT = float(EXACT_DOUBLE_LIMIT)
_INT64_MIN_TEXT = np.frombuffer(str(INT64_MIN).encode(), dtype=np.uint8).copy()
_TAB, _CR, _NL, _DOT, _MINUS, _ZERO = 9, 13, 10, 46, 45, 48


@dataclass(frozen=True)
class Layout:
    """A file's way of writing job lines (see the module's doc)."""

    spaces: tuple[int, ...]  # pad characters before each field, at least
    widths: tuple[int, ...]  # each field right-aligned in this width
    decimals: tuple[int, ...]  # a float field's fixed decimals where they fit its width; 0: shortest
    pad: str = " "  # the pad character: a space or a tab
    tail: int = 0  # pad characters after the last field
    crlf: bool = False  # lines end in \r\n
    final_newline: bool = True  # the last line ends with a line break

    @property
    def eol(self) -> bytes:
        """What ends a line's text before its \\n."""
        return b"\r" if self.crlf else b""

    def to_json(self) -> str:
        return json.dumps({"spaces": list(self.spaces), "widths": list(self.widths),
                           "decimals": list(self.decimals), "pad": self.pad, "tail": self.tail,
                           "crlf": self.crlf, "final_newline": self.final_newline},
                          separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "Layout":
        d = json.loads(text)
        return cls(tuple(d["spaces"]), tuple(d["widths"]), tuple(d["decimals"]), d["pad"],
                   d["tail"], d["crlf"], d["final_newline"])

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(spaces, widths, decimals) as a 3 x 18 block, and (pad, tail, crlf)."""
        fmt = np.array([self.spaces, self.widths, self.decimals], dtype=np.int64)
        return fmt, np.array([ord(self.pad), self.tail, int(self.crlf)], dtype=np.int64)


# -- spelling one number -----------------------------------------------------------


@njit(nogil=True, cache=True)
def _digits(u, tmp, n, least):
    """The decimal digits of u >= 0, at least `least` of them, at tmp[n:]; the end."""
    d = 1
    x = u // 10
    while x > 0:
        d += 1
        x //= 10
    if d < least:
        d = least
    for i in range(n + d - 1, n - 1, -1):
        tmp[i] = _ZERO + u % 10
        u //= 10
    return n + d


@njit(nogil=True, cache=True)
def _scaled(a, e):
    """The m with m / 10**e == a as the reader converts it, or -1."""
    x = a * POW10[e]
    if not x < _LIMIT:
        return -1
    m = np.int64(np.rint(x))
    for c in (m, m - 1, m + 1):
        if 0 <= c <= EXACT_DOUBLE_LIMIT and np.float64(c) / POW10[e] == a:
            return c
    return -1


@njit(nogil=True, cache=True)
def _fixed(m, e, tmp, n):
    """m / 10**e with e decimals at tmp[n:]; the end."""
    end = _digits(m, tmp, n, e + 1)
    for i in range(end, end - e, -1):
        tmp[i] = tmp[i - 1]
    tmp[end - e] = _DOT
    return end + 1


@njit(nogil=True, cache=True)
def _spell_float(v, decimals, width, tmp):
    """v at tmp[0:] as the layout writes it, its length; -1 when it cannot.
    With decimals, a value but -1 gets exactly that many when they are exact
    and fit the width; else a whole value is written whole and a fraction in
    its fewest exact decimals."""
    if not v - v == 0.0:  # NaN or infinite
        return -1
    a = abs(v)
    n = 0
    if v < 0:
        tmp[0] = _MINUS
        n = 1
    if decimals > 0 and v != -1.0:
        m = _scaled(a, decimals)
        if m >= 0:
            end = _fixed(m, decimals, tmp, n)
            if end <= width:
                return end
    if a == np.floor(a):
        if a > _LIMIT:
            return -1
        if a == 0.0:  # -0.0 too
            return _digits(0, tmp, 0, 1)
        return _digits(np.int64(a), tmp, n, 1)
    for e in range(1, MAX_DECIMALS + 1):
        m = _scaled(a, e)
        if m >= 0:
            return _fixed(m, e, tmp, n)
    return -1


@njit(nogil=True, cache=True)
def _spell_int(v, tmp):
    if v == INT64_MIN:
        for i in range(_INT64_MIN_TEXT.shape[0]):
            tmp[i] = _INT64_MIN_TEXT[i]
        return _INT64_MIN_TEXT.shape[0]
    if v < 0:
        tmp[0] = _MINUS
        return _digits(-v, tmp, 1, 1)
    return _digits(v, tmp, 0, 1)


# -- one line, all lines ---------------------------------------------------------------


@njit(nogil=True, cache=True)
def _render(ints, floats, j, is_int, slot, fmt, line, tmp, out, pos, cap):
    """Job j's line, without its \\n, at out[pos:]; its end, or -1 when a
    value cannot be spelled or the line would pass `cap`."""
    pad = line[0]
    for k in range(NFIELDS):
        if is_int[k]:
            n = _spell_int(ints[slot[k], j], tmp)
        else:
            n = _spell_float(floats[slot[k], j], fmt[2, k], fmt[1, k], tmp)
        if n < 0:
            return -1
        lead = fmt[0, k] + max(0, fmt[1, k] - n)
        if pos + lead + n > cap:
            return -1
        for _ in range(lead):
            out[pos] = pad
            pos += 1
        for i in range(n):
            out[pos] = tmp[i]
            pos += 1
    if pos + line[1] + line[2] > cap:
        return -1
    for _ in range(line[1]):
        out[pos] = pad
        pos += 1
    if line[2]:
        out[pos] = _CR
        pos += 1
    return pos


@njit(nogil=True, cache=True)
def _lengths(ints, floats, is_int, slot, fmt, line, out):
    """out[j]: the length of job j's line with its \\n, or -1."""
    tmp = np.empty(32, dtype=np.uint8)
    text = np.empty(LINE_CAP, dtype=np.uint8)
    for j in range(out.shape[0]):
        end = _render(ints, floats, j, is_int, slot, fmt, line, tmp, text, 0, LINE_CAP)
        out[j] = end + 1 if end >= 0 else -1


@njit(nogil=True, cache=True)
def _fill(ints, floats, is_int, slot, fmt, line, offsets, lengths, out):
    tmp = np.empty(32, dtype=np.uint8)
    for j in range(lengths.shape[0]):
        if lengths[j] >= 0:
            a = offsets[j]
            end = _render(ints, floats, j, is_int, slot, fmt, line, tmp, out, a, a + lengths[j] - 1)
            out[end] = _NL


def blocks(columns: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The integer and float blocks the tokenizer fills, from columns by name."""
    ints = np.stack([np.asarray(columns[f.column], dtype=np.int64) for f in FIELDS if f.integer])
    floats = np.stack([np.asarray(columns[f.column], dtype=np.float64) for f in FIELDS if not f.integer])
    return ints, floats


def render_lines(layout: Layout, ints: np.ndarray, floats: np.ndarray) -> tuple[bytes, np.ndarray, np.ndarray]:
    """Every job's line in the layout, each with its \\n: (text, offsets,
    lengths), job j's line at text[offsets[j]:offsets[j + 1]]. A length of
    -1 (and no text) marks a job whose values the layout cannot spell
    (`spell_line` writes it)."""
    fmt, line = layout.arrays()
    n = ints.shape[1]
    lengths = np.empty(n, dtype=np.int64)
    _lengths(ints, floats, IS_INT, SLOT, fmt, line, lengths)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.maximum(lengths, 0), out=offsets[1:])
    out = np.zeros(int(offsets[-1]), dtype=np.uint8)
    _fill(ints, floats, IS_INT, SLOT, fmt, line, offsets, lengths, out)
    return out.tobytes(), offsets, lengths


def spell(layout: Layout, k: int, value: float | int) -> bytes:
    """Field k's value as the layout writes it; a value it cannot (a
    fraction of more than 17 decimals, say) in Python's shortest form."""
    tmp = np.empty(32, dtype=np.uint8)
    if FIELDS[k].integer:
        n = _spell_int(np.int64(value), tmp)
    else:
        n = _spell_float(np.float64(value), layout.decimals[k], layout.widths[k], tmp)
    if n >= 0:
        return tmp[:n].tobytes()
    return repr(float(value)).encode("ascii")


def spell_line(layout: Layout, values: list) -> bytes:
    """One job's line in the layout, without its \\n, whatever its values
    (as `render_lines` writes it when it can)."""
    pad = layout.pad.encode("ascii")
    out = bytearray()
    for k, v in enumerate(values):
        tok = spell(layout, k, v)
        out += pad * (layout.spaces[k] + max(0, layout.widths[k] - len(tok))) + tok
    return bytes(out + pad * layout.tail + layout.eol)


# -- finding the layout --------------------------------------------------------------


@njit(nogil=True, cache=True)
def _measure(buf, i, e, hist, zeros, tails, counts):
    """Add the job line buf[i:e] to hist[k, pad, length] of its tokens,
    zeros[k, decimals] of its tokens whose decimals end in 0 (no shortest
    spelling does) and tails[pad after the last token]; counts: lines ending
    in \r, gaps of tabs only, other gaps."""
    top = hist.shape[1] - 1
    if e > i and buf[e - 1] == _CR:
        counts[0] += 1
        e -= 1
    k = 0
    while True:
        a = i
        tabs = 0
        while i < e and is_space(buf[i]):
            tabs += buf[i] == _TAB
            i += 1
        lead = i - a
        if i >= e:
            tails[min(lead, top)] += 1
            return
        if k > 0:
            counts[1 if tabs == lead else 2] += 1
        t = i
        dot = -1
        while i < e and not is_space(buf[i]):
            if buf[i] == _DOT:
                dot = i
            i += 1
        hist[k, min(lead, top), min(i - t, top)] += 1
        if dot >= 0 and i - 1 > dot and buf[i - 1] == _ZERO:
            zeros[k, min(i - 1 - dot, top)] += 1
        k += 1


@njit(nogil=True, cache=True)
def _tokens(buf, i, e):
    n = 0
    while i < e:
        while i < e and is_space(buf[i]):
            i += 1
        if i < e:
            n += 1
        while i < e and not is_space(buf[i]):
            i += 1
    return n


@njit(nogil=True, cache=True)
def _sample(buf, probes, hist, zeros, tails, counts):
    """Measure the first job line of 18 tokens at or after each of `probes`
    offsets spread evenly over the text (a line once); how many were."""
    nb = buf.shape[0]
    last = -1
    found = 0
    for p in range(probes):
        i = p * nb // probes
        while i > 0 and i < nb and buf[i - 1] != _NL:
            i += 1
        while i < nb and i > last:
            last = i
            e = i
            while e < nb and buf[e] != _NL:
                e += 1
            f = i
            while f < e and is_space(buf[f]):
                f += 1
            if f < e and buf[f] != 59 and _tokens(buf, f, e) == NFIELDS:
                _measure(buf, i, e, hist, zeros, tails, counts)
                found += 1
                break
            i = e + 1
    return found


def _fit(h: np.ndarray, least: int) -> tuple[int, int]:
    """The (spaces, width) that spell the most tokens of histogram h[pad,
    length]: pad = spaces + max(0, width - length). Ties go to fewer spaces,
    then to the wider width."""
    pads, lens = np.nonzero(h)
    if len(pads) == 0:
        return least, 0
    counts = h[pads, lens]
    best = (-1, 0, 0)
    for s in sorted(set(pads.tolist()) | {least}):
        if s < least:
            continue
        for w in sorted({c - s for c in (pads + lens).tolist() if c >= s} | {0}):
            fit = int(counts[pads == s + np.maximum(0, w - lens)].sum())
            if (fit, -s, w) > (best[0], -best[1], best[2]):
                best = (fit, s, w)
    return best[1], best[2]


def detect(data: bytes | bytearray) -> Layout:
    """The layout that spells the most job lines among PROBES spread over the text."""
    buf = np.frombuffer(data, dtype=np.uint8)
    hist = np.zeros((NFIELDS, BINS, BINS), dtype=np.int64)
    zeros = np.zeros((NFIELDS, BINS), dtype=np.int64)
    tails = np.zeros(BINS, dtype=np.int64)
    counts = np.zeros(3, dtype=np.int64)
    found = _sample(buf, PROBES, hist, zeros, tails, counts)
    spaces, widths, decimals = [], [], []
    for k, f in enumerate(FIELDS):
        s, w = _fit(hist[k], 0 if k == 0 else 1)
        spaces.append(s)
        widths.append(w)
        decimals.append(0 if f.integer or not zeros[k].any() else int(np.argmax(zeros[k])))
    return Layout(tuple(spaces), tuple(widths), tuple(decimals),
                  "\t" if counts[1] > counts[2] else " ", int(np.argmax(tails)),
                  bool(2 * counts[0] > found), bytes(data[-1:]) == b"\n")


# -- lines by number ----------------------------------------------------------------


@njit(nogil=True, cache=True)
def _spans(buf, wanted, blank, out):
    """(line number, start, end) of each line numbered in `wanted` (sorted)
    and, when `blank`, of every blank line, in order; how many were found."""
    nb = buf.shape[0]
    i = 0
    lineno = 0
    w = 0
    found = 0
    while i < nb and found < out.shape[0]:
        lineno += 1
        e = i
        empty = True
        while e < nb and buf[e] != _NL:
            if empty and not is_space(buf[e]):
                empty = False
            e += 1
        while w < wanted.shape[0] and wanted[w] < lineno:
            w += 1
        take = (w < wanted.shape[0] and wanted[w] == lineno) or (blank and empty)
        if take:
            out[found, 0] = lineno
            out[found, 1] = i
            out[found, 2] = e
            found += 1
        i = e + 1
    return found


def lines_as_written(data: bytes | bytearray, wanted: list[int], blank_lines: int) -> list[tuple[int, bytes]]:
    """The bytes of the lines numbered in `wanted` and of every blank line
    (`blank_lines` of them), without their \\n, in file order."""
    want = np.unique(np.asarray(wanted, dtype=np.int64))
    if len(want) == 0 and blank_lines == 0:
        return []
    buf = np.frombuffer(data, dtype=np.uint8)
    out = np.empty((len(want) + blank_lines, 3), dtype=np.int64)
    n = _spans(buf, want, blank_lines > 0, out)
    return [(ln, bytes(data[a:b])) for ln, a, b in out[:n].tolist()]


def warm() -> None:
    """Load the compiled functions (from numba's cache) ahead of the first file."""
    data = b"1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 0.5\n\n"
    layout = detect(data)
    lines_as_written(data, [1], 1)
    render_lines(layout, np.ones((len(INT_FIELDS), 1), dtype=np.int64), np.full((len(FLOAT_FIELDS), 1), 0.5))
    spell(layout, 0, 1)
    spell(layout, 1, 0.5)
