"""Converting raw accounting records (CSV, Slurm sacct) into SWF.

Expected values are worked out by hand in the comments beside them; the round
trips on real logs compute theirs with pandas, independently of the converter.
"""
from __future__ import annotations

import gzip
from decimal import Decimal as D
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal
from real_logs import TESTS
from wla.archive import InputError, UsageError
from wla.archive import open as open_archive
from wla.archive.convert.records import convert, to_swf
from wla.archive.convert.recovery import RawJob, normalize_span, recover
from wla.archive.kernel.errors import LogExists
from wla.archive.store.catalog import log_info
from wla.archive.store.select import log_query
from wla.archive.swf.fields import COLUMNS

DATA = TESTS / "data" / "convert"

# Epoch seconds of instants used below, worked out by hand:
# 2020-01-01T00:00Z = 1577836800 (50 years, 12 of them leap: 18262 days * 86400).
JAN_2020 = 1577836800
# 2024-01-01T00:00Z = 1704067200; 2024-03-01 is 31 + 29 days later: +5184000.
MAR_2024 = 1704067200 + 60 * 86400  # 1709251200


def times(**kw) -> tuple:
    """ARR, WAIT, RUN of a raw record built from keyword values (seconds)."""
    values = {k: (D(str(v)) if k not in ("status",) else v) for k, v in kw.items()}
    t = recover(RawJob(line=1, **values))
    return tuple(None if v is None else float(v) for v in t)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def job_table(converted, columns: list[str]) -> list[tuple]:
    return [tuple(r) for r in converted.jobs[columns].itertuples(index=False)]


# -- the recovery table (cleaning.md section 2), row by row, branch by branch ------
# Values: arr 100, start 130, end 200 (or 500 where the row has no start),
# run 60, cpu 40: each branch is visible in which of them comes out.


@pytest.mark.parametrize("kw, expected", [
    # run there: RUN = run (60), not end - start (70); WAIT = 130 - 100
    (dict(arr=100, start=130, end=200, run=60, cpu=40), (100, 30, 60)),
    # no run: RUN = end - start = 70; cpu is not used by this row
    (dict(arr=100, start=130, end=200, cpu=40), (100, 30, 70)),
], ids=["run", "end-start"])
def test_row1_arr_start_end(kw, expected):
    assert times(**kw) == expected


@pytest.mark.parametrize("kw, expected", [
    (dict(arr=100, start=130, run=60, cpu=40), (100, 30, 60)),  # RUN = run
    (dict(arr=100, start=130, cpu=40), (100, 30, 40)),  # RUN = cpu
    (dict(arr=100, start=130), (100, 30, None)),  # RUN unknown
], ids=["run", "cpu", "unknown"])
def test_row2_arr_start(kw, expected):
    assert times(**kw) == expected


@pytest.mark.parametrize("kw, expected", [
    (dict(arr=100, run=60, cpu=40), (100, None, 60)),  # WAIT unknown, RUN = run
    (dict(arr=100, cpu=40), (100, None, 40)),  # RUN = cpu
    (dict(arr=100), (100, None, None)),  # RUN unknown
], ids=["run", "cpu", "unknown"])
def test_row3_arr_only(kw, expected):
    assert times(**kw) == expected


@pytest.mark.parametrize("kw, expected", [
    # run: WAIT = (500 - 60) - 100 = 340, RUN = 60
    (dict(arr=100, end=500, run=60, cpu=40, status=1), (100, 340, 60)),
    # cpu: WAIT = (500 - 40) - 100 = 360, RUN = 40
    (dict(arr=100, end=500, cpu=40, status=1), (100, 360, 40)),
    # succ: RUN = 500 - 100 = 400, WAIT = 0
    (dict(arr=100, end=500, status=1), (100, 0, 400)),
    # failed: WAIT = 500 - 100 = 400, RUN unknown
    (dict(arr=100, end=500, status=0), (100, 400, None)),
], ids=["run", "cpu", "succ", "not-succ"])
def test_row4_arr_end(kw, expected):
    assert times(**kw) == expected


