"""Reading is bounded: a line longer than any SWF line, gzip data inflating
far beyond any real log's ratio, and floods of header or bad lines are each
refused at a line after reading a bounded amount; blank and comment lines
cost the tokenizer nothing per line."""
from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from wla.archive import InputError
from wla.archive import open as open_archive
from wla.archive.store.ingest import ingest
from wla.archive.swf import rawfile, reader
from wla.archive.swf.limits import INFLATE_FLOOR, INFLATE_RATIO, MAX_LINE_BYTES
from wla.archive.swf.reader import parse_bytes, read_swf
from wla.archive.swf.tokenizer import BATCH, MIN_JOB_LINE, Scan

JOB = "1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1"


def jobs(n: int, first: int = 1) -> str:
    return "".join(JOB.replace("1 0 5", f"{j} {j} 5", 1) + "\n" for j in range(first, first + n))


def write(path: Path, text: bytes) -> Path:
    """`text` into `path`, gzip'd when the name ends in .gz."""
    path.write_bytes(gzip.compress(text) if path.name.endswith(".gz") else text)
    return path


def write_raw(path: Path, raw: bytes) -> Path:
    path.write_bytes(raw)
    return path


# -- the line check, against splitting the text ---------------------------------------


def first_long_line(data: bytes, limit: int) -> int | None:
    for no, line in enumerate(data.split(b"\n"), 1):
        if len(line) > limit:
            return no
    return None


def test_the_line_check_finds_the_first_long_line_however_the_text_arrives(monkeypatch):
    """Random text fed in random pieces, with a small limit: the check stops
    at the first line longer than the limit, exactly, or accepts it all."""
    monkeypatch.setattr(rawfile, "MAX_LINE_BYTES", 10)
    rng = random.Random(20240917)
    seen = {"refused": 0, "accepted": 0}
    for _ in range(600):
        density = rng.choice([0.02, 0.08, 0.1, 0.3])
        data = bytes(10 if rng.random() < density else 97 for _ in range(rng.randint(0, 300)))
        text = rawfile._Text("t.swf")
        want = first_long_line(data, 10)
        got = None
        try:
            pos = 0
            while pos < len(data):
                piece = data[pos:pos + rng.randint(1, 40)]
                text.buf += piece
                text.filled(text.size + len(piece))
                pos += len(piece)
        except InputError as e:
            got = e.line
        assert got == want, (data, got, want)
        seen["refused" if want else "accepted"] += 1
    assert min(seen.values()) > 50


@pytest.mark.parametrize("name", ["long.swf", "long.swf.gz"])
def test_a_line_of_the_limit_is_read_and_one_byte_more_is_refused(tmp_path, name):
    at_limit = b";" + b"x" * (MAX_LINE_BYTES - 1)
    ok = write(tmp_path / name, b"; Version: 2.2\n" + at_limit + b"\n" + jobs(3).encode())
    p = read_swf(ok)
    assert [len(h.text) for h in p.header] == [14, MAX_LINE_BYTES] and p.jobs == 3
    for tail in (b"\n" + jobs(3).encode(), b""):  # mid-file, and last without a line break
        bad = write(tmp_path / name, b"; Version: 2.2\n" + at_limit + b"x" + tail)
        with pytest.raises(InputError) as info:
            read_swf(bad)
        assert info.value.line == 2
        assert str(info.value).startswith(f"{bad}:2: line longer than 65,536 bytes")


