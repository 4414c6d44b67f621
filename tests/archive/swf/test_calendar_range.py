"""Accepted means usable: every time a stored job has (submit, start, end,
from the log's UnixStartTime) falls in the calendar range every command can
date, 0001-01-09 to 9999-12-31 UTC. Ingest, `wla set` and `wla convert`
refuse the rest in one line; an archive holding jobs at both ends of the
range, huge non-time values and negative times beside a real log answers
every report command."""
from __future__ import annotations

import gzip
import shutil
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
import pytest
from cli_run import wla
from real_logs import data_dir
from wla.archive import InputError, UsageError
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.convert.records import to_swf
from wla.archive.kernel.errors import RecipeError
from wla.archive.store.catalog import set_fact
from wla.archive.store.ingest import ingest
from wla.archive.swf.fields import COLUMNS
from wla.archive.swf.reader import parse_bytes

UTC = timezone.utc
# The range, from Python's calendar rather than from wla's constants.
FIRST = int(datetime(1, 1, 9, tzinfo=UTC).timestamp())  # -62134905600
LAST = int(datetime(9999, 12, 31, tzinfo=UTC).timestamp())  # 253402214400
RANGE = "outside the dates the archive can hold (0001-01-09 to 9999-12-31 UTC)"
BIG = 2**63 - 1
D53 = 2**53


def job(n: int, submit: float, wait: float = 0, run: float = 10, procs: int = 4, **more) -> str:
    """A job line: the 18 fields, -1 where not given."""
    f = dict(job=n, submit=submit, wait=wait, run=run, procs=procs, cpu=-1, mem=-1, req_procs=procs,
             req_time=-1, req_mem=-1, status=1, user_id=1, group_id=1, app_id=-1, queue_id=1,
             partition_id=-1, prev_job=-1, think=-1)
    f.update(more)
    return " ".join(str(f[c]) for c in COLUMNS)


def text(*lines: str) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def refused(data: bytes, lenient: bool = False) -> InputError:
    with pytest.raises(InputError) as info:
        parse_bytes("t.swf", data, len(data), lenient=lenient)
    return info.value


# -- ingest: the bounds, each instant, the header's start ------------------------------

CASES = [
    # (job line fields, the start, what is refused: None if accepted)
    (dict(submit=FIRST, wait=0, run=0), None, None),
    (dict(submit=FIRST - 1), None, "submit time falls at 0001-01-08 23:59:59 UTC"),
    (dict(submit=LAST, wait=0, run=0), None, None),
    (dict(submit=LAST + 0.5, wait=-1, run=-1), None, "submit time falls at 9999-12-31 00:00:00.5 UTC"),
    (dict(submit=LAST, wait=1, run=-1), None, "start time (submit + wait) falls at 9999-12-31 00:00:01 UTC"),
    (dict(submit=LAST - 10, wait=-1, run=11), None, "end time (submit + run) falls at 9999-12-31 00:00:01 UTC"),
    (dict(submit=LAST - 10, wait=5, run=6), None, "end time (submit + wait + run) falls at 9999-12-31 00:00:01 UTC"),
    # A negative run may end a job before the range starts.
    (dict(submit=FIRST, wait=0, run=-2), None, "end time (submit + wait + run) falls at 0001-01-08 23:59:58 UTC"),
    # A large negative wait: cleaning may set it unknown, and the end is then submit + run.
    (dict(submit=LAST - 100, wait=-50, run=120), None,
     "end time without the wait (submit + run) falls at 9999-12-31 00:00:20 UTC"),
    # 10^15 s: 10^15 / 31556952 s a year = 31,688,738.5 years after 1970
    (dict(submit=10**15), None, "submit time falls in the year 31,690,708"),
    # From a start: 10^9 + (LAST - 10^9) is LAST.
    (dict(submit=LAST - 10**9, wait=0, run=0), 10**9, None),
    (dict(submit=LAST - 10**9 + 1, wait=0, run=0), 10**9, "submit time falls at 9999-12-31 00:00:01 UTC"),
    (dict(submit=0, wait=0, run=0), FIRST, None),
    (dict(submit=-1, wait=-1, run=10), FIRST, None),  # no submit time: the job has no instant
    (dict(submit=-1, wait=10**15, run=10**15), None, None),
    (dict(submit=5, wait=-5, run=-3), None, None),  # negative times are legal inconsistencies
]