@pytest.mark.parametrize("kw, expected", [
    # ARR = start; the wait was not observed (Table 5 sets none): unknown, not 0
    (dict(start=130, end=200, run=60, cpu=40), (130, None, 60)),  # RUN = run
    (dict(start=130, end=200, cpu=40), (130, None, 70)),  # RUN = 200 - 130
], ids=["run", "end-start"])
def test_row5_start_end(kw, expected):
    assert times(**kw) == expected


@pytest.mark.parametrize("kw, expected", [
    (dict(start=130, run=60, cpu=40), (130, None, 60)),
    (dict(start=130, cpu=40), (130, None, 40)),
    (dict(start=130), (130, None, None)),
], ids=["run", "cpu", "unknown"])
def test_row6_start_only(kw, expected):
    assert times(**kw) == expected


@pytest.mark.parametrize("kw, expected", [
    (dict(run=60, cpu=40), (None, None, 60)),
    (dict(cpu=40), (None, None, 40)),
    (dict(), (None, None, None)),
], ids=["run", "cpu", "unknown"])
def test_row7_nothing(kw, expected):
    assert times(**kw) == expected


@pytest.mark.parametrize("kw, expected", [
    (dict(end=500, run=60, cpu=40), (440, None, 60)),  # ARR = 500 - 60, the wait unknown
    (dict(end=500, cpu=40), (460, None, 40)),  # ARR = 500 - 40
    (dict(end=500), (500, None, None)),  # ARR = end; nothing says when it started
], ids=["run", "cpu", "end"])
def test_row8_end_only(kw, expected):
    assert times(**kw) == expected


def test_canceled_job_that_never_started():
    # Canceled, no start, zero run and CPU (as Slurm writes it): WAIT = 400 - 100
    # = 300 and RUN unknown; row 4 alone would have said RUN = 0.
    assert times(arr=100, end=400, run=0, cpu=0, status=5) == (100, 300, None)
    assert times(arr=100, end=400, status=5) == (100, 300, None)
    # The same record failed rather than canceled: row 4, RUN = run = 0.
    assert times(arr=100, end=400, run=0, cpu=0, status=0) == (100, 300, 0)
    # Canceled but it started: row 1, WAIT = 150 - 100, RUN = run = 0.
    assert times(arr=100, start=150, end=400, run=0, status=5) == (100, 50, 0)


# -- normalization (cleaning.md section 1) --------------------------------------------


@pytest.mark.parametrize("value, expected", [
    (-3901, None), (-3900, 0), (-1, 0), (0, 0), (5, 5), (None, None),
])
def test_normalize_span(value, expected):
    got = normalize_span(None if value is None else D(value))
    assert got == (None if expected is None else D(expected))


def test_normalization_in_conversion():
    c = to_swf(DATA / "normalize.csv", "csv")
    assert job_table(c, ["wait", "run", "procs", "req_procs", "mem", "req_mem", "req_time"]) == [
        # wait 9990 - 10000 = -10 -> 0; run 10100 - 9990 = 110; every zero -> -1
        (0, 110, -1, -1, -1, -1, -1),
        # wait 6000 - 10000 = -4000 -> -1; run 6100 - 6000 = 100
        (-1, 100, 1, 1, 1, 1, 1),
        # run 6099 - 10000 = -3901 -> -1
        (0, -1, 1, 1, 1, 1, 1),
        # run 6100 - 10000 = -3900 -> 0
        (0, 0, 1, 1, 1, 1, 1),
    ]
    # To 0: the wait of -10 and the run of -3900; to -1: -4000 and -3901.
    assert c.warnings == [
        "negative wait or run times: 2 set to 0 (clock skew), 2 below -3900 s set to -1",
        "5 zero processor, memory or requested-time values set to -1",
    ]


# -- anonymization and order ------------------------------------------------------------


