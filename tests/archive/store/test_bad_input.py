"""Bad input: every refused file names FILE:LINE and the problem, and leaves the
archive exactly as it was; lenient ingest keeps the good lines and sets the bad
one apart in `rejects`, as written."""
from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from cli_run import wla as cli
from pandas.testing import assert_frame_equal
from wla.archive import ExtendedFormatError, InputError
from wla.archive import open as open_archive
from wla.archive.kernel.errors import LogExists
from wla.archive.store.ingest import ingest
from wla.archive.swf.reader import read_swf

# -- building SWF text ------------------------------------------------------

HEADER = ["; Version: 2.2", "; Computer: Test machine", "; MaxProcs: 64"]


def fields(i: int) -> list[str]:
    """The 18 fields of a plain, valid job line for job number i."""
    return [str(i), str(100 * i), "5", "3600", "4", "-1", "-1", "4", "7200", "-1",
            "1", str(i % 3 + 1), "1", "-1", "1", "-1", "-1", "-1"]


def job(i: int) -> str:
    return " ".join(fields(i))


def good_lines(njobs: int = 6) -> list[str]:
    return HEADER + [""] + [job(i) for i in range(1, njobs + 1)]


def with_bad(bad: str, at: int = 7, njobs: int = 6) -> list[str]:
    """A valid log whose job line at 1-based line `at` is replaced by `bad`."""
    lines = good_lines(njobs)
    lines[at - 1] = bad
    return lines


