"""Fuzzing ingest with damaged copies of two small real logs.

A seeded generator damages the text (bit flips, truncation, lines duplicated,
deleted or swapped, huge, non-finite and odd numbers, times outside the
calendar, mixed line ends, tabs, unicode, NULs, overlong lines, extra fields,
header starts out of range, garbage) and the gzip data (bit flips,
truncation, members, padding, trailing bytes). Each damaged file must either
be refused in one line (`FILE:LINE: ...` or `FILE: ...`) leaving the archive
exactly as it was, or be accepted with every value intact. "Intact" is judged
by a reference reader written here with Python's gzip and Decimal, which also
says whether the file should go in at all and at which line a refusal falls.
"""
from __future__ import annotations

import gzip
import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal

import pytest
from real_logs import data_dir
from wla.archive import WlaError
from wla.archive import open as open_archive
from wla.archive.store.ingest import ingest
from wla.archive.swf.fields import COLUMNS

SEED = 20240917
CASES = 320
SOURCES = ("NASA-iPSC-1993-3-head228", "ANL-Intrepid-2009-1-head10")

# -- the reference reader ------------------------------------------------------------------
# What the archive documents, written out independently of its code.

INTEGER = {"job", "procs", "req_procs", "status", "user_id", "group_id", "app_id", "queue_id",
           "partition_id", "prev_job"}
NUMBER = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
LABELLED = re.compile(r"^\s*;\s*([A-Za-z][A-Za-z0-9_]*)\s*:\s*(.*?)\s*$", re.S)
LEADING = re.compile(r"^\s*([+-]?\d+)")
SPACE = b" \t\r\x0b\x0c"
FIRST = datetime(1, 1, 9, tzinfo=timezone.utc).timestamp()
LAST = datetime(9999, 12, 31, tzinfo=timezone.utc).timestamp()
LONGEST = 64 * 1024


class Bad(Exception):
    """A line the reference refuses; `extended` when it has more than 18 fields."""

    def __init__(self, extended: bool = False):
        self.extended = extended


def value(column: str, token: bytes) -> int | float:
    if not NUMBER.fullmatch(token):
        raise Bad()
    d = Decimal(token.decode())
    if d.is_zero():  # 0e999 is 0, however large its exponent
        d = Decimal(0)
    integral = d == d.to_integral_value() if abs(d.adjusted()) < 100 else d.adjusted() > 0
    if column in INTEGER:
        if not integral or d.adjusted() > 19 or not -(2**63) <= int(d) < 2**63:
            raise Bad()
        return int(d)
    if integral and (d.adjusted() > 19 or abs(int(d)) > 2**53):
        raise Bad()
    return float(d)


def job_values(line: bytes) -> list[int | float]:
    if not line.isascii():
        raise Bad()
    tokens = line.split()
    if len(tokens) != 18:
        raise Bad(extended=len(tokens) > 18)
    return [value(c, t) for c, t in zip(COLUMNS, tokens)]


def times_inside(values: list, start: int | None) -> bool:
    submit, wait, run = values[1:4]
    if submit == -1:
        return True
    s = submit + float(start or 0)
    w = wait if wait != -1 else 0.0
    r = run if run != -1 else 0.0
    return all(FIRST <= t <= LAST for t in (s, s + w, (s + w) + r, s + r))


@dataclass
class Expected:
    refused: bool
    line: int | None = None  # strict: where the refusal falls (None: the whole file)
    jobs: list[tuple] = field(default_factory=list)  # (line, 18 values)
    header: list[tuple[int, str]] = field(default_factory=list)
    rejects: list[int] = field(default_factory=list)
    lines: int = 0
    blank: int = 0
    start: int | None = None
    exact_line: bool = True  # False where the reference cannot tell the line (broken gzip)


def inflate(raw: bytes, name: str) -> bytes | Expected:
    """The SWF text of a file, or the refusal."""
    if not raw:
        return Expected(True)
    if raw[:2] == b"\x1f\x8b":
        if len(raw) > 3 and raw[3] & 0xE0:  # RFC 1952: reserved flag bits must be zero
            return Expected(True, exact_line=False)
        try:
            text = gzip.decompress(raw)
        except Exception:  # any failure of Python's gzip: a broken file
            return Expected(True, exact_line=False)
        return text if text else Expected(True)
    if name.endswith(".gz"):
        return Expected(True)
    return raw