def test_anonymization_in_order_of_arrival():
    c = to_swf(DATA / "anonymize.csv", "csv")
    # Sorted by arrival, ties in file order, no arrival last:
    # bob(100, procs 2), alice(100, 4), carol(200, 3), carol(300, 1), dave(-, 5).
    assert list(c.jobs.procs) == [2, 4, 3, 1, 5]
    assert list(c.jobs.job) == [1, 2, 3, 4, 5]
    assert list(c.jobs.submit) == [0, 0, 100, 200, -1]  # UnixStartTime 100
    assert list(c.jobs.user_id) == [1, 2, 3, 3, 4]  # bob alice carol carol dave
    assert list(c.jobs.group_id) == [1, 2, 1, 2, 3]  # y x y x z
    assert list(c.jobs.app_id) == [1, 2, 3, 3, 4]  # B C A A D
    assert list(c.jobs.queue_id) == [1, 2, 1, 2, 3]  # q1 q2 q1 q2 q3
    assert list(c.jobs.partition_id) == [1, 2, -1, 2, 3]  # p2 p1 - p1 p3
    assert c.facts["unix_start_time"] == 100
    for name in ("alice", "bob", "carol", "dave", "q1", "p2"):
        assert name not in c.text
    assert "1 jobs have no arrival time; they are last, with submit time -1" in c.warnings


# -- CSV: column names and value formats ------------------------------------------------


def test_csv_column_names_and_time_formats():
    c = to_swf(DATA / "formats.csv", "csv", tz="US/Pacific", max_procs=64, computer="Test box")
    # Arrivals (procs tags the row):
    #  1: 1577836800                    -> JAN_2020
    #  2: 2020-01-01T00:00:00 (PST, -8) -> JAN_2020 + 28800
    #  3: 2020-07-01 12:00:00 (PDT, -7) -> 2020-07-01T19:00Z = JAN_2020 + 182 days + 19 h
    #                                      = JAN_2020 + 15724800 + 68400 = JAN_2020 + 15793200
    #  4: ...T00:00:00Z, 5: ...T01:00:00+01:00 -> JAN_2020 (the offset wins over tz)
    #  6: 1577836800.25 -> JAN_2020 + 0.25;  7: 1577836800 -> JAN_2020
    # Stable order: 1, 4, 5, 7 (all JAN_2020), 6, 2, 3.
    assert job_table(c, ["procs", "submit", "run", "req_time", "req_procs", "status"]) == [
        (1, 0, 90, 3600, 4, 1),  # completed
        (4, 0, 2.5, -1, -1, 5),  # cancelled
        (5, 0, 1.5, -1, -1, 5),  # Canceled; 00:00:01.5
        (7, 0, -1, -1, -1, -1),  # every -1 read as missing
        (6, 0.25, 0, -1, -1, 0),  # status code 0
        (2, 28800, 5400, 86400, 4, 1),  # Success; 01:30:00; 1-00:00:00
        (3, 15793200, 86401, 7200, 8, 0),  # FAILED; 1-00:00:01; 02:00:00
    ]
    # No start or end: row 3 of the table, so every wait is unknown.
    assert list(c.jobs.wait) == [-1] * 7
    assert job_table(c, ["cpu", "mem", "req_mem", "queue_id"])[:2] == [(45, 500, 1000, 1), (-1, -1, -1, -1)]
    assert list(c.jobs.queue_id) == [1, -1, -1, -1, -1, 2, 1]  # a, -, -, -, -, b, a
    assert c.facts["unix_start_time"] == JAN_2020
    assert c.facts["time_zone_string"] == "US/Pacific"
    assert c.facts["max_procs"] == 64
    assert c.facts["computer"] == "Test box"
    lines = c.text.splitlines()
    assert "; StartTime: Tue Dec 31 16:00:00 PST 2019" in lines  # JAN_2020 in US/Pacific
    # The last event: job 3's arrival (no wait, so its end is unknown), 182 days
    # after a Wednesday, so a Wednesday too.
    assert "; EndTime: Wed Jul 01 12:00:00 PDT 2020" in lines
    assert "; Conversion: wla 0.1.0 from formats.csv (csv)" in lines
    # Fractions as written, whole numbers without '.0'.
    assert lines[-3].split()[1:4] == ["0.25", "-1", "0"]
    assert to_swf(DATA / "formats.csv", "csv", tz="US/Pacific", max_procs=64,
                  computer="Test box").text == c.text


