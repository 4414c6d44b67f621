"""Properties of SWF parsing and export, over generated logs:

1. ingest -> export gives back the file byte for byte;
2. the values parsed are the ones the tokens spell, computed here with Decimal;
3. the fast tokenizer and the slow line parser agree on every valid line,
   and on lines of any tokens (the tokenizer never keeps what the parser refuses).
"""
from __future__ import annotations

import tempfile
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from wla.archive import ExtendedFormatError
from wla.archive import open as open_archive
from wla.archive.kernel.errors import LineError
from wla.archive.store.export import swf_bytes
from wla.archive.store.ingest import ingest
from wla.archive.swf.fields import COLUMNS, EXACT_DOUBLE_LIMIT, FIELDS, INT64_MAX, INT64_MIN
from wla.archive.swf.header import KNOWN_LABELS
from wla.archive.swf.lineparse import parse_line
from wla.archive.swf.reader import parse_bytes, read_swf
from wla.archive.swf.tokenizer import IS_INT, SLOT, tokenize

SETTINGS = settings(max_examples=60, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# -- tokens -------------------------------------------------------------------

SPACE = st.text(alphabet=" \t", min_size=1, max_size=3)
MAYBE_SPACE = st.text(alphabet=" \t", max_size=3)

int64 = st.one_of(
    st.just(-1), st.integers(0, 1000), st.integers(INT64_MIN, INT64_MAX),
    st.sampled_from([INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1, 0]))
exact_int = st.one_of(
    st.just(-1), st.integers(0, 100_000),
    st.integers(-EXACT_DOUBLE_LIMIT, EXACT_DOUBLE_LIMIT),
    st.sampled_from([EXACT_DOUBLE_LIMIT, -EXACT_DOUBLE_LIMIT, EXACT_DOUBLE_LIMIT - 1]))


# Submit, wait and run (field indexes 1 to 3) stay within +-1.5e10 s and a
# generated UnixStartTime within +-1e10 s, so every instant of a job falls in
# the calendar range ingest accepts (archive/instants.py).
TIME_FIELDS = (1, 2, 3)
TIME_LIMIT = 15 * 10**9
START_LIMIT = 10**10
time_int = st.one_of(st.just(-1), st.integers(0, 100_000), st.integers(-TIME_LIMIT, TIME_LIMIT),
                     st.sampled_from([TIME_LIMIT, -TIME_LIMIT]))


@st.composite
def decimals(draw, wholes=exact_int) -> Decimal:
    """A number with 1 to 6 fractional digits, small or up to 2^53 in magnitude."""
    places = draw(st.integers(1, 6))
    whole = draw(st.one_of(st.integers(-10**6, 10**6), wholes))
    frac = draw(st.integers(0, 10**places - 1))
    sign = -1 if whole < 0 or (whole == 0 and draw(st.booleans())) else 1
    return sign * (abs(Decimal(whole)) + Decimal(frac).scaleb(-places))


def plain(d: Decimal) -> str:
    return format(d, "f")


@st.composite
def spelled(draw, d: Decimal, exponents: bool) -> str:
    """One way of writing the exact value `d` as a token."""
    text = plain(d)
    forms = ["plain", "plus", "zeros"]
    if "." not in text:
        forms += ["dot", "leading-zeros"]
    if exponents:
        forms += ["exp"] * 3
    form = draw(st.sampled_from(forms))
    if form == "plus" and not text.startswith("-"):
        return "+" + text
    if form == "zeros":  # trailing zeros after the point
        return text + ("" if "." in text else ".") + "0" * draw(st.integers(1, 4))
    if form == "dot":
        return text + "."
    if form == "leading-zeros":
        sign, digits = ("-", text[1:]) if text.startswith("-") else ("", text)
        return sign + "0" * draw(st.integers(1, 3)) + digits
    if form == "exp":
        e = draw(st.integers(-8, 8))
        sign = draw(st.sampled_from(["", "+"])) if e >= 0 else ""
        return plain(d.scaleb(-e)) + draw(st.sampled_from("eE")) + sign + str(e)
    return text


# Values the tokenizer converts itself: integers within 18 digits, decimals
# whose digits make a number below 2^53.
small_int = st.one_of(st.just(-1), st.integers(0, 1000), st.integers(-10**17, 10**17))
small_decimal = st.builds(lambda w, f, p: Decimal(w) + (Decimal(f).scaleb(-p) if w >= 0
                                                        else -Decimal(f).scaleb(-p)),
                          st.integers(-10**6, 10**6), st.integers(0, 999), st.integers(3, 6))
small_double = st.one_of(st.just(Decimal(-1)), st.builds(Decimal, st.integers(-10**9, 10**9)),
                         small_decimal)


@st.composite
def value_token(draw, k: int, exponents: bool = False, forms: bool = False,
                small: bool = False) -> tuple[str, Decimal]:
    """A valid token of field index k and the exact value it spells."""
    if small:
        d = Decimal(draw(small_int)) if FIELDS[k].integer else draw(small_double)
    elif FIELDS[k].integer:
        # (with exponents, mostly values whose exponent form stays in 64 bits)
        d = Decimal(draw(st.one_of(int64, st.integers(-10**12, 10**12)) if exponents else int64))
    elif k in TIME_FIELDS:
        d = draw(st.one_of(st.just(Decimal(-1)), st.builds(Decimal, time_int), decimals(time_int)))
        d = d if abs(d) < TIME_LIMIT else Decimal(TIME_LIMIT).copy_sign(d)
    else:
        d = draw(st.one_of(st.just(Decimal(-1)), st.builds(Decimal, exact_int), decimals()))
    if not forms and not exponents:
        text = plain(d)
        # Decimals sometimes keep trailing zeros.
        if "." in text and draw(st.booleans()):
            text += "0" * draw(st.integers(1, 3))
        return text, d
    return draw(spelled(d, exponents)), d


@st.composite
def job_line(draw, job: int | None = None, exponents: bool = False,
             forms: bool = False) -> tuple[str, list[str]]:
    """(the line's text, its 18 tokens), with random blanks around the fields."""
    toks = []
    for k in range(len(FIELDS)):
        if k == 0 and job is not None:
            toks.append(str(job))
        else:
            toks.append(draw(value_token(k, exponents=exponents, forms=forms))[0])
    text = draw(MAYBE_SPACE)
    for i, t in enumerate(toks):
        text += t + (draw(SPACE) if i < len(toks) - 1 else "")
    return text + draw(MAYBE_SPACE), toks


# -- header lines -----------------------------------------------------------------

HEADER_TEXT = st.text(st.characters(exclude_characters="\n\r", exclude_categories=("Cs",)),
                      max_size=30)
INT_LABELS = ["MaxJobs", "MaxRecords", "MaxNodes", "MaxProcs", "MaxRuntime", "MaxMemory",
              "UnixStartTime", "TimeZone", "MaxQueues", "MaxPartitions"]
TEXT_LABELS = ["Version", "Computer", "Installation", "Conversion", "Preemption",
               "StartTime", "EndTime", "AllowOveruse", "Note", "Information", "Acknowledge"]
random_label = st.from_regex(r"\A[A-Za-z][A-Za-z0-9_]{0,14}\Z").filter(
    lambda s: s.lower() not in KNOWN_LABELS)


@st.composite
def labelled(draw) -> str:
    kind = draw(st.sampled_from(["int", "text", "random"]))
    if kind == "int":
        label = draw(st.sampled_from(INT_LABELS))
        limit = START_LIMIT if label == "UnixStartTime" else 10**12
        value = str(draw(st.integers(-limit, limit))) + draw(
            st.sampled_from(["", " (batch partition)", "  ", " of 512"]))
    else:
        label = draw(st.sampled_from(TEXT_LABELS) if kind == "text" else random_label)
        value = draw(HEADER_TEXT)
    sp = [draw(MAYBE_SPACE) for _ in range(4)]
    return f"{sp[0]};{sp[1]}{label}{sp[2]}:{sp[3]}{value}"


header_line = st.one_of(
    labelled(),
    st.builds(lambda a, b: f"{a};{b}", MAYBE_SPACE, HEADER_TEXT),  # unlabelled
    st.just(";"),
)


@st.composite
def swf_logs(draw) -> tuple[bytes, list[tuple[int, str, list[str]]]]:
    """A log's bytes and its lines as (line_no, kind, tokens-or-text)."""
    njobs = draw(st.integers(1, 8))
    numbers = draw(st.lists(int64, min_size=njobs, max_size=njobs, unique=True))
    items = [("job", n) for n in numbers]
    extras = draw(st.lists(st.one_of(st.tuples(st.just("header"), header_line),
                                     st.tuples(st.just("blank"), MAYBE_SPACE)),
                           max_size=10))
    # Header lines usually come first; some stand between and after the jobs.
    lead = draw(st.integers(0, len(extras)))
    rest = extras[lead:]
    for item in rest:
        items.insert(draw(st.integers(0, len(items))), item)
    items = extras[:lead] + items
    crlf = draw(st.booleans()) and draw(st.booleans())
    out, lines = [], []
    for no, (kind, x) in enumerate(items, 1):
        if kind == "job":
            style = draw(st.sampled_from(["plain"] * 5 + ["forms", "exponents"]))
            text, toks = draw(job_line(job=x, forms=style == "forms",
                                       exponents=style == "exponents"))
            lines.append((no, "job", toks))
        else:
            text = x
            lines.append((no, kind, text))
        out.append(text)
    eol = "\r\n" if crlf else "\n"
    # (an empty last line is a line only when a line break ends it)
    data = eol.join(out) + (eol if out[-1] == "" or draw(st.booleans()) else "")
    return data.encode("utf-8"), lines


def expected_values(toks: list[str]) -> list[int | float]:
    """What each token spells: an int for BIGINT fields, the nearest double else."""
    out: list[int | float] = []
    for k, t in enumerate(toks):
        d = Decimal(t)
        if FIELDS[k].integer:
            assert d == d.to_integral_value()
            out.append(int(d))
        else:
            out.append(float(d) + 0.0)  # -0 is kept as 0
    return out


def same(a: float | int, b: float | int) -> bool:
    """Equal, and for doubles bit for bit (so -0.0 is not 0.0)."""
    if isinstance(a, float) or isinstance(b, float):
        return np.float64(a).tobytes() == np.float64(b).tobytes()
    return a == b


def column_values(columns: dict[str, np.ndarray], row: int) -> list[int | float]:
    return [columns[c][row].item() for c in COLUMNS]


# -- property 1: ingest, export: the same file ----------------------------------------


def export_gives_back_the_file(log):
    """Whatever the spacing, signs, spellings, blank and header lines, line
    ends: the export is the file byte for byte, so ingesting it again is a
    no-op; and the values kept are those the tokens spell."""
    data, lines = log
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "orig.swf"
        src.write_bytes(data)
        with open_archive(Path(tmp) / "a.duckdb", write=True) as a:
            [r] = ingest(a, [src])
            assert r.status == "ingested", r.message
            text = swf_bytes(a, "orig")
            assert text == data
            copy = Path(tmp) / "copy.swf"
            copy.write_bytes(text)
            [r2] = ingest(a, [copy], name="copy")
            assert r2.status == "unchanged", r2.message
            kept = a.con.execute("SELECT count(*) FROM verbatim_lines").fetchall()[0][0]
            event("every job line rendered" if kept == 0 else "some lines kept as written")
            got = a.con.execute("SELECT * EXCLUDE (log_id, line_no) FROM jobs ORDER BY line_no").fetchall()
            want = [expected_values(toks) for _, kind, toks in lines if kind == "job"]
            assert len(got) == len(want)
            for g_row, w_row in zip(got, want):
                assert all(same(g, w) for g, w in zip(g_row, w_row)), (g_row, w_row)


# A third of the examples in the default run, all of them in the slow step.
test_export_gives_back_the_file = settings(SETTINGS, max_examples=12)(given(swf_logs())(export_gives_back_the_file))
test_export_gives_back_the_file_more = pytest.mark.slow(SETTINGS(given(swf_logs())(export_gives_back_the_file)))


# -- property 2: parsed values are the values the tokens spell -------------------------


@SETTINGS
@given(swf_logs())
def test_parsed_values_are_what_the_tokens_spell(log):
    data, lines = log
    p = parse_bytes("gen.swf", data, len(data))
    assert p.rejects == []
    jobs = [(no, toks) for no, kind, toks in lines if kind == "job"]
    assert p.columns["line_no"].tolist() == [no for no, _ in jobs]
    for row, (no, toks) in enumerate(jobs):
        got, want = column_values(p.columns, row), expected_values(toks)
        assert all(same(g, w) for g, w in zip(got, want)), (no, toks, got)
    for c in COLUMNS:
        assert p.columns[c].dtype == (np.int64 if FIELDS[COLUMNS.index(c)].integer else np.float64)
    header = [(no, text) for no, kind, text in lines if kind == "header"]
    assert [(h.line_no, h.text) for h in p.header] == header
    assert p.blank_lines == sum(kind == "blank" for _, kind, _ in lines)


# -- property 3: the fast tokenizer and the slow parser agree ----------------------------


@st.composite
def valid_lines(draw) -> tuple[bytes, list[str], list[Decimal]]:
    """A valid job line with its tokens' exact values; exponents, signs, trailing
    zeros and long numbers in some fields push the line to the slow path."""
    toks, values = [], []
    mode = draw(st.sampled_from(["fast", "forms", "exponents"]))
    for k in range(len(FIELDS)):
        t, d = draw(value_token(k, exponents=mode == "exponents" and draw(st.booleans()),
                                forms=mode == "forms",
                                small=mode == "fast" and draw(st.integers(0, 50)) > 0))
        toks.append(t)
        values.append(d)
    text = draw(MAYBE_SPACE)
    for i, t in enumerate(toks):
        text += t + (draw(SPACE) if i < len(toks) - 1 else "")
    text += draw(MAYBE_SPACE)
    return text.encode("ascii"), toks, values


def fast_and_slow_paths_agree_on_valid_lines(case):
    line, toks, values = case
    want = [int(d) if FIELDS[k].integer else float(d) + 0.0 for k, d in enumerate(values)]
    slow = parse_line(line)
    assert all(same(s, w) for s, w in zip(slow, want)), (toks, slow, want)

    ints, floats, job_line_, _, slow_lines, _, _ = tokenize(line + b"\n")
    assert len(job_line_) == 1
    if len(slow_lines) == 0:
        event("fast path")
        fast = [(ints if IS_INT[k] else floats)[SLOT[k], 0].item() for k in range(len(FIELDS))]
        assert all(same(f, w) for f, w in zip(fast, want)), (toks, fast, want)
    else:
        event("slow path")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "one.swf"
        path.write_bytes(line + b"\n")
        p = read_swf(path)
    got = column_values(p.columns, 0)
    assert all(same(g, s) for g, s in zip(got, slow)), (toks, got, slow)


# Half the examples by default; 300 more (other ones: another test's seed) in the slow step.
LINES = settings(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
test_fast_and_slow_paths_agree_on_valid_lines = settings(LINES, max_examples=100)(
    given(valid_lines())(fast_and_slow_paths_agree_on_valid_lines))


@pytest.mark.slow
@settings(LINES, max_examples=300)
@given(valid_lines())
def test_fast_and_slow_paths_agree_on_more_valid_lines(case):
    fast_and_slow_paths_agree_on_valid_lines(case)


# Any token at all: the tokenizer never keeps a line the line parser refuses,
# and never keeps different values.
NUMBERISH = st.text(alphabet="0123456789.+-eE", min_size=1, max_size=8)
VALIDISH = st.one_of(st.integers(-10**6, 10**6).map(str),
                     st.from_regex(r"\A[+-]?[0-9]{1,7}\.[0-9]{0,7}\Z"),
                     st.from_regex(r"\A[+-]?\.[0-9]{1,4}\Z"))
ODD = st.sampled_from(["nan", "-inf", "Infinity", "abc", "0x10", "1_000", "١", "1,5",
                       ".", "-", "+.", "1e", "e5", "--1", "1.2.3", "9" * 25, "0." + "0" * 25 + "1"])


@st.composite
def any_tokens(draw) -> list[str]:
    """17 to 19 tokens: what each field would hold, with up to 3 odd ones."""
    n = draw(st.sampled_from([17, 18, 18, 18, 18, 19]))
    whole = st.integers(-10**6, 10**6).map(str)
    toks = [draw(whole if k < len(FIELDS) and FIELDS[k].integer else VALIDISH)
            for k in range(n)]
    odd = st.one_of(NUMBERISH, ODD, VALIDISH, st.integers(-10**20, 10**20).map(str))
    for _ in range(draw(st.integers(0, 3))):
        toks[draw(st.integers(0, n - 1))] = draw(odd)
    return toks


def _dated(submit: float, wait: float, run: float) -> bool:
    """Whether every instant of a job (from Unix time 0) is a date from
    0001-01-09 to 9999-12-31 UTC, by Python's own calendar; -1 is unknown."""
    if submit == -1:
        return True
    w, r = (0 if wait == -1 else wait), (0 if run == -1 else run)
    first = datetime(1, 1, 9, tzinfo=timezone.utc)
    last = datetime(9999, 12, 31, tzinfo=timezone.utc)
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    for t in (submit, submit + w, submit + w + r, submit + r):
        try:
            if not first <= epoch + timedelta(seconds=t) <= last:
                return False
        except OverflowError:
            return False
    return True


def fast_and_slow_paths_agree_on_any_tokens(toks, sep):
    line = sep.join(toks).encode("utf-8")
    try:
        slow = parse_line(line)
    except LineError as e:
        slow, reason = None, e.reason
        if e.extended:  # more than 18 fields on the first job line
            with pytest.raises(ExtendedFormatError, match="extended"):
                parse_bytes("any.swf", line + b"\n", len(line) + 1, lenient=True)
            return
    ints, floats, job_line_, _, slow_lines, _, _ = tokenize(line + b"\n")
    if len(slow_lines) == 0:
        event("fast path")
        assert slow is not None, (toks, reason)
        fast = [(ints if IS_INT[k] else floats)[SLOT[k], 0].item() for k in range(len(FIELDS))]
        assert all(same(f, s) for f, s in zip(fast, slow)), (toks, fast, slow)
    p = parse_bytes("any.swf", line + b"\n", len(line) + 1, lenient=True)
    if slow is None:
        assert [(r.line_no, r.reason) for r in p.rejects] == [(1, reason)]
        assert p.jobs == 0
    elif not _dated(*slow[1:4]):  # a valid line whose times no calendar holds
        assert len(p.rejects) == 1 and "outside the dates the archive can hold" in p.rejects[0].reason
        assert p.jobs == 0
    else:
        assert p.rejects == []
        assert all(same(g, s) for g, s in zip(column_values(p.columns, 0), slow))


TOKENS = given(any_tokens(), st.text(alphabet=" \t", min_size=1, max_size=2))
test_fast_and_slow_paths_agree_on_any_tokens = settings(max_examples=100, deadline=None, database=None)(
    TOKENS(fast_and_slow_paths_agree_on_any_tokens))


@pytest.mark.slow
@settings(max_examples=300, deadline=None, database=None)
@TOKENS
def test_fast_and_slow_paths_agree_on_more_tokens(toks, sep):
    fast_and_slow_paths_agree_on_any_tokens(toks, sep)


# -- a value the definition gets wrong -------------------------------------------------


@pytest.mark.parametrize("tok", ["0e20", "0.0e25", "-0E30"])
def test_zero_with_a_large_exponent_is_zero(tok):
    f = ["1", tok, "0", "1", "1", "-1", "-1", "1", "1", "-1", "1", "1", "1", "-1", "-1",
         "-1", "-1", "-1"]
    assert parse_line(" ".join(f).encode())[1] == 0.0
    f[1], f[4] = "0", tok
    assert parse_line(" ".join(f).encode())[4] == 0