def reference(raw: bytes, name: str, lenient: bool) -> Expected:
    text = inflate(raw, name)
    if isinstance(text, Expected):
        return text
    lines = text.split(b"\n")
    if text.endswith(b"\n"):
        lines.pop()
    for n, line in enumerate(lines, 1):
        if len(line) > LONGEST:
            return Expected(True, n)
    exp = Expected(False, lines=len(lines))
    problems: list[int] = []
    header: list[tuple[int, str]] = []
    jobs: list[tuple[int, list]] = []
    first_job = None
    for n, line in enumerate(lines, 1):
        bare = line.strip(SPACE)
        if not bare:
            exp.blank += 1
        elif bare[:1] == b";":
            try:
                header.append((n, line.decode("utf-8").rstrip("\r")))
            except UnicodeDecodeError:
                problems.append(n)
        else:
            first_job = first_job or n
            try:
                jobs.append((n, job_values(line)))
            except Bad as e:
                if e.extended and n == first_job:
                    return Expected(True, n)
                problems.append(n)
    start, start_refused = None, False
    for n, t in list(header):
        m = LABELLED.match(t)
        if m is None or m.group(1).lower() != "unixstarttime":
            continue
        lead = LEADING.match(m.group(2))
        if lead is None:
            continue
        number = int(lead.group(1)) if len(lead.group(1)) < 40 else 10**40
        if FIRST <= number <= LAST:
            start = number
            break
        problems.append(n)
        start_refused = not lenient
        if start_refused:
            break
        header.remove((n, t))
    if not start_refused:
        bad = [n for n, v in jobs if not times_inside(v, start)]
        problems += bad
        jobs = [(n, v) for n, v in jobs if n not in bad]
    seen, kept = set(), []
    for n, v in jobs:
        if v[0] in seen:
            problems.append(n)
        else:
            seen.add(v[0])
            kept.append((n, v))
    if not kept and not problems:
        return Expected(True)
    if problems and not lenient:
        return Expected(True, min(problems))
    exp.jobs, exp.header, exp.rejects, exp.start = kept, header, sorted(problems), start
    return exp


# -- damage ----------------------------------------------------------------------------------

ODD = ["1" + "0" * 30, str(2**63), str(-(2**63) - 1), str(2**63 - 1), str(-(2**63)), str(2**53),
       str(2**53 + 1), "9007199254740993.5", "1e15", "1e400", "-1e400", "1e-400", "nan", "NaN", "inf",
       "-Infinity", "0e999", "-0", "+5", "00012", ".5", "5.", "1_000", "0x10", "1,5", "٣", "１", "1e",
       "--1", "1.2.3", "0.1", "-1.5e3", "253402214400", "-62134905600", "-62134905601", "1e12", "-1e12"]
STARTS = [str(2**63 - 1), str(-(2**63)), "1" + "0" * 25, "253402214401", "-62134905601", "253402214400",
          "-62134905600", "0", "abc", "-5 (approximately)"]
CHARS = ["é", "\u2028", "\u00a0", "\x00", "\x1b", "\ufeff", "\t", "\r", "\x0b", "\x1c", "日本"]


def lines_of(b: bytes) -> list[bytes]:
    return b.split(b"\n")


def job_rows(ls: list[bytes]) -> list[int]:
    return [i for i, ln in enumerate(ls) if ln.strip(SPACE) and not ln.strip(SPACE).startswith(b";")]


def with_token(rng: random.Random, b: bytes, token: str, field_index: int | None = None) -> bytes:
    ls = lines_of(b)
    rows = job_rows(ls)
    if not rows:
        return b
    i = rng.choice(rows)
    toks = ls[i].split()
    k = field_index if field_index is not None and field_index < len(toks) else rng.randrange(len(toks))
    toks[k] = token.encode()
    ls[i] = b" ".join(toks)
    return b"\n".join(ls)