def test_naive_times_are_utc_without_a_time_zone(tmp_path):
    path = write(tmp_path, "t.csv", "arrival,end\n2020-01-01T00:00:00,2020-01-01 00:10:00\n")
    c = to_swf(path, "csv")
    assert c.facts["unix_start_time"] == JAN_2020
    assert c.facts["time_zone_string"] is None
    # Row 4 without run, cpu or status: WAIT = 600 - 0, RUN unknown.
    assert job_table(c, ["submit", "wait", "run"]) == [(0, 600, -1)]


def test_unix_start_time_is_a_whole_second(tmp_path):
    # Earliest arrival 100.5: UnixStartTime 100, submit times 0.5 and 1.
    c = to_swf(write(tmp_path, "t.csv", "arrival\n101\n100.5\n"), "csv")
    assert c.facts["unix_start_time"] == 100
    assert list(c.jobs.submit) == [0.5, 1]


def test_csv_end_to_end_uses_the_table(tmp_path):
    # Row 5 (start, end, no arrival): ARR = 1000, RUN = 1300 - 1000.
    # Row 8 (end and run only): ARR = 2000 - 50 = 1950, RUN 50.
    # Neither wait was observed: -1 in the file, and the header counts them.
    path = write(tmp_path, "t.csv", "start,end,run\n1000,1300,\n,2000,50\n")
    c = to_swf(path, "csv")
    assert job_table(c, ["submit", "wait", "run"]) == [(0, -1, 300), (950, -1, 50)]
    assert "; Note: 2 jobs have no arrival time: it is taken from their start, and their wait is unknown (-1)" \
        in c.text.splitlines()
    # with an arrival the wait is observed, and no such note is written
    path = write(tmp_path, "u.csv", "arrival,start,end\n900,1000,1300\n")
    c = to_swf(path, "csv")
    assert job_table(c, ["submit", "wait", "run"]) == [(0, 100, 300)]
    assert not any("no arrival time" in line for line in c.text.splitlines())


# -- sacct ---------------------------------------------------------------------------------


SLURM_JOBS = [
    # submit relative to 2024-03-01T09:59Z; values worked out from slurm.txt:
    # 1003 (het): procs 4 + 12, TotalCPU (3600 + 7200) / 16 = 675, ReqMem of +0:
    #   2000 MB per node * 1 node / 4 = 512000 KB, MaxRSS max(500M, 700M) = 716800 KB
    (0, 60, 1800, 16, 675, 716800, 16, 3600, 512000, 0, 1, 1, 1),
    # 1000: TotalCPU 6 h / 8 = 2700, MaxRSS max(1234K, 4K, 3G = 3145728 K), 4000Mc = 4096000 KB
    (60, 300, 3600, 8, 2700, 3145728, 8, 7200, 4096000, 1, 2, 1, 1),
    # 1001: no TotalCPU on the job row: steps 90.5 + 120 = 210.5, / 2 = 105.25;
    #   Partition_Limit -> -1; 4 GB per node / 2 = 2097152 KB; MaxRSS max(0, 2M, 1G) = 1048576
    (120, 60, 600, 2, 105.25, 1048576, 2, -1, 2097152, 0, 3, 2, 2),
    # 1002_1: TIMEOUT -> 0, UNLIMITED -> -1, TotalCPU 00:30 = 30 s on 1, 1000M total / 1
    (180, 60, 60, 1, 30, 100, 1, -1, 1024000, 0, 2, 1, 1),
    # 1002_2: canceled in the queue: WAIT = 10:20 - 10:02 = 1080, RUN unknown; AllocCPUS 0 -> -1;
    #   CPU 0 over ReqCPUS 1 = 0
    (180, 1080, -1, -1, 0, -1, 1, 1800, 1024000, 5, 2, 1, 1),
    # 1004, first run (REQUEUED -> -1): TotalCPU 300 / 2 = 150; 1G total / 2 = 524288
    (240, 60, 600, 2, 150, -1, 2, 1200, 524288, -1, 3, 2, 2),
    # 1004, second run: TotalCPU 600 / 2; its step's MaxRSS 900M = 921600
    (960, 60, 600, 2, 300, 921600, 2, 1200, 524288, 1, 3, 2, 2),
]
SLURM_COLUMNS = ["submit", "wait", "run", "procs", "cpu", "mem", "req_procs", "req_time",
                 "req_mem", "status", "user_id", "group_id", "partition_id"]