@pytest.mark.parametrize("fields, start, says", CASES)
def test_ingest_takes_every_instant_inside_and_refuses_one_outside(fields, start, says):
    header = [f"; UnixStartTime: {start}"] if start is not None else []
    line = job(2, **fields)
    data = text(*header, job(1, 100), line, job(3, 200))
    at = len(header) + 2
    if says is None:
        p = parse_bytes("t.swf", data, len(data))
        assert p.jobs == 3 and p.columns["submit"][1] == fields["submit"]
        return
    err = refused(data)
    assert str(err) == f"t.swf:{at}: {says}, {RANGE}: {line!r}"
    p = parse_bytes("t.swf", data, len(data), lenient=True)
    assert p.columns["line_no"].tolist() == [at - 1, at + 1]
    assert [(r.line_no, r.reason, r.text) for r in p.rejects] == [(at, f"{says}, {RANGE}", line)]


def test_the_start_near_2_to_the_63_is_refused():
    head = f"; UnixStartTime: {2**63 - 1000}"
    # (2^63 - 1000) / 31556952 = 292,277,024,626.9 years after 1970
    err = refused(text("; Version: 2.2", head, job(1, 0)))
    assert str(err) == f"t.swf:2: UnixStartTime falls in the year 292,277,026,596, {RANGE}: {head!r}"


def test_a_start_outside_is_a_reject_when_lenient(tmp_path):
    """Lenient sets the line apart and reads the next UnixStartTime line, as
    a header's facts take the first line of a label that holds a number."""
    bad, good = "; UnixStartTime: 99999999999999999999", "; UnixStartTime: 1000"
    path = tmp_path / "starts.swf"
    path.write_bytes(text("; Computer: x", bad, good, job(1, LAST - 1000, 0, 0), job(2, LAST - 999, 0, 0)))
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        [r] = ingest(a, [path])
        assert r.status == "failed" and r.message.startswith(f"{path}:2: UnixStartTime falls in the year ")
        [r] = ingest(a, [path], lenient=True)
        assert (r.status, r.jobs, r.rejects) == ("ingested", 1, 2)
        got = a.df("SELECT line_no, text FROM rejects ORDER BY line_no")
        assert got.to_dict("records") == [{"line_no": 2, "text": bad},
                                          {"line_no": 5, "text": job(2, LAST - 999, 0, 0)}]
        assert a.df("SELECT text FROM header_lines ORDER BY seq")["text"].tolist() == ["; Computer: x", good]
        assert a.df("SELECT unix_start_time FROM logs").unix_start_time.tolist() == [1000]


def test_a_start_outside_with_no_other_leaves_the_log_without_one(tmp_path):
    path = tmp_path / "nostart.swf"
    path.write_bytes(text(f"; UnixStartTime: {LAST + 1}", job(1, 0), job(2, 10)))
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        [r] = ingest(a, [path], lenient=True)
        assert (r.status, r.jobs, r.rejects) == ("ingested", 2, 1)
        assert a.df("SELECT unix_start_time FROM logs").unix_start_time.isna().all()


# -- wla set and wla convert -------------------------------------------------------------


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "small.swf"
    path.write_bytes(text("; UnixStartTime: 0", job(1, 0), job(7, 10**9, 100, 50), job(3, 5)))
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [path])
        yield a


def test_set_start_refuses_one_that_moves_a_job_outside(small):
    # job 7 ends at 10^9 + 150 s after the start
    top = LAST - 10**9 - 150
    assert set_fact(small, "small", "unix-start-time", str(top)) == f"small: unix-start-time set to {top}"
    with pytest.raises(UsageError) as info:
        set_fact(small, "small", "unix-start-time", str(top + 1))
    assert str(info.value) == (f"unix-start-time {top + 1} would put job 7 (line 3) outside the calendar "
                               f"range: its end time (submit + wait + run) falls at 9999-12-31 00:00:01 UTC, "
                               f"{RANGE}")
    # from LAST, job 1 ends 10 s after it, job 3 5 + 10 s, job 7 10^9 + 150 s
    with pytest.raises(UsageError) as info:
        set_fact(small, "small", "unix-start-time", str(LAST))
    assert str(info.value) == (f"unix-start-time {LAST} would put job 1 (line 2) (and 2 more jobs) outside the "
                               "calendar range: its end time (submit + wait + run) falls at 9999-12-31 00:00:10 UTC, "
                               f"{RANGE}")
    with pytest.raises(UsageError, match=r"^unix-start-time -62134905601: the start falls at 0001-01-08 23:59:59"):
        set_fact(small, "small", "unix-start-time", str(FIRST - 1))
    assert small.df("SELECT unix_start_time FROM logs").unix_start_time.tolist() == [top]


def test_cli_set_start_outside_is_one_line(small):
    small.close()
    run = wla("set", "small", "unix-start-time", str(LAST), archive=small.path)
    assert run.one_error_line().startswith(f"wla: unix-start-time {LAST} would put job 1 (line 2)")
    run = wla("set", "small", "unix-start-time", str(10**15), archive=small.path)
    assert run.one_error_line() == f"wla: unix-start-time {10**15}: the start falls in the year 31,690,708, {RANGE}"