def text_damage(rng: random.Random, b: bytes) -> bytes:
    kind = rng.choice(["flip", "truncate", "dup", "delete", "swap", "odd", "time", "crlf", "cr", "tabs",
                       "char", "bytes", "start", "extra", "long", "garbage", "comment", "bom", "nul"])
    ls = lines_of(b)
    if kind == "flip" and b:
        i = rng.randrange(len(b))
        return b[:i] + bytes([b[i] ^ (1 << rng.randrange(8))]) + b[i + 1:]
    if kind == "truncate":
        return b[:rng.randrange(len(b) + 1)]
    if kind == "dup":
        ls.insert(rng.randrange(len(ls) + 1), rng.choice(ls))
    elif kind == "delete" and len(ls) > 1:
        del ls[rng.randrange(len(ls))]
    elif kind == "swap":
        i, j = rng.randrange(len(ls)), rng.randrange(len(ls))
        ls[i], ls[j] = ls[j], ls[i]
    elif kind == "odd":
        return with_token(rng, b, rng.choice(ODD))
    elif kind == "time":  # submit, wait or run
        return with_token(rng, b, rng.choice(ODD[-8:] + ["1e15", str(2**53)]), rng.choice([1, 2, 3]))
    elif kind == "crlf":
        return b.replace(b"\n", b"\r\n", rng.randint(1, 50))
    elif kind == "cr":
        i = rng.randrange(len(ls))
        ls[i] = ls[i] + b"\r" * rng.randint(1, 2)
    elif kind == "tabs":
        return b.replace(b" ", rng.choice([b"\t", b"\x0b", b"\x0c", b" \t "]), rng.randint(1, 200))
    elif kind == "char":
        i = rng.randrange(len(ls))
        at = rng.randrange(len(ls[i]) + 1)
        ls[i] = ls[i][:at] + rng.choice(CHARS).encode() + ls[i][at:]
    elif kind == "bytes":
        i = rng.randrange(len(ls))
        at = rng.randrange(len(ls[i]) + 1)
        ls[i] = ls[i][:at] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80"]) + ls[i][at:]
    elif kind == "start":
        ls.insert(rng.randrange(min(len(ls), 5) + 1), f"; UnixStartTime: {rng.choice(STARTS)}".encode())
    elif kind == "extra":
        rows = job_rows(ls)
        if rows:
            i = rng.choice(rows[:2] + rows)
            ls[i] = ls[i] + b" 7" * rng.randint(1, 2)
    elif kind == "long":
        long = rng.choice([b";", b"", b"1 "]) + b"x" * (LONGEST + rng.randint(-1, 1))
        ls.insert(rng.randrange(len(ls) + 1), long)
    elif kind == "garbage":
        return b + bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
    elif kind == "comment":
        ls.insert(rng.randrange(len(ls) + 1), rng.choice([b"; Note: mid-file", b"   ;", b";\t\t", b"; MaxProcs: x"]))
    elif kind == "bom":
        return b"\xef\xbb\xbf" + b
    elif kind == "nul":
        return b.replace(b" ", b"\x00", rng.randint(1, 3))
    return b"\n".join(ls)


def gzip_damage(rng: random.Random, text: bytes) -> bytes:
    raw = gzip.compress(text, mtime=0)
    kind = rng.choice(["flip", "flip", "flip", "truncate", "members", "padding", "trailing", "empty-member"])
    if kind == "flip":
        i = rng.randrange(len(raw))
        return raw[:i] + bytes([raw[i] ^ (1 << rng.randrange(8))]) + raw[i + 1:]
    if kind == "truncate":
        return raw[:rng.randrange(len(raw))]
    if kind == "members":
        cut = rng.randrange(len(text) + 1)
        return gzip.compress(text[:cut], mtime=0) + gzip.compress(text[cut:], mtime=0)
    if kind == "padding":
        return raw + b"\x00" * rng.randint(1, 600)
    if kind == "trailing":
        return raw + bytes(rng.randrange(1, 256) for _ in range(rng.randint(1, 9)))
    return gzip.compress(b"", mtime=0) + raw


def cases() -> list[tuple[str, str, bytes, bool]]:
    """(id, file name, bytes, lenient), the same every run."""
    rng = random.Random(SEED)
    texts = {s: gzip.decompress((data_dir() / f"{s}.swf.gz").read_bytes()) for s in SOURCES}
    small = texts[SOURCES[1]]
    fixed = [("empty", "e.swf", b"", False), ("header-only", "h.swf", small.split(b"\n1 ")[0], False),
             ("blank-only", "b.swf", b"\n \n\t\r\n", True),
             ("empty-gzip", "g.swf.gz", gzip.compress(b"", mtime=0), False),
             ("plain-named-gz", "p.swf.gz", small, False),
             ("gzip-named-swf", "q.swf", gzip.compress(small, mtime=0), False)]
    out = list(fixed)
    for i in range(CASES - len(fixed)):
        source = texts[SOURCES[i % 2]]
        damaged = source
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            damaged = text_damage(rng, damaged)
        if rng.random() < 0.3:
            out.append((f"{i}-gz", f"c{i}.swf.gz", gzip_damage(rng, damaged), rng.random() < 0.3))
        else:
            out.append((f"{i}", f"c{i}.swf", damaged, rng.random() < 0.4))
    return out