def test_sacct_steps_folded_into_jobs():
    c = to_swf(DATA / "slurm.txt", "sacct")
    assert job_table(c, SLURM_COLUMNS) == SLURM_JOBS
    # 2024-03-01T09:59:00Z = MAR_2024 + 35940
    assert c.facts["unix_start_time"] == MAR_2024 + 35940
    assert c.warnings[0] == "2 unfinished jobs skipped (1 PENDING, 1 RUNNING)"
    assert "; Note: 2 unfinished jobs skipped (1 PENDING, 1 RUNNING)" in c.text.splitlines()


def test_sacct_local_times_and_parsable_trailing_bar(tmp_path):
    lines = (DATA / "slurm.txt").read_text().splitlines()
    path = write(tmp_path, "p.txt", "".join(line + "|\n" for line in lines))
    c = to_swf(path, "sacct", tz="Europe/Paris")
    assert job_table(c, SLURM_COLUMNS) == SLURM_JOBS
    # 09:59 in Paris in March (CET, UTC+1) is 08:59Z: one hour earlier.
    assert c.facts["unix_start_time"] == MAR_2024 + 35940 - 3600


SACCT_STATES = [
    ("COMPLETED", 1), ("FAILED", 0), ("NODE_FAIL", 0), ("OUT_OF_MEMORY", 0), ("BOOT_FAIL", 0),
    ("DEADLINE", 0), ("PREEMPTED", 0), ("TIMEOUT", 0), ("CANCELLED", 5), ("CANCELLED by 0", 5),
    ("REQUEUED", -1), ("REVOKED", -1), ("SPECIAL_EXIT", -1), ("", -1),
    ("PENDING", None), ("RUNNING", None), ("SUSPENDED", None), ("REQUEUE_HOLD", None),
]


def test_sacct_state_mapping(tmp_path):
    rows = [f"{i}|{s}|{i}" for i, (s, _) in enumerate(SACCT_STATES, start=1)]
    path = write(tmp_path, "s.txt", "JobID|State|AllocCPUS\n" + "\n".join(rows) + "\n")
    c = to_swf(path, "sacct")
    kept = [(i, code) for i, (_, code) in enumerate(SACCT_STATES, start=1) if code is not None]
    assert job_table(c, ["procs", "status"]) == kept  # AllocCPUS tags the row
    assert c.warnings[0] == ("4 unfinished jobs skipped "
                             "(1 PENDING, 1 REQUEUE_HOLD, 1 RUNNING, 1 SUSPENDED)")


def test_sacct_memory_units(tmp_path):
    rows = [
        "1|4|4000Mc|1234K",  # per core: 4000 * 1024 = 4096000 KB; 1234 KB
        "2|4|4G|2M",  # the job's total: 4 * 1048576 / 4 = 1048576 KB; 2 * 1024 = 2048
        "3|8|4000Mn|1G",  # per node, no node count: 4000 * 1024 / 8 = 512000; 1048576
        "4|2|512|2048",  # bare ReqMem is MB: 512 * 1024 / 2 = 262144; bare MaxRSS is bytes: 2
        "5|4|1.5Gc|0",  # 1.5 * 1048576 = 1572864; a zero MaxRSS is unknown
        "6||4000Mn|",  # no processor count: per node cannot be per processor
    ]
    path = write(tmp_path, "m.txt", "JobID|AllocCPUS|ReqMem|MaxRSS\n" + "\n".join(rows) + "\n")
    c = to_swf(path, "sacct")
    assert job_table(c, ["req_mem", "mem"]) == [
        (4096000, 1234), (1048576, 2048), (512000, 1048576), (262144, 2), (1572864, -1), (-1, -1)]
    assert "2 per-node ReqMem values read as one node each (no NNodes column)" in c.warnings
    # With a node count: 4000 MB * 2 nodes / 8 processors = 1024000 KB.
    path = write(tmp_path, "n.txt", "JobID|AllocCPUS|ReqMem|NNodes\n1|8|4000Mn|2\n")
    assert job_table(to_swf(path, "sacct"), ["req_mem"]) == [(1024000,)]


