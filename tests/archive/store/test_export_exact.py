"""Export gives back the file that was ingested, byte for byte, whatever it
holds: comments among the jobs, blank lines, CRLF, no final line break,
tabs, odd spellings, rejected lines (lenient), bytes that are not UTF-8.
A subset is the file less the job lines not chosen and the rejected lines;
a version keeps each job line as written until its recipe changes a value.
And every file wla writes (SWF, CSV, Parquet) reads back as what it holds.
"""
from __future__ import annotations

import datetime
import gzip
import hashlib
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from cli_run import wla
from real_logs import data_dir
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.publish import publish
from wla.archive.clean.recipe import parse_recipe
from wla.archive.store.export import EXPORTS, export, swf_bytes
from wla.archive.store.ingest import ingest
from wla.archive.swf.fields import COLUMNS

# '%5d %8d %6d %6d %4d %6.2f ...' as the real logs are written; each line is
# (kind, bytes): a job, a header line, a blank line or a line lenient rejects.
LINES = [
    ("header", b"; Version: 2.2"),
    ("header", b"; MaxProcs: 64"),
    ("job", b"    1        0     10    100    4  50.00    -1    4    200    -1  1  3  1 -1  1 -1 -1 -1"),
    ("job", b"    2       10     -5     20    0   5.25    -1    8    100    -1  1  4  1 -1  1 -1 -1 -1"),
    ("header", b";   a comment among the jobs"),
    ("blank", b""),
    ("reject", b"    3       20   oops     30    2     -1    -1    2     60    -1  0  3  1 -1  1 -1 -1 -1"),
    ("blank", b"  \t "),
    ("job", b"    4       30      0     -1   16   1234    -1   16   3600    -1  1  5  2 -1  1 -1 -1 -1"),
    ("job", b"5\t40\t1\t8\t1\t-1\t-1\t1\t10\t-1\t1\t3\t1\t-1\t1\t-1\t-1\t-1"),  # tabs
    ("job", b"    6       50      2      9    1    1e1    -1    1     10    -1  1  3  1 -1  1 -1 -1 -1  "),
    ("reject", b"    2       60      0      1    1     -1    -1    1     10    -1  1  3  1 -1  1 -1 -1 -1"),
    ("reject", b"    8       70 \xff\xfe    1    1     -1    -1    1     10    -1  1  3  1 -1  1 -1 -1 -1"),
    ("job", b"    7       70    -30     +7    2   0.50    -1    2     60    -1  0  3  1 -1  1 -1 -1 -1"),
]


def text_of(lines: list[tuple[str, bytes]], eol: bytes = b"\n", final: bool = True) -> bytes:
    return eol.join(line for _, line in lines) + (eol if final else b"")


@pytest.fixture
def archive(tmp_path):
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        yield a


def _ingest(a, path: Path, data: bytes, lenient: bool = False):
    path.write_bytes(data)
    [r] = ingest(a, [path], lenient=lenient)
    assert r.status == "ingested", r.message
    return r


@pytest.mark.parametrize("eol,final", [(b"\n", False), (b"\n", True), (b"\r\n", True), (b"\r\n", False)])
def test_every_line_comes_back_in_its_place(archive, tmp_path, eol, final):
    data = text_of(LINES, eol, final)
    r = _ingest(archive, tmp_path / "mixed.swf", data, lenient=True)
    assert (r.jobs, r.rejects) == (6, 3)
    assert swf_bytes(archive, "mixed") == data
    out = tmp_path / "mixed.swf.gz"
    assert export(archive, "mixed", out) == 6
    raw = out.read_bytes()
    assert gzip.decompress(raw) == data and raw[4:8] == b"\0\0\0\0"
    sha = archive.con.execute("SELECT sha256 FROM logs WHERE name = 'mixed'").fetchall()[0][0]
    assert hashlib.sha256(data).hexdigest() == sha
    # Kept as written: the blank and rejected lines, and the job lines the
    # layout does not render (tabs; an exponent and trailing spaces; a '+').
    kept = archive.con.execute("SELECT line_no FROM verbatim_lines ORDER BY line_no").fetchall()
    assert [ln for (ln,) in kept] == [6, 7, 8, 10, 11, 12, 13, 14]
    [again] = ingest(archive, [out])
    assert again.status == "unchanged"