def text_of(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode("utf-8")


def mutate(i: int, k: int, token: str) -> str:
    """Job line i with field index k (0-based) written as `token`."""
    f = fields(i)
    f[k] = token
    return " ".join(f)


# -- the archive ------------------------------------------------------------

SNAPSHOT = {
    "jobs": "SELECT * FROM jobs ORDER BY log_id, line_no",
    "logs": "SELECT * FROM logs ORDER BY log_id",
    "header_lines": "SELECT * FROM header_lines ORDER BY log_id, seq",
    "rejects": "SELECT * FROM rejects ORDER BY log_id, line_no",
}


def snapshot(a) -> dict[str, pd.DataFrame]:
    return {k: a.df(q) for k, q in SNAPSHOT.items()}


def assert_same(before: dict[str, pd.DataFrame], after: dict[str, pd.DataFrame]) -> None:
    for k in SNAPSHOT:
        assert_frame_equal(after[k], before[k], check_exact=True, obj=k)


@pytest.fixture
def archive(tmp_path):
    """An archive already holding one good log, `base`."""
    base = tmp_path / "base.swf"
    base.write_bytes(text_of(good_lines(4)))
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        [r] = ingest(a, [base])
        assert r.status == "ingested" and r.jobs == 4
        yield a


def assert_refused(a, path: Path, line: int | None, word: str, lenient: bool = False,
                   kind: type = InputError) -> InputError:
    """Ingest `path`: it fails with `kind` at `line`, naming `word`, and the
    archive is exactly as before."""
    before = snapshot(a)
    [r] = ingest(a, [path], lenient=lenient)
    assert r.status == "failed", r
    err = r.error
    assert isinstance(err, kind), repr(err)
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert str(err).startswith(where), str(err)
    assert err.file == str(path) and err.line == line
    assert word in err.problem, str(err)
    assert r.message == str(err)
    assert "\n" not in str(err)
    assert_same(before, snapshot(a))
    # The reader says the same thing, as an exception.
    with pytest.raises(kind) as info:
        read_swf(path, lenient=lenient)
    assert str(info.value) == str(err)
    return err


# -- one bad line: strict refuses, lenient sets it apart ---------------------


@dataclass
class BadLine:
    id: str
    raw: bytes  # the whole file
    line: int  # the bad line
    word: str  # a word of the problem
    text: str  # the bad line as the rejects table keeps it
    jobs: int  # good jobs lenient keeps


def bad_line_case(id: str, bad: str, word: str, at: int = 7) -> BadLine:
    return BadLine(id, text_of(with_bad(bad, at)), at, word, bad, 5)


BAD_LINES = [
    bad_line_case("17-fields", " ".join(fields(3)[:17]), "17 fields"),
    bad_line_case("19-fields-mid-file", job(5) + " 7", "19 fields", at=9),
    bad_line_case("non-numeric", mutate(4, 3, "abc"), "not a number", at=8),
    bad_line_case("NaN", mutate(4, 1, "NaN"), "NaN or infinite", at=8),
    bad_line_case("inf", mutate(4, 2, "inf"), "NaN or infinite", at=8),
    bad_line_case("-Infinity", mutate(4, 17, "-Infinity"), "NaN or infinite", at=8),
    bad_line_case("beyond-int64", mutate(3, 0, "99999999999999999999"), "64-bit"),
    bad_line_case("below-int64", mutate(3, 11, "-9223372036854775809"), "64-bit"),
    bad_line_case("double-beyond-2^53", mutate(3, 1, "9007199254740993"),
                  "too large to keep exactly"),
    bad_line_case("fraction-in-integer-field", mutate(3, 4, "1.5"), "whole number"),
    bad_line_case("non-ascii-job-line", mutate(6, 3, "36é0"), "non-ASCII", at=10),
    BadLine("last-line-without-newline", text_of(with_bad(job(6)[:-3], at=10))[:-1],
            10, "17 fields", job(6)[:-3], 5),
    BadLine("header-not-utf8",
            b"; Version: 2.2\n; Note: \xff\xfe\n"
            + text_of([job(i) for i in range(1, 7)]),
            2, "UTF-8", "; Note: \\xff\\xfe", 6),
    BadLine("non-ascii-invalid-utf8-byte",
            text_of(good_lines()).replace(job(3).encode() + b"\n",
                                          job(3).encode() + b" \xff\n"),
            7, "non-ASCII", job(3) + " \\xff", 5),
    bad_line_case("duplicate-job-number", job(2), "repeats (first on line 6)", at=9),
]


@pytest.mark.parametrize("case", BAD_LINES, ids=lambda c: c.id)
def test_bad_line_strict_refuses_the_file(archive, tmp_path, case):
    path = tmp_path / f"{case.id}.swf"
    path.write_bytes(case.raw)
    err = assert_refused(archive, path, case.line, case.word)
    assert type(err) is InputError  # not ExtendedFormatError: a bad line, not a dialect
    assert err.text is not None


@pytest.mark.parametrize("case", BAD_LINES, ids=lambda c: c.id)
def test_bad_line_lenient_keeps_it_in_rejects(archive, tmp_path, case):
    path = tmp_path / f"{case.id}.swf"
    path.write_bytes(case.raw)
    with pytest.raises(InputError) as info:
        read_swf(path)
    problem = info.value.problem

    before = snapshot(archive)
    [r] = ingest(archive, [path], lenient=True)
    assert r.status == "ingested", r
    assert (r.jobs, r.rejects) == (case.jobs, 1)
    log_id = archive.log_id(case.id)

    rejects = archive.df(f"SELECT line_no, text, reason FROM rejects WHERE log_id = {log_id}")
    assert rejects.to_dict("records") == [
        {"line_no": case.line, "text": case.text, "reason": problem}]
    assert case.word in problem

    # Every other job line is kept, by line number; the old log is untouched.
    lines = case.raw.split(b"\n")
    expected = [n for n, ln in enumerate(lines, 1)
                if ln.strip() and not ln.lstrip().startswith(b";") and n != case.line]
    got = archive.df(f"SELECT line_no FROM jobs WHERE log_id = {log_id} ORDER BY line_no")
    assert got["line_no"].tolist() == expected
    logs = archive.df(f"SELECT jobs, rejects, lenient FROM logs WHERE log_id = {log_id}")
    assert logs.to_dict("records") == [{"jobs": case.jobs, "rejects": 1, "lenient": True}]
    header = archive.df(f"SELECT text FROM header_lines WHERE log_id = {log_id} ORDER BY seq")
    assert case.text not in header["text"].tolist()
    for k, q in SNAPSHOT.items():
        table = q.split(" FROM ")[1].split()[0]
        others = archive.df(q.replace(f"FROM {table}",
                                       f"FROM {table} WHERE log_id <> {log_id}"))
        # (an empty frame's string dtype depends on whether the table ever held rows)
        assert_frame_equal(others, before[k], check_exact=True, obj=k,
                           check_dtype=not before[k].empty)


def test_duplicate_keeps_the_first_line(archive, tmp_path):
    path = tmp_path / "dup.swf"
    lines = with_bad(mutate(2, 1, "999"), at=9)  # job 2 again, other values
    path.write_bytes(text_of(lines))
    [r] = ingest(archive, [path], lenient=True)
    assert (r.status, r.jobs, r.rejects) == ("ingested", 5, 1)
    kept = archive.df("SELECT line_no, submit FROM jobs WHERE log_id = 2 AND job = 2")
    assert kept.to_dict("records") == [{"line_no": 6, "submit": 200.0}]


def test_every_bad_line_is_rejected_and_strict_names_the_first(archive, tmp_path):
    lines = good_lines(8)
    lines[5] = mutate(2, 3, "abc")
    lines[8] = job(1)  # duplicate of line 5
    lines[10] = "1 2 3"
    path = tmp_path / "many.swf"
    path.write_bytes(text_of(lines))
    assert_refused(archive, path, 6, "not a number")
    [r] = ingest(archive, [path], lenient=True)
    assert (r.jobs, r.rejects) == (5, 3)
    got = archive.df("SELECT line_no, text FROM rejects WHERE log_id = 2 ORDER BY line_no")
    assert got.to_dict("records") == [
        {"line_no": 6, "text": lines[5]}, {"line_no": 9, "text": lines[8]},
        {"line_no": 11, "text": "1 2 3"}]


# -- extended format ----------------------------------------------------------


@pytest.mark.parametrize("lenient", [False, True])
def test_extended_format_is_refused_even_when_lenient(archive, tmp_path, lenient):
    lines = HEADER + [job(i) + " 0 node-list" for i in range(1, 4)]
    path = tmp_path / "extended.swf"
    path.write_bytes(text_of(lines))
    err = assert_refused(archive, path, 4, "extended", lenient=lenient, kind=ExtendedFormatError)
    assert "20 fields" in err.problem


# -- whole-file errors ----------------------------------------------------------


def big_text(njobs: int = 60) -> bytes:
    return text_of(good_lines(njobs))


def inflate_until_error(raw: bytes) -> tuple[bytes, str | None]:
    """Inflate byte by byte: the text before the stream broke, and why it broke."""
    d = zlib.decompressobj(wbits=31)
    out = b""
    try:
        for i in range(len(raw)):
            out += d.decompress(raw[i:i + 1])
    except zlib.error as e:
        return out, str(e)
    return out, None if d.eof else "truncated"


def test_truncated_gzip(archive, tmp_path):
    raw = gzip.compress(big_text())[:-20]
    path = tmp_path / "truncated.swf.gz"
    path.write_bytes(raw)
    done, why = inflate_until_error(raw)
    assert why == "truncated"
    line = done.count(b"\n") + 1
    assert line > len(HEADER) + 1  # it broke well into the file
    assert_refused(archive, path, line, "truncated")
    assert_refused(archive, path, line, "truncated", lenient=True)


def corrupt_gzip() -> tuple[bytes, int]:
    """A gzip of a good log with two bytes flipped near the middle, where the
    deflate stream itself breaks (not just the checksum), and the line it broke on."""
    raw = gzip.compress(big_text())
    for offset in range(0, len(raw) // 3):
        for pos in (len(raw) // 2 + offset, len(raw) // 2 - offset):
            b = bytearray(raw)
            b[pos] ^= 0xFF
            b[pos + 1] ^= 0xFF
            done, why = inflate_until_error(bytes(b))
            if why is not None and "check" not in why and done.count(b"\n") > 5:
                return bytes(b), done.count(b"\n") + 1
    raise AssertionError("no corruption found that breaks the deflate stream")


def test_corrupt_gzip(archive, tmp_path):
    raw, _ = corrupt_gzip()
    path = tmp_path / "corrupt.swf.gz"
    path.write_bytes(raw)
    before = snapshot(archive)
    for lenient in (False, True):
        [r] = ingest(archive, [path], lenient=lenient)
        assert r.status == "failed" and isinstance(r.error, InputError)
        assert r.error.line is not None
        assert str(r.error).startswith(f"{path}:{r.error.line}: corrupt gzip data")
        assert_same(before, snapshot(archive))


def test_corrupt_gzip_is_reported_at_the_line_it_broke(archive, tmp_path):
    raw, line = corrupt_gzip()
    path = tmp_path / "corrupt.swf.gz"
    path.write_bytes(raw)
    assert_refused(archive, path, line, "corrupt gzip")


def test_corrupt_gzip_header(archive, tmp_path):
    raw = bytearray(gzip.compress(big_text()))
    raw[3] = 0xFF  # reserved flag bits set
    path = tmp_path / "badheader.swf.gz"
    path.write_bytes(bytes(raw))
    assert_refused(archive, path, 1, "corrupt gzip")


@pytest.mark.parametrize("name, raw, word", [
    ("empty.swf", b"", "empty"),
    ("empty.swf.gz", gzip.compress(b""), "no data inside the gzip stream"),
    ("notgzip.swf.gz", text_of(good_lines()), "not gzip"),
    ("blank.swf", b"\n  \n\t\n", "no job lines"),
    ("header-only.swf", text_of(HEADER), "no job lines"),
], ids=["empty", "empty-gz", "named-gz-not-gzip", "only-blank-lines", "header-only"])
@pytest.mark.parametrize("lenient", [False, True])
def test_file_without_jobs_is_refused(archive, tmp_path, name, raw, word, lenient):
    path = tmp_path / name
    path.write_bytes(raw)
    assert_refused(archive, path, None, word, lenient=lenient)


def test_missing_file_is_refused_before_anything_is_read(archive, tmp_path):
    before = snapshot(archive)
    with pytest.raises(InputError, match="no such file"):
        ingest(archive, [tmp_path / "nowhere.swf"])
    assert_same(before, snapshot(archive))


# -- header values the archive cannot hold --------------------------------------


def test_unknown_time_zone_string_ingests_with_tz_null(archive, tmp_path):
    path = tmp_path / "tz.swf"
    path.write_bytes(text_of(["; TimeZoneString: Europe/Nowhere"] + [job(i) for i in (1, 2)]))
    [r] = ingest(archive, [path])
    assert r.status == "ingested"
    row = archive.df("SELECT tz, time_zone_string FROM logs WHERE name = 'tz'")
    assert row["time_zone_string"].tolist() == ["Europe/Nowhere"]
    assert pd.isna(row["tz"][0])


def test_header_number_beyond_int64_is_a_result_not_a_crash(archive, tmp_path):
    bad = tmp_path / "bighead.swf"
    bad.write_bytes(text_of(["; MaxProcs: 99999999999999999999"] + [job(i) for i in (1, 2)]))
    good = tmp_path / "after.swf"
    good.write_bytes(text_of([job(i) for i in (1, 2, 3)]))
    first, second = ingest(archive, [bad, good])
    assert second.status == "ingested"
    # Either refused as FILE:LINE, or kept with the fact left unknown.
    if first.status == "failed":
        assert str(first.error).startswith(f"{bad}:1: ")
    else:
        assert first.status == "ingested"
        row = archive.df("SELECT max_procs, machine_size FROM logs WHERE name = 'bighead'")
        assert row.isna().all(axis=None)


# -- same name, same bytes -------------------------------------------------------


def test_same_bytes_again_is_unchanged(archive, tmp_path):
    before = snapshot(archive)
    [r] = ingest(archive, [tmp_path / "base.swf"])
    assert r.status == "unchanged" and r.error is None
    # A gzip'd copy of the same text is the same log.
    gz = tmp_path / "base.swf.gz"
    gz.write_bytes(gzip.compress((tmp_path / "base.swf").read_bytes()))
    [r] = ingest(archive, [gz])
    assert r.status == "unchanged"
    assert_same(before, snapshot(archive))


def test_different_file_under_the_same_name(archive, tmp_path):
    other = tmp_path / "other" / "base.swf"
    other.parent.mkdir()
    new_lines = ["; Computer: Replacement"] + [mutate(i, 1, str(7 * i)) for i in (10, 11, 12)]
    other.write_bytes(text_of(new_lines))
    before = snapshot(archive)

    [r] = ingest(archive, [other])
    assert r.status == "failed" and isinstance(r.error, LogExists)
    assert "base" in r.message and "use replace to replace it" in r.message
    assert_same(before, snapshot(archive))

    [r] = ingest(archive, [other], replace=True)
    assert (r.status, r.jobs) == ("replaced", 3)
    assert archive.log_names() == ["base"]
    jobs = archive.df("SELECT j.line_no, job, submit FROM jobs j JOIN logs USING (log_id) "
                       "WHERE name = 'base' ORDER BY j.line_no")
    assert jobs.to_dict("records") == [
        {"line_no": 2, "job": 10, "submit": 70.0},
        {"line_no": 3, "job": 11, "submit": 77.0},
        {"line_no": 4, "job": 12, "submit": 84.0}]
    assert archive.df("SELECT count(*) AS n FROM jobs")["n"].tolist() == [3]
    header = archive.df("SELECT text FROM header_lines")["text"].tolist()
    assert header == ["; Computer: Replacement"]
    logs = archive.df("SELECT computer, file_name, jobs, machine_size FROM logs")
    assert logs[["computer", "file_name", "jobs"]].to_dict("records") == [
        {"computer": "Replacement", "file_name": str(other), "jobs": 3}]
    assert pd.isna(logs["machine_size"][0])

    # The original bytes are now a different file under that name.
    [r] = ingest(archive, [tmp_path / "base.swf"])
    assert r.status == "failed" and isinstance(r.error, LogExists)


def test_log_without_header(archive, tmp_path):
    path = tmp_path / "bare.swf"
    path.write_bytes(text_of([job(i) for i in range(1, 4)]))
    [r] = ingest(archive, [path])
    assert (r.status, r.jobs) == ("ingested", 3)
    row = archive.df("SELECT header_lines, machine_size, machine_size_source, swf_version "
                      "FROM logs WHERE name = 'bare'")
    assert row["header_lines"].tolist() == [0]
    assert row[["machine_size", "machine_size_source", "swf_version"]].isna().all(axis=None)
    assert archive.df("SELECT count(*) AS n FROM header_lines WHERE log_id = 2")["n"][0] == 0


# -- the command line ----------------------------------------------------------------


@pytest.mark.parametrize("case", ["non-numeric", "truncated-gzip", "extended"])
def test_cli_prints_one_line_and_fails(tmp_path, case):
    if case == "non-numeric":
        path, line = tmp_path / "bad.swf", 8
        path.write_bytes(text_of(with_bad(mutate(2, 3, "abc"), at=8)))
        args = []
    elif case == "truncated-gzip":
        path = tmp_path / "cut.swf.gz"
        raw = gzip.compress(big_text())[:-20]
        path.write_bytes(raw)
        line = inflate_until_error(raw)[0].count(b"\n") + 1
        args = []
    else:
        path, line = tmp_path / "ext.swf", 4
        path.write_bytes(text_of(HEADER + [job(i) + " 0 0" for i in (1, 2)]))
        args = ["--lenient"]
    db = tmp_path / "cli.duckdb"
    run = cli("ingest", *args, path, archive=db)
    assert run.one_error_line().startswith(f"wla: {path}:{line}: ")
    with open_archive(db) as a:
        assert a.log_names() == []