def test_sacct_durations_and_missing_times(tmp_path):
    text = ("JobID|Submit|Start|End|Elapsed|Timelimit|TotalCPU|AllocCPUS|State\n"
            # Elapsed 1-02:03:04 = 93784 s; Timelimit UNLIMITED; TotalCPU 12:34.567 on 1
            "1|1000|Unknown|None|1-02:03:04|UNLIMITED|12:34.567|1|COMPLETED\n"
            # Timelimit 2-00:00:00 = 172800; TotalCPU 01:00:00 over 4 = 900
            "2|2000|2100||00:10:00|2-00:00:00|01:00:00|4|COMPLETED\n")
    c = to_swf(write(tmp_path, "d.txt", text), "sacct")
    # Job 1: row 3 (no start, no end): RUN = Elapsed. Job 2: row 2: WAIT 100, RUN 600.
    assert job_table(c, ["submit", "wait", "run", "req_time", "cpu"]) == [
        (0, -1, 93784, -1, 754.567), (1000, 100, 600, 172800, 900)]


def test_sacct_job_without_its_own_row(tmp_path):
    text = "JobID|AllocCPUS|MaxRSS\n7.batch|2|10K\n7.0|2|30K\n"
    c = to_swf(write(tmp_path, "d.txt", text), "sacct")
    assert job_table(c, ["procs", "mem"]) == [(2, 30)]
    assert "1 jobs have only step rows; the first step stands for the job" in c.warnings


# -- bad input: every message names the file and the line ---------------------------------


def bad(tmp_path, text: str, fmt: str = "csv", name: str = "bad.csv") -> InputError:
    path = write(tmp_path, name, text)
    with pytest.raises(InputError) as e:
        to_swf(path, fmt)
    assert e.value.file == str(path)
    return e.value


@pytest.mark.parametrize("text, line, problem", [
    ("arrival,owner\n1,x\n", 1, "unknown column 'owner'; accepted: arrival, start, end, run, "
     "cpu, status, user, group, application, queue, partition, processors, requested "
     "processors, requested time, memory, requested memory"),
    ("user,User\nx,y\n", 1, "column 'user' appears twice"),
    ("arrival,run\n1,2\n3\n", 3, "1 cells, the header has 2"),
    ("arrival,run\n1,2\nyesterday,3\n", 3,
     "column arrival: not a time (epoch seconds or ISO 8601 date-time)"),
    ("arrival,run\n1,01:30\n", 2, "column run: not a duration (seconds or [D-]HH:MM:SS)"),
    ("arrival,run\n1,01:75:00\n", 2, "column run: not a duration: minutes and seconds must be below 60"),
    ("arrival,processors\n1,4.5\n", 2, "column processors: not a whole number"),
    ("arrival,memory\n1,4G\n", 2, "column memory: not a number"),
    ("arrival,status\n1,crashed\n", 2,
     "column status: not a status (an SWF code -1..5, or completed, success, failed, cancelled)"),
    ("arrival,status\n1,7\n", 2,
     "column status: not a status (an SWF code -1..5, or completed, success, failed, cancelled)"),
    ("", None, "file is empty"),
    ("arrival,run\n", None, "no jobs"),
])
def test_bad_csv(tmp_path, text, line, problem):
    e = bad(tmp_path, text)
    assert (e.line, e.problem) == (line, problem)
    assert str(e).startswith(f"{e.file}:{line}: " if line else f"{e.file}: ")


@pytest.mark.parametrize("text, line, problem", [
    ("State|User\nCOMPLETED|x\n", 1, "no JobID column: sacct output needs one to fold steps into jobs"),
    ("JobID|State\n12a|COMPLETED\n", 2, "JobID is not like 123, 123.batch, 123_4 or 123+0"),
    ("JobID|State\n1|COMPLETED\n2|COMPLETED|x\n", 3, "3 fields, the header has 2"),
    ("JobID|Submit\n1|2024-13-45T00:00:00\n", 2,
     "column Submit: not a time (epoch seconds or ISO 8601 date-time)"),
    ("JobID|Elapsed\n1|forever\n", 2, "column Elapsed: not a duration (seconds or [D-]HH:MM:SS)"),
    ("JobID|ReqMem\n1|4Q\n", 2, "column ReqMem: not a memory size (like 4000M, 4G, 1234K, 4000Mc, 4000Mn)"),
    ("JobID|MaxRSS\n1|4Kc\n", 2, "column MaxRSS: not a memory size (like 4000M, 4G, 1234K)"),
    ("JobID|AllocCPUS\n1|four\n", 2, "column AllocCPUS: not a whole number"),
    ("JobID|State\n|COMPLETED\n", 2, "empty JobID"),
    ("JobID|State|jobid\n1|COMPLETED|1\n", 1, "column 'jobid' appears twice"),
    ("\n\n", None, "empty file: no header row"),
    ("JobID|State\n1|RUNNING\n", None, "no jobs"),
])
def test_bad_sacct(tmp_path, text, line, problem):
    e = bad(tmp_path, text, "sacct", "bad.txt")
    assert (e.line, e.problem) == (line, problem)