def test_convert_refuses_a_record_outside_at_its_line(tmp_path):
    path = tmp_path / "records.csv"
    path.write_text(f"arrival,start,end,processors\n100,110,200,4\n{LAST - 5},{LAST - 5},{LAST + 5},2\n")
    with pytest.raises(InputError) as info:
        to_swf(path, "csv")
    assert str(info.value) == (f"{path}:3: end time (arrival + wait + run) falls at 9999-12-31 00:00:05 UTC, "
                               f"{RANGE}")
    path.write_text(f"arrival,start,end,processors\n{FIRST},{FIRST},{FIRST + 5},4\n{LAST - 5},{LAST - 5},{LAST},2\n")
    log = to_swf(path, "csv")
    assert log.jobs["submit"].tolist() == [0, LAST - 5 - FIRST]
    assert f"; UnixStartTime: {FIRST}" in log.text and "EndTime: Fri Dec 31 00:00:00 UTC 9999" in log.text


def test_a_version_whose_rule_moves_a_job_outside_is_not_built(tmp_path):
    """recover takes a missing run time from the CPU time, which has no bound
    of its own: a job ending after 9999 would break every report on the
    version, so the build stops, naming recipe, step, job and line."""
    start = LAST - 1000
    data = text(f"; UnixStartTime: {start}", job(1, 0, 0, 10), job(2, 10, 0, -1, cpu=5000))
    (tmp_path / "t.swf").write_bytes(data)
    recipe = tmp_path / "r.toml"
    recipe.write_text('log = "t"\nversion = "v1"\n[[step]]\nrule = "recover"\n')
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [tmp_path / "t.swf"])
        with pytest.raises(RecipeError) as info:
            clean(a, recipe)
        assert a.log_names() == ["t"]
    end = datetime.fromtimestamp(start + 10 + 5000, UTC)
    assert str(info.value) == (f"{recipe}: step 1 (recover): job 2 (line 3): end time (submit + wait + run) "
                               f"falls at {end:%Y-%m-%d %H:%M:%S} UTC, {RANGE}")
    recipe.write_text('log = "t"\nversion = "v1"\n[[step]]\nrule = "recover"\nrun_from_cpu = false\n')
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        assert clean(a, recipe).jobs == 2


# -- every report command over the extremes, beside a real log ------------------------------

U = 10**9
EDGES = {
    # Far east (UTC+14): local dates run ahead of UTC ones.
    "edge-east": [f"; UnixStartTime: {U}", "; TimeZoneString: Pacific/Kiritimati", "; MaxProcs: 64",
                  job(1, FIRST - U, 0, 10),
                  job(2, 0, 5, 100, procs=BIG, cpu=D53, mem=D53, req_procs=BIG, req_time=D53, req_mem=D53,
                      think=D53),
                  job(3, 10, -5, -3),
                  job(4, 20, -1, 50, user_id=BIG, group_id=BIG, app_id=BIG, queue_id=BIG, partition_id=BIG,
                      prev_job=BIG),
                  job(BIG, LAST - U - 100, 40, 60)],
    # No UnixStartTime, no TimeZoneString: no calendar dates at all.
    "edge-bare": [job(1, FIRST, 0, 0), job(2, 5, 5, 5, procs=BIG), job(3, LAST - 1, 0.5, 0.5), job(4, -1, -1, -1)],
    # Far west (UTC-11), starting at the first instant; two jobs overlap beyond the machine.
    "edge-west": [f"; UnixStartTime: {FIRST}", "; TimeZoneString: Pacific/Pago_Pago", "; MaxProcs: 8",
                  job(1, 0, 0, 100, procs=6), job(2, LAST - FIRST - 10, 5, 5, procs=8), job(3, 50, 0, 100, procs=6)],
}
REAL = "NASA-iPSC-1993-3-head228"


@pytest.fixture(scope="module")
def edges(tmp_path_factory):
    root = tmp_path_factory.mktemp("edges")
    paths = []
    for name, lines in EDGES.items():
        (root / f"{name}.swf").write_bytes(text(*lines))
        paths.append(root / f"{name}.swf")
    paths.append(data_dir() / f"{REAL}.swf.gz")
    with open_archive(root / "a.duckdb", write=True) as a:
        results = ingest(a, paths)
    assert [r.status for r in results] == ["ingested"] * 4, [r.message for r in results]
    return root


def ok(run) -> str:
    assert run.status == 0 and run.err == "", run
    return run.out


