"""The queries the diagnosis reads a log with name the fields they claim,
and a hand-made log is what `from_columns` says it is."""
from __future__ import annotations

import numpy as np
import pytest
import sqlglot
from wla.archive.analysis.diagnosis import warnings
from wla.archive.analysis.diagnosis.log_data import FIELDS, FIRST, JOBS, extremes, from_columns
from wla.archive.kernel.errors import WlaError


def _columns(sql: str) -> list[str]:
    return [c.alias_or_name for c in sqlglot.parse_one(sql, read="duckdb").expressions]


def test_the_written_out_queries_read_the_fields_they_name():
    assert _columns(JOBS) == FIRST and set(FIRST) <= {"line_no", *FIELDS}
    assert _columns(warnings.COLUMNS) == list(warnings.READ)


def test_a_log_stored_out_of_file_order_is_read_in_file_order(tmp_path):
    from wla.archive import open as open_archive
    from wla.archive.analysis.diagnosis.log_data import load
    from wla.archive.store.ingest import ingest

    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 8\n" + "".join(f"{j} {10 * j} 0 5 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                                 for j in range(1, 6)))
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [path])
        a.con.execute("CREATE TEMP TABLE k AS SELECT * FROM jobs ORDER BY line_no DESC")
        a.con.execute("DELETE FROM jobs")
        a.con.execute("INSERT INTO jobs SELECT * FROM k")
        assert [r[0] for r in a.con.execute("SELECT line_no FROM jobs").fetchall()] == [6, 5, 4, 3, 2]
        log = load(a, "t")
        assert "req_time" not in log.jobs  # read when first asked for, in file order too
        assert log.jobs["req_time"].tolist() == [20] * 5 and log.jobs["status"].tolist() == [1] * 5
    assert log.jobs["line_no"].tolist() == [2, 3, 4, 5, 6] and log.jobs["job"].tolist() == [1, 2, 3, 4, 5]
    assert log.jobs["submit"].tolist() == [10, 20, 30, 40, 50]
    with pytest.raises(WlaError, match="field think of the log was asked for after its archive was closed"):
        log.jobs["think"]
    with pytest.raises(KeyError):
        log.jobs["nonsense"]


def test_columns_are_read_on_demand_and_their_extremes_without_reading_them(real_archive):
    from wla.archive.analysis.diagnosis.log_data import load

    name = "SDSC-Par-1996-3.1-cln"
    frame = real_archive.df("SELECT * FROM jobs WHERE log_id = ? ORDER BY line_no", [real_archive.log_id(name)])
    log = load(real_archive, name)
    fields = ["mem", "req_time", "status", "submit"]
    got = extremes(log, fields)
    assert "req_time" not in log.jobs and "status" not in log.jobs
    assert got == {f: (float(frame[f].min()), float(frame[f].max())) for f in fields}
    for field in FIELDS:
        assert np.array_equal(log.jobs[field], frame[field].to_numpy()), field
    assert extremes(log, fields) == got  # from the columns now read


def test_a_hand_made_log_fills_what_it_is_not_given():
    log = from_columns("t", {"run": [5, 6, 7]}, facts={"machine_size": 8}, header=["; MaxProcs: 8"])
    assert len(log) == 3 and log.facts["machine_size"] == 8 and log.header == ["; MaxProcs: 8"]
    assert log.jobs["job"].tolist() == [1, 2, 3] and log.jobs["line_no"].tolist() == [1, 2, 3]
    assert (log.jobs["wait"] == -1).all() and log.jobs["run"].dtype == np.float64
    assert log.jobs["user_id"].dtype == np.int64


def test_a_log_read_as_a_frame_is_the_log_read_as_columns(real_archive):
    from wla.archive.analysis.diagnosis.log_data import load, of_frame
    from wla.archive.analysis.jobs import log_jobs

    name = "HPC2N-2002-2.2-head3170"
    jobs, facts = log_jobs(real_archive, name)
    read = load(real_archive, name)
    framed = of_frame(name, jobs, facts, read.header)
    assert framed.facts == read.facts and framed.header == read.header
    for field in ("line_no", *FIELDS):
        assert framed.jobs[field].dtype == read.jobs[field].dtype, field
        assert np.array_equal(framed.jobs[field], read.jobs[field]), field