def test_bad_files(tmp_path):
    missing = tmp_path / "none.csv"
    with pytest.raises(InputError) as e:
        to_swf(missing, "csv")
    assert (e.value.file, e.value.line, e.value.problem) == (str(missing), None, "no such file or folder")
    latin = tmp_path / "latin.csv"
    latin.write_bytes(b"arrival,user\n1,ok\n2,J\xf6rg\n")
    with pytest.raises(InputError) as e:
        to_swf(latin, "csv")
    assert (e.value.line, e.value.problem) == (3, "not UTF-8 text")
    fake = write(tmp_path, "fake.csv.gz", "arrival\n1\n")
    with pytest.raises(InputError) as e:
        to_swf(fake, "csv")
    assert e.value.problem.startswith("named .gz but is not gzip data")


@pytest.mark.parametrize("kw, message", [
    (dict(fmt="tsv"), "unknown format 'tsv'; one of: csv, sacct"),
    (dict(tz="Mars/Olympus"), "unknown time zone 'Mars/Olympus' (use a tz database name such as US/Pacific)"),
    (dict(max_procs=0), "max_procs must be a whole number from 1 to 2,147,483,647, not 0"),
])
def test_bad_arguments(kw, message):
    fmt = kw.pop("fmt", "csv")
    with pytest.raises(UsageError) as e:
        to_swf(DATA / "anonymize.csv", fmt, **kw)
    assert str(e.value) == message


def test_gzip_input(tmp_path):
    path = tmp_path / "anonymize.csv.gz"
    path.write_bytes(gzip.compress((DATA / "anonymize.csv").read_bytes()))
    plain = to_swf(DATA / "anonymize.csv", "csv")
    packed = to_swf(path, "csv")
    assert_frame_equal(packed.jobs, plain.jobs)
    assert "from anonymize.csv.gz (csv)" in packed.text


# -- into the archive ------------------------------------------------------------------


def test_convert_ingests_through_a_temporary_file(tmp_path):
    source = DATA / "slurm.txt"
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        res = convert(a, source, "sacct", tz="Europe/Paris", max_procs=32)
        assert (res.status, res.name, res.jobs, res.path) == ("ingested", "slurm", 7, str(source))
        row = log_info(a, "slurm")["log"]
        stored = a.df(log_query(a, "slurm"))
    # The log's file is the accounting file, not the temporary SWF.
    assert row["file_name"] == str(source)
    assert (row["unix_start_time"], row["tz"], row["machine_size"]) == (
        MAR_2024 + 35940 - 3600, "Europe/Paris", 32)
    expected = to_swf(source, "sacct", tz="Europe/Paris", max_procs=32).jobs
    assert_frame_equal(stored[list(COLUMNS)], expected)


def test_convert_to_a_named_file(tmp_path):
    out = tmp_path / "jobs.swf"
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        res = convert(a, DATA / "anonymize.csv", "csv", name="anon", out=out)
        assert (res.status, res.name, res.path) == ("ingested", "anon", str(out))
        assert log_info(a, "anon")["log"]["file_name"] == str(out)
    assert out.read_text() == to_swf(DATA / "anonymize.csv", "csv").text