def test_a_subset_is_the_file_less_the_jobs_not_chosen(archive, tmp_path):
    data = text_of(LINES, final=False)
    _ingest(archive, tmp_path / "mixed.swf", data, lenient=True)
    jobs = [line.split()[0] for kind, line in LINES if kind == "job"]
    for where, chosen in (("job >= 4", {b"4", b"5", b"6", b"7"}), ("job = 2", {b"2"}),
                          ("job > 0", set(jobs))):
        want = [(k, line) for k, line in LINES
                if k in ("header", "blank") or (k == "job" and line.split()[0] in chosen)]
        assert swf_bytes(archive, "mixed", where=where) == text_of(want, final=False), where
    assert swf_bytes(archive, "mixed", exclude="job >= 2") == text_of(
        [(k, line) for k, line in LINES if k in ("header", "blank") or line.startswith(b"    1 ")], final=False)


RECIPE = '''log = "mixed"
version = "v1"

[[step]]
rule = "normalize"

[[step]]
rule = "recover"
'''


def test_a_version_keeps_each_job_line_until_its_recipe_changes_it(archive, tmp_path):
    data = text_of(LINES)
    _ingest(archive, tmp_path / "mixed.swf", data, lenient=True)
    res = clean(archive, parse_recipe(RECIPE, "v1.toml"))
    assert res.jobs == 6
    jobs = [line for line in swf_bytes(archive, "mixed@v1").split(b"\n") if line and not line.startswith(b";")]
    assert jobs == [
        LINES[2][1],  # unchanged
        # normalize: wait -5 is clock skew, 0; procs 0 unknown; recover: procs from the request
        b"    2       10      0     20    8   5.25    -1    8    100    -1  1  4  1 -1  1 -1 -1 -1",
        # recover: the run time from the CPU time, spelled in the run time's column
        b"    4       30      0   1234   16   1234    -1   16   3600    -1  1  5  2 -1  1 -1 -1 -1",
        LINES[9][1], LINES[10][1],  # kept as written, unchanged
        # kept as written; the wait in the columns it took, the rest as written
        b"    7       70      0     +7    2   0.50    -1    2     60    -1  0  3  1 -1  1 -1 -1 -1",
    ]
    # Published twice: the same bytes, the sha256 recorded once.
    first = publish(archive, "mixed", "v1", tmp_path / "p1.swf.gz")
    second = publish(archive, "mixed", "v1", tmp_path / "p2.swf.gz")
    assert (tmp_path / "p1.swf.gz").read_bytes() == (tmp_path / "p2.swf.gz").read_bytes()
    assert first.first and not second.first and first.sha256 == second.sha256
    assert hashlib.sha256(gzip.decompress((tmp_path / "p1.swf.gz").read_bytes())).hexdigest() == first.sha256


def test_csv_holds_the_jobs_as_written(archive, tmp_path):
    data = text_of(LINES)
    _ingest(archive, tmp_path / "mixed.swf", data, lenient=True)
    out = tmp_path / "mixed.csv"
    assert export(archive, "mixed", out, where="job != 5") == 5
    text = out.read_text().splitlines()
    assert text[0] == "line_no," + ",".join(COLUMNS)
    # Unknown stays -1; a whole number is written whole, a fraction as it is.
    assert text[1] == "3,1,0,10,100,4,50,-1,4,200,-1,1,3,1,-1,1,-1,-1,-1"
    assert text[-1] == "14,7,70,-30,7,2,0.5,-1,2,60,-1,0,3,1,-1,1,-1,-1,-1"
    got = pd.read_csv(out)
    want = archive.df("SELECT line_no, * EXCLUDE (log_id, line_no) FROM jobs WHERE job != 5 ORDER BY line_no")
    pd.testing.assert_frame_equal(got, want, check_dtype=False)


def test_an_unknown_kind_of_file_is_refused_naming_the_known_ones(tmp_path):
    path = tmp_path / "a.duckdb"
    wla("ingest", data_dir() / "NASA-iPSC-1993-3-head228.swf.gz", archive=path)
    for name in ("out.txt", "out.gz", "out", "out.swf.bz2"):
        line = wla("export", "NASA-iPSC-1993-3-head228", "-o", tmp_path / name, archive=path).one_error_line()
        assert line == (f"wla: {name}: unknown kind of file; name it FILE.swf, FILE.swf.gz, "
                        "FILE.parquet, FILE.csv")
        assert not (tmp_path / name).exists()
    assert list(EXPORTS) == [".swf", ".swf.gz", ".parquet", ".csv"]
    line = wla("export", "--query", "SELECT 1", "-o", tmp_path / "q.swf", archive=path).one_error_line()
    assert line == "wla: q.swf: a query's rows are written as FILE.parquet or FILE.csv"
    for name in ("OUT.SWF", "out.Swf.GZ"):  # any case
        assert wla("export", "NASA-iPSC-1993-3-head228", "-o", tmp_path / name, archive=path).status == 0