# -- the run ---------------------------------------------------------------------------------

TABLES = {
    "jobs": "SELECT * FROM jobs ORDER BY log_id, line_no",
    "logs": "SELECT * EXCLUDE (ingested_at) FROM logs ORDER BY log_id",
    "header_lines": "SELECT * FROM header_lines ORDER BY log_id, seq",
    "rejects": "SELECT * FROM rejects ORDER BY log_id, line_no",
}


def snapshot(a) -> dict[str, list[tuple]]:
    return {k: a.con.execute(q).fetchall() for k, q in TABLES.items()}


def check_accepted(a, name: str, exp: Expected, got) -> None:
    cols = ", ".join(COLUMNS)
    rows = a.con.execute(f"SELECT line_no, {cols} FROM jobs JOIN logs USING (log_id) WHERE name = ? "
                         "ORDER BY line_no", [name]).fetchall()
    assert [(r[0], list(r[1:])) for r in rows] == [(n, v) for n, v in exp.jobs]
    header = a.con.execute("SELECT h.line_no, text FROM header_lines h JOIN logs USING (log_id) "
                           "WHERE name = ? ORDER BY seq", [name]).fetchall()
    assert header == exp.header
    rejects = a.con.execute("SELECT r.line_no FROM rejects r JOIN logs USING (log_id) WHERE name = ? "
                            "ORDER BY r.line_no", [name]).fetchall()
    assert [r[0] for r in rejects] == exp.rejects
    facts = a.con.execute("SELECT lines, blank_lines, unix_start_time, jobs FROM logs WHERE name = ?",
                          [name]).fetchone()
    assert facts == (exp.lines, exp.blank, exp.start, len(exp.jobs))
    assert (got.jobs, got.rejects) == (len(exp.jobs), len(exp.rejects))


def forget(a, name: str) -> None:
    """Take an accepted log out again, so every case meets the same archive."""
    [(log_id,)] = a.con.execute("SELECT log_id FROM logs WHERE name = ?", [name]).fetchall()
    for table in ("jobs", "header_lines", "rejects", "logs"):
        a.con.execute(f"DELETE FROM {table} WHERE log_id = ?", [log_id])


@pytest.mark.parametrize("third", [pytest.param(0, marks=pytest.mark.long),
                                   pytest.param(1, marks=pytest.mark.slow),
                                   pytest.param(2, marks=pytest.mark.slow)],
                         ids=["first", "second", "third"])
def test_damaged_logs_are_refused_in_one_line_or_kept_intact(tmp_path, third):
    """A third of the cases by default (the fixed ones and every third
    generated one); the slow step runs the other two thirds."""
    generated = cases()
    assert len(generated) == CASES
    generated = generated[:6] + generated[6 + third::3]
    base = data_dir() / f"{SOURCES[0]}.swf.gz"
    outcomes = {"refused": 0, "accepted": 0, "lenient": 0, "with rejects": 0}
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        [r] = ingest(a, [base])
        assert r.status == "ingested"
        before = snapshot(a)
        for case_id, file_name, raw, lenient in generated:
            path = tmp_path / file_name
            path.write_bytes(raw)
            exp = reference(raw, file_name, lenient)
            name = f"case-{case_id}"
            [got] = ingest(a, [path], lenient=lenient, name=name)
            where = (case_id, lenient, got.message)
            if got.status == "failed":
                outcomes["refused"] += 1
                assert exp.refused, where
                assert isinstance(got.error, WlaError), where
                message = str(got.error)
                assert "\n" not in message and message == got.message, where
                m = re.match(rf"^{re.escape(str(path))}(?::(\d+))?: \S", message)
                assert m, where
                line = int(m.group(1)) if m.group(1) else None
                if exp.exact_line:
                    assert line == exp.line, (where, exp.line)
                assert snapshot(a) == before, where
            else:
                assert got.status == "ingested" and not exp.refused, (where, exp.line)
                check_accepted(a, name, exp, got)
                forget(a, name)
                outcomes["accepted"] += 1
                outcomes["lenient"] += lenient
                outcomes["with rejects"] += bool(exp.rejects)
            path.unlink()
        assert snapshot(a) == before
    # the damage is varied enough to reach both outcomes, and lenient keeping
    assert min(outcomes.values()) >= 10, outcomes


def test_the_generator_is_deterministic():
    first, second = cases(), cases()
    assert first == second