def test_convert_again_and_replace(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_text("arrival,run\n100,5\n")
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        assert convert(a, path, "csv").status == "ingested"
        again = convert(a, path, "csv")  # the same SWF bytes
        assert (again.status, again.path) == ("unchanged", str(path))
        path.write_text("arrival,run\n100,5\n200,6\n")
        with pytest.raises(LogExists):
            convert(a, path, "csv")
        assert a.df("SELECT jobs FROM logs WHERE name = 'jobs'").jobs.tolist() == [1]
        res = convert(a, path, "csv", replace=True)
        assert (res.status, res.jobs) == ("replaced", 2)
        assert a.df("SELECT file_name FROM logs").file_name.tolist() == [str(path)]


# -- round trip on real logs -------------------------------------------------------------

IDS = {"user": "user_id", "group": "group_id", "application": "app_id", "queue": "queue_id",
       "partition": "partition_id"}
PLAIN = {"run": "run", "cpu": "cpu", "status": "status", "processors": "procs",
         "requested processors": "req_procs", "requested time": "req_time", "memory": "mem",
         "requested memory": "req_mem", **IDS}


def as_csv(jobs: pd.DataFrame, origin: int) -> pd.DataFrame:
    """A log's jobs as raw records: absolute arrival, start and end instants
    (empty when unknown), every other field as the log has it, -1 included."""
    arrival = origin + jobs.submit
    start = (arrival + jobs.wait).where(jobs.wait != -1)
    end = (start + jobs.run).where(jobs.run != -1)
    frame = pd.DataFrame({"arrival": arrival, "start": start, "end": end})
    for column, field in PLAIN.items():
        frame[column] = jobs[field]
    return frame


def normalized_span(s: pd.Series) -> pd.Series:
    known = s != -1
    return s.mask(known & (s < 0), 0.0).mask(known & (s < -3900), -1.0)


def serials(s: pd.Series) -> np.ndarray:
    codes = pd.factorize(s.where(s != -1))[0]  # in order of appearance, -1 for missing
    return np.where(codes == -1, -1, codes + 1).astype(np.int64)


def expected_swf(jobs: pd.DataFrame) -> pd.DataFrame:
    """What conversion must give, worked out from the log directly."""
    j = jobs.sort_values("submit", kind="stable").reset_index(drop=True)
    out = pd.DataFrame({"job": np.arange(1, len(j) + 1, dtype=np.int64)})
    out["submit"] = j.submit - j.submit.min()
    out["wait"] = normalized_span(j.wait)
    # Rows 1 and 3 give the run as written; rows 2 and 3 fall back on cpu.
    out["run"] = normalized_span(j.run.where(j.run != -1, j.cpu))
    for field in ("procs", "cpu", "mem", "req_procs", "req_time", "req_mem", "status"):
        out[field] = j[field]
    for field in ("procs", "mem", "req_procs", "req_time", "req_mem"):
        out[field] = out[field].mask(out[field] == 0, -1)
    for field in IDS.values():
        out[field] = serials(j[field])
    out["prev_job"] = np.int64(-1)
    out["think"] = -1.0
    return out[list(COLUMNS)]


@pytest.mark.parametrize("log", [
    pytest.param("SDSC-SP2-1998-4.2-cln", marks=pytest.mark.slow),  # waits and runs known; fractional CPU times
    "HPC2N-2002-2.2-head3170",  # uncleaned: runs missing where CPU time is known
    pytest.param("LLNL-Thunder-2007-1.1-cln", marks=pytest.mark.slow),  # no waits at all; submits out of order
])
def test_round_trip_real_log(real_archive, tmp_path, log):
    jobs = real_archive.df(log_query(real_archive, log))
    facts = log_info(real_archive, log)["log"]
    origin, tz, size = int(facts["unix_start_time"]), facts["tz"], int(facts["machine_size"])
    path = tmp_path / f"{log}.csv"
    as_csv(jobs, origin).to_csv(path, index=False)
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        res = convert(a, path, "csv", tz=tz, max_procs=size)
        got = a.df(log_query(a, log))[list(COLUMNS)]
        row = log_info(a, log)["log"]
    assert res.jobs == len(jobs)
    assert_frame_equal(got, expected_swf(jobs))
    assert row["unix_start_time"] == origin + jobs.submit.min()
    assert (row["tz"], row["machine_size"]) == (tz, size)