def test_the_command_line_round_trip_says_unchanged(tmp_path):
    """ingest a real log, export it, ingest the export: the same log."""
    path, log = tmp_path / "a.duckdb", "SDSC-SP2-1998-4.2-cln"
    assert wla("ingest", data_dir() / f"{log}.swf.gz", archive=path).status == 0
    out = tmp_path / "out" / f"{log}.swf.gz"
    out.parent.mkdir()
    run = wla("export", log, "-o", out, archive=path)
    assert run.status == 0 and run.out == f"wrote {out}: 59,715 jobs\n"
    run = wla("ingest", out, archive=path)
    assert run.status == 0, run.err
    assert run.out.splitlines()[0] == f"unchanged {log}: already in the archive (same bytes); nothing to do"


def _cells(column: pd.Series) -> list:
    """A column's values as Python compares them: missing as None, numbers
    as floats (pandas reads an integer column with nulls as doubles), days
    as time stamps (DuckDB gives a DATE as one)."""
    return [None if v is None or (not isinstance(v, str) and pd.isna(v))
            else float(v) if isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_))
            else pd.Timestamp(v) if isinstance(v, datetime.date)
            else v for v in column.tolist()]


def test_every_parquet_file_reads_alike_in_pandas_and_duckdb(tmp_path):
    path, log = tmp_path / "a.duckdb", "NASA-iPSC-1993-3-head228"
    assert wla("ingest", data_dir() / f"{log}.swf.gz", archive=path).status == 0
    runs = {
        "export.parquet": ("export", log, "-o", tmp_path / "export.parquet"),
        "sql.parquet": ("sql", f"SELECT * FROM typed_jobs WHERE log = '{log}'", "--format", "parquet",
                        "-o", tmp_path / "sql.parquet"),
        "query.parquet": ("export", "--query", "SELECT * FROM log_summary", "-o", tmp_path / "query.parquet"),
        "simulate.parquet": ("simulate", log, "--save", tmp_path / "simulate.parquet"),
    }
    expected = {"export.parquet": 228, "sql.parquet": 228, "query.parquet": 1}
    for name, args in runs.items():
        run = wla(*args, archive=path)
        assert run.status == 0, (name, run.err)
        file = tmp_path / name
        by_pandas = pd.read_parquet(file)
        by_duckdb = duckdb.connect().execute("SELECT * FROM read_parquet(?)", [str(file)]).df()
        assert len(by_pandas) == expected.get(name, len(by_duckdb)) > 0, name
        assert by_pandas.columns.tolist() == by_duckdb.columns.tolist()
        for c in by_pandas.columns:
            a, b = by_pandas[c], by_duckdb[c]
            if isinstance(a.dtype, pd.DatetimeTZDtype) or isinstance(b.dtype, pd.DatetimeTZDtype):
                a, b = pd.to_datetime(a, utc=True), pd.to_datetime(b, utc=True)
            assert _cells(a) == _cells(b), (name, c)
    jobs = pd.read_parquet(tmp_path / "export.parquet")
    with open_archive(path) as a:
        want = a.df("SELECT line_no, * EXCLUDE (log_id, line_no) FROM jobs ORDER BY line_no")
    pd.testing.assert_frame_equal(jobs, want)


def test_past_the_limit_of_lines_kept_as_written_a_log_keeps_no_layout(archive, tmp_path, monkeypatch):
    """More lines to keep as written than MAX_VERBATIM_LINES (here 3): the
    log goes in without its layout and is exported re-rendered, each column
    as wide as its widest value, blank lines left out."""
    import wla.archive.swf.reader as reader

    monkeypatch.setattr(reader, "MAX_VERBATIM_LINES", 3)
    data = b"; Computer: test\n1 0 10 100 4 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1\n\n\n\n" \
           b"12 5 -1 7 16 -1 -1 16 60 -1 1 3 1 -1 1 -1 -1 -1\n"
    _ingest(archive, tmp_path / "blanks.swf", data)
    assert archive.con.execute("SELECT layout FROM logs").fetchall() == [(None,)]
    assert archive.con.execute("SELECT count(*) FROM verbatim_lines").fetchall() == [(0,)]
    assert swf_bytes(archive, "blanks") == (b"; Computer: test\n"
                                            b" 1 0 10 100  4 -1 -1  4 200 -1 1 3 1 -1 1 -1 -1 -1\n"
                                            b"12 5 -1   7 16 -1 -1 16  60 -1 1 3 1 -1 1 -1 -1 -1\n")