def test_catalog_commands(edges):
    db = edges / "a.duckdb"
    ls = ok(wla("ls", archive=db))
    # first and last submit dates, local: FIRST is 0001-01-09 00:00 UTC, 0001-01-09 14:00 at UTC+14
    # (the start of the east log is 10^9 s after the epoch: 2001-09-09 01:46:40 UTC)
    rows = {line.split()[0]: line.split()[1:3] for line in ls.splitlines()[1:]}

    def local(seconds: int, zone: str) -> str:  # Python's tz database, not DuckDB's
        return datetime.fromtimestamp(seconds, ZoneInfo(zone)).date().isoformat()

    assert rows == {REAL: ["1993-10-01", "1993-10-01"], "edge-bare": ["-", "-"],
                    "edge-east": [local(FIRST, "Pacific/Kiritimati"), local(LAST - 100, "Pacific/Kiritimati")],
                    "edge-west": [local(FIRST, "Pacific/Pago_Pago"), local(LAST - 10, "Pacific/Pago_Pago")]}
    quality = ok(wla("quality", archive=db))
    assert all(name in quality for name in EDGES)
    for name in [*EDGES, REAL]:
        assert ok(wla("info", name, archive=db)).startswith(f"{name}  (from ")


def test_sql_over_typed_jobs_and_log_summary(edges, tmp_path):
    db = edges / "a.duckdb"
    ok(wla("sql", "SELECT * FROM typed_jobs", archive=db))
    ok(wla("sql", "SELECT * FROM log_summary", archive=db))
    out = tmp_path / "typed.parquet"
    ok(wla("sql", "-f", "parquet", "-o", out, "SELECT * FROM typed_jobs ORDER BY log, line_no", archive=db))
    typed = pd.read_parquet(out)
    east = typed[typed.log == "edge-east"]
    want = [datetime(1, 1, 9, tzinfo=UTC), datetime.fromtimestamp(U, UTC), datetime.fromtimestamp(U + 10, UTC),
            datetime.fromtimestamp(U + 20, UTC), datetime.fromtimestamp(LAST - 100, UTC)]
    assert [t.to_pydatetime() for t in east.submit_utc] == want
    assert east.procs.tolist()[1] == BIG and east.job.tolist()[-1] == BIG
    assert typed[typed.log == "edge-bare"].submit_utc.isna().all()


@pytest.mark.parametrize("name", [*EDGES, REAL])
def test_analysis_commands(edges, name):
    db = edges / "a.duckdb"
    size = [] if name != "edge-bare" else ["--capacity", "64"]
    ok(wla("flurries", name, archive=db))
    ok(wla("load", name, *size, archive=db))
    ok(wla("capacity", name, "--no-solve", *size, archive=db))
    run = wla("simulate", name, "--procs", "64", archive=db)
    # the real log's arrivals are start times: simulate says so in one warning line, and nothing else
    warned = [f"wla: warning: {REAL}: arrival times are start times (header): its arrivals, waits and slowdowns "
              "cannot be studied"] if name == REAL else []
    assert run.status == 0 and run.err.splitlines() == warned, run


def test_capacity_solves_on_a_tiny_log_at_the_edge(edges):
    out = ok(wla("capacity", "edge-west", "--threshold", "1", "--node-limit", "100", archive=edges / "a.duckdb"))
    # jobs 1 and 3 overlap on [50, 100) with 12 processors of 8: one goes
    assert "1 exception in 1 component" in out and "capacity: deleting 1 job (L" in out, out


@pytest.mark.parametrize("name", [*EDGES, REAL])
def test_export_keeps_every_value(edges, tmp_path, name):
    db = edges / "a.duckdb"
    swf, parquet = tmp_path / f"{name}.swf.gz", tmp_path / f"{name}.parquet"
    ok(wla("export", name, "-o", swf, archive=db))
    ok(wla("export", name, "-o", parquet, archive=db))
    copy = tmp_path / "copy.duckdb"
    shutil.copy(db, copy)
    with open_archive(copy, write=True) as a:
        [r] = ingest(a, [swf], name="again")
        assert r.status in ("ingested", "unchanged"), r.message
        again = "again" if r.status == "ingested" else name
        cols = ", ".join(COLUMNS)
        first = a.df(f"SELECT {cols} FROM jobs JOIN logs USING (log_id) WHERE name = ? ORDER BY line_no", [name])
        second = a.df(f"SELECT {cols} FROM jobs JOIN logs USING (log_id) WHERE name = ? ORDER BY line_no", [again])
    pd.testing.assert_frame_equal(second, first, check_exact=True)
    frame = pd.read_parquet(parquet)
    for c in COLUMNS:
        assert np.array_equal(frame[c].to_numpy(), first[c].to_numpy()), c
    assert gzip.decompress(swf.read_bytes()).count(b"\n") >= len(first)