def test_a_long_line_across_read_pieces(tmp_path):
    """The line straddles the pieces a plain file is read in."""
    before = jobs(rawfile.READ_STEP // (len(JOB) + 1) - 10)
    path = write(tmp_path / "x.swf", (before + ";" + "y" * MAX_LINE_BYTES + "\n").encode())
    with pytest.raises(InputError) as info:
        read_swf(path)
    assert info.value.line == before.count("\n") + 1


def test_a_huge_file_of_one_line_is_refused_after_a_bounded_read(tmp_path, monkeypatch):
    path = tmp_path / "zeros.swf"
    with open(path, "wb") as f:
        f.truncate(1 << 40)  # sparse: a terabyte of zero bytes, no newline
    read = []
    real_read, real_readv = rawfile.os.read, rawfile.os.readv
    monkeypatch.setattr(rawfile.os, "read", lambda fd, n: read.append(n) or real_read(fd, n))
    monkeypatch.setattr(rawfile.os, "readv", lambda fd, bufs: read.append(sum(map(len, bufs)))
                        or real_readv(fd, bufs))
    with pytest.raises(InputError, match="zeros.swf:1: line longer than 65,536 bytes"):
        read_swf(path)
    assert sum(read) <= MAX_LINE_BYTES + rawfile.READ_STEP + rawfile.IN_STEP


# -- gzip: bombs and framing --------------------------------------------------------------


def members(piece: bytes, count: int) -> bytes:
    """`count` gzip members of `piece` each: text of count * len(piece) bytes
    from a small file, made quickly."""
    return gzip.compress(piece, compresslevel=9) * count


def test_a_gzip_bomb_is_refused_after_the_floor(tmp_path, monkeypatch):
    raw = members(b"\n" * (16 << 20), 64)  # 1 GiB of newlines in about 1 MB
    path = write_raw(tmp_path / "bomb.swf", raw)
    read = []
    real_read = rawfile.os.read
    monkeypatch.setattr(rawfile.os, "read", lambda fd, n: read.append(n) or real_read(fd, n))
    with pytest.raises(InputError) as info:
        read_swf(path)
    assert f"inflates to over {INFLATE_RATIO} times its size" in info.value.problem
    # every byte before the refusal is a newline: the line is the text's length + 1
    assert INFLATE_FLOOR < info.value.line <= INFLATE_FLOOR + rawfile.OUT_STEP + 1
    assert sum(read) < 2 * len(raw) * INFLATE_FLOOR // (1 << 30) + rawfile.IN_STEP


def test_the_ratio_counts_the_compressed_bytes_read(tmp_path, monkeypatch):
    """Past the floor, text may grow with the compressed bytes: a file of
    high but real-like ratio goes in, the same text more compressible not."""
    monkeypatch.setattr(rawfile, "INFLATE_FLOOR", 1 << 16)
    rng = random.Random(5)
    text = "".join(JOB.replace("1 0 5 100", f"{j} {10 * j} {rng.randint(0, 9999)} {rng.randint(1, 99999)}", 1)
                   + "\n" for j in range(1, 20001)).encode()
    raw = gzip.compress(text)
    assert 4 < len(text) / len(raw) < INFLATE_RATIO
    assert read_swf(write(tmp_path / "ok.swf.gz", text)).jobs == 20000
    bomb = write(tmp_path / "bomb.swf.gz", text[:1000] + b"\n" * (8 << 20) + text[1000:])
    with pytest.raises(InputError, match="inflates to over"):
        read_swf(bomb)


def test_gzip_members_and_padding(tmp_path):
    text = ("; Version: 2.2\n" + jobs(30)).encode()
    cut = text.index(b"\n", 200) + 1
    joined = gzip.compress(text[:cut]) + gzip.compress(text[cut:])
    plain = read_swf(write(tmp_path / "plain.swf", text))
    for name, raw in (("members.swf.gz", joined), ("padded.swf.gz", joined + b"\0" * 700)):
        p = read_swf(write_raw(tmp_path / name, raw))
        assert (p.sha256, p.jobs, p.file_size) == (plain.sha256, 30, len(raw))
    junk = write_raw(tmp_path / "junk.swf", joined + b"\0\0garbage")
    with pytest.raises(InputError) as info:
        read_swf(junk)
    assert (info.value.line, info.value.problem) == (text.count(b"\n") + 1, "bytes after the end of the gzip data")


# -- floods of header and bad lines -------------------------------------------------------


def test_too_many_header_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(reader, "MAX_HEADER_LINES", 5)
    six = ("".join(f"; Note: {i}\n" for i in range(6)) + jobs(2)).encode()
    for lenient in (False, True):
        with pytest.raises(InputError, match=r":6: more than 5 header lines"):
            parse_bytes("h.swf", six, len(six), lenient=lenient)
    five = six.replace(b"; Note: 5\n", b"")
    assert len(parse_bytes("h.swf", five, len(five)).header) == 5
    earlier = (jobs(1) + "1 2 3\n").encode() + six  # strict: the bad line 2 comes first
    with pytest.raises(InputError, match=r"^h.swf:2: 3 fields"):
        parse_bytes("h.swf", earlier, len(earlier))


def test_too_many_bad_lines_when_lenient(tmp_path, monkeypatch):
    monkeypatch.setattr(reader, "MAX_REJECTS", 3)
    lines = jobs(5).splitlines()
    three = "\n".join(lines[:1] + ["x", "1 2", lines[1], "nan"] + lines[2:]) + "\n"
    p = parse_bytes("r.swf", three.encode(), len(three), lenient=True)
    assert ([r.line_no for r in p.rejects], p.jobs) == ([2, 3, 5], 5)
    four = three + "y\n"
    with pytest.raises(InputError, match=r"^r.swf:9: more than 3 bad lines"):
        parse_bytes("r.swf", four.encode(), len(four), lenient=True)


# -- the tokenizer's buffers -----------------------------------------------------------------


@pytest.mark.parametrize("text", [b"\n" * 100_000, b";\n" * 50_000, b"x\n" * 50_000, b" \t\r\n" * 25_000])
def test_buffers_do_not_grow_with_blank_comment_or_short_lines(text):
    scan = Scan(text)
    assert scan.ints.shape[1] == len(text) // (MIN_JOB_LINE + 1) + 1  # about 1 slot per 36 bytes
    assert scan._comments.shape == (BATCH, 3) and scan._slow.shape == (BATCH, 4)
    scan = Scan(text, batch=1000)
    batches = sum(1 for _ in scan.batches())
    assert scan.jobs == 0 and scan.lines == text.count(b"\n")
    lines = text.count(b"\n")
    assert batches == (lines + 999) // 1000 if text[:1] in (b";", b"x") else batches == 1


def scanned(text: bytes, batch: int) -> tuple:
    """Everything a Scan in batches of `batch` hands back, gathered."""
    scan = Scan(text, batch=batch)
    comments, slow = [], []
    for c, s in scan.batches():
        comments += c.tolist()
        slow += s.tolist()
    ints, floats, job_line = scan.blocks()
    fast = sorted(set(range(scan.jobs)) - {j for *_, j in slow})  # (slow lines' slots hold nothing yet)
    return (comments, slow, ints[:, fast].tolist(), floats[:, fast].tolist(), job_line.tolist(),
            scan.job_start[:scan.jobs].tolist(), scan.lines, scan.blank_lines, scan.first_job_line)


def test_scanning_in_batches_resumes_where_it_stopped():
    """Small batches stop the scan often; it goes on exactly where it was."""
    rng = random.Random(3)
    parts = [JOB, "1 2e3 5 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1", "; note", "", "  ", "x", "1 2 3"]
    for _ in range(30):
        lines = [rng.choice(parts).replace("1 0 5", f"{rng.randint(1, 99)} 0 5", 1) for _ in range(rng.randint(0, 60))]
        text = ("\n".join(lines) + rng.choice(["", "\n"])).encode()
        whole = scanned(text, BATCH)
        for batch in (1, 2, 3, 7):
            assert scanned(text, batch) == whole, (batch, text)


def test_short_bad_lines_take_no_job_slot_yet_are_reported(tmp_path):
    text = ("x\n" + jobs(2) + "1 2 3\n").encode()
    p = parse_bytes("s.swf", text, len(text), lenient=True)
    assert [(r.line_no, r.reason) for r in p.rejects] == [(1, "1 fields, expected 18"), (4, "3 fields, expected 18")]
    assert p.columns["line_no"].tolist() == [2, 3]


# -- peak memory, in a process of its own -----------------------------------------------------

PEAK = r"""
import json, resource, sys
from wla.archive.swf.reader import read_swf
from wla.archive.swf.tokenizer import warm
from wla.archive import InputError
warm()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    read_swf(sys.argv[1]); said = "read"
except InputError as e:
    said = str(e)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"grew_mb": (after - before) / 1024, "said": said}))
"""


@pytest.mark.slow
def test_peak_memory_of_bombs_and_floods(tmp_path):
    """Peak RSS above the interpreter's own, each input in a process of its own."""
    cases = {
        "newlines.swf.gz": (members(b"\n" * (16 << 20), 64), 200, "inflates to over"),
        "one-line.swf.gz": (members(b"7" * (16 << 20), 64), 50, "line longer than"),
        "newlines.swf": (b"\n" * (100 << 20), 200, "no job lines"),
    }
    runs = {}
    for name, (raw, _, _) in cases.items():
        path = write_raw(tmp_path / name, raw)
        runs[name] = subprocess.Popen([sys.executable, "-c", PEAK, str(path)],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for name, proc in runs.items():
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        got = json.loads(out.splitlines()[-1])
        _, most, says = cases[name]
        assert says in got["said"], got
        assert got["grew_mb"] < most, (name, got)


# -- an ingest that is refused leaves the archive as it was ----------------------------------


def test_refused_for_a_limit_the_archive_is_unchanged(tmp_path):
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        [r] = ingest(a, [write(tmp_path / "good.swf", jobs(3).encode())])
        before = a.df("SELECT * FROM jobs ORDER BY line_no")
        bad = write(tmp_path / "bad.swf.gz", jobs(3).encode() + b";" + b"z" * MAX_LINE_BYTES + b"\n")
        [r] = ingest(a, [bad])
        assert r.status == "failed" and r.message.startswith(f"{bad}:4: line longer than")
        assert a.log_names() == ["good"]
        assert a.df("SELECT * FROM jobs ORDER BY line_no").equals(before)


def test_zlib_is_fed_in_bounded_pieces(tmp_path, monkeypatch):
    """No single zlib call gets more than IN_STEP compressed bytes or returns
    more than OUT_STEP of text."""
    calls = []
    real = zlib.decompressobj

    class Spy:
        def __init__(self, *a, **k):
            self.d = real(*a, **k)

        def decompress(self, data, max_length=0):
            out = self.d.decompress(data, max_length)
            calls.append((len(data), max_length, len(out)))
            return out

        def __getattr__(self, name):
            return getattr(self.d, name)

        def copy(self):
            return self.d.copy()

    monkeypatch.setattr(rawfile.zlib, "decompressobj", Spy)
    text = jobs(20000).encode()
    p = read_swf(write(tmp_path / "x.swf.gz", text))
    assert p.jobs == 20000 and len(calls) > 1
    assert all(n <= rawfile.IN_STEP and 0 < cap <= rawfile.OUT_STEP and out <= cap for n, cap, out in calls)
