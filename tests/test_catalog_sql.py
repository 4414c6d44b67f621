"""Catalog, read-only SQL, formats, `set`, and the command line."""
from __future__ import annotations

import gzip
import json

import duckdb
import pandas as pd
import pytest
import wla.archive
from cli_run import wla as cli
from conftest import data_dir
from wla.archive import QueryError
from wla.archive.store.catalog import catalog, set_fact
from wla.archive.store.export import write_query
from wla.archive.store.ingest import ingest
from wla.archive.store.select import log_query

SP2 = "SDSC-SP2-1998-4.2-cln"


def test_catalog_row_against_pandas(real_archive):
    row = catalog(real_archive).set_index("name").loc[SP2]
    with gzip.open(data_dir() / f"{SP2}.swf.gz", "rt") as fh:
        df = pd.read_csv(fh, sep=r"\s+", comment=";", header=None)
    local = pd.to_datetime(893466664 + df[1], unit="s", utc=True).dt.tz_convert("US/Pacific")
    assert str(row.first_submit_date)[:10] == str(local.min().date())
    assert str(row.last_submit_date)[:10] == str(local.max().date())
    assert row.months == round((df[1].max() - df[1].min()) / (86400 * 365.25 / 12), 1)
    assert row.users == df[11][df[11] != -1].nunique()
    assert row.jobs == len(df) and row.machine_size == 128


def test_python_api_returns_dataframe(real_archive):
    with wla.archive.open(real_archive.path) as a:
        frame = a.sql("SELECT log, count(*) AS n FROM typed_jobs GROUP BY log ORDER BY n DESC")
    assert isinstance(frame, pd.DataFrame)
    assert frame.iloc[0].tolist() == ["RICC-2010-2", 447794]
    assert frame.n.sum() == 2205156


@pytest.mark.parametrize("statement", [
    "INSERT INTO logs (log_id) VALUES (99)",
    "DELETE FROM jobs",
    "UPDATE logs SET machine_size = 1",
    "CREATE TABLE x AS SELECT 1",
    "DROP VIEW typed_jobs",
    "COPY jobs TO '/tmp/wla-should-not-exist.csv'",
    "ATTACH '/tmp/wla-other.duckdb' AS o",
    "SELECT 1; DELETE FROM jobs",
])
def test_writing_statements_are_refused(real_archive, statement):
    before = real_archive.sql("SELECT count(*) AS n FROM jobs").n.item()
    with pytest.raises(QueryError, match="read-only|one statement"):
        real_archive.sql(statement)
    assert real_archive.sql("SELECT count(*) AS n FROM jobs").n.item() == before


def test_database_itself_is_read_only(real_archive):
    """Even a statement that slips past the check cannot write."""
    with pytest.raises(QueryError, match="read-only"):
        real_archive.df("INSERT INTO logs (log_id) VALUES (99)")


def test_query_formats(real_archive, tmp_path):
    q = "SELECT log, count(*) AS n FROM typed_jobs GROUP BY log ORDER BY log"
    want = real_archive.sql(q)
    write_query(real_archive, q, "parquet", tmp_path / "q.parquet")
    write_query(real_archive, q, "csv", tmp_path / "q.csv")
    write_query(real_archive, q, "json", tmp_path / "q.json")
    assert duckdb.execute("SELECT * FROM read_parquet(?)", [str(tmp_path / "q.parquet")]).df().equals(want)
    assert pd.read_csv(tmp_path / "q.csv").n.tolist() == want.n.tolist()
    assert [r["n"] for r in json.loads((tmp_path / "q.json").read_text())] == want.n.tolist()


def test_log_as_parquet(real_archive, tmp_path):
    write_query(real_archive, log_query(real_archive, SP2), "parquet", tmp_path / "sp2.parquet")
    back = duckdb.execute("SELECT * FROM read_parquet(?)", [str(tmp_path / "sp2.parquet")]).df()
    assert len(back) == 59715 and list(back.columns[:3]) == ["line_no", "job", "submit"]
    stored = real_archive.df(log_query(real_archive, SP2))
    pd.testing.assert_frame_equal(back, stored)


def test_set_machine_size_start_and_zone(tmp_path):
    with wla.archive.open(tmp_path / "s.duckdb", write=True) as a:
        ingest(a, [data_dir() / "lublin_256.swf.gz"])
        assert a.df("SELECT count(submit_local) n FROM typed_jobs").n.item() == 0
        set_fact(a, "lublin_256", "max-procs", "512")
        set_fact(a, "lublin_256", "unix-start-time", "1000000000")
        set_fact(a, "lublin_256", "time-zone-string", "Asia/Tokyo")
        row = a.df("SELECT machine_size, machine_size_source, unix_start_time, tz FROM logs").iloc[0]
        assert row.tolist() == [512, "set", 1000000000, "Asia/Tokyo"]
        first = a.df("SELECT submit, submit_local FROM typed_jobs ORDER BY line_no LIMIT 1").iloc[0]
        want = pd.Timestamp(1000000000 + first.submit, unit="s", tz="UTC").tz_convert("Asia/Tokyo")
        assert first.submit_local == want.tz_localize(None)
        with pytest.raises(wla.archive.UsageError):
            set_fact(a, "lublin_256", "time-zone-string", "Mars/Olympus")
        with pytest.raises(wla.archive.UsageError):
            set_fact(a, "lublin_256", "max-procs", "many")


def _wla(*args, archive):
    return cli(*args, archive=archive)


def test_command_line(tmp_path):
    arc = tmp_path / "c.duckdb"
    f = data_dir() / "NASA-iPSC-1993-3-head228.swf.gz"
    r = _wla("ingest", str(f), archive=arc)
    assert r.status == 0 and "228 jobs" in r.out
    r = _wla("ingest", str(f), archive=arc)
    assert r.status == 0 and "unchanged" in r.out
    r = _wla("ls", archive=arc)
    assert "NASA-iPSC-1993-3-head228" in r.out and "1993-10-01" in r.out
    r = _wla("info", "NASA-iPSC-1993-3-head228", archive=arc)
    assert "; TimeZoneString: US/Pacific" in r.out and "machine size: 128 (MaxProcs)" in r.out
    r = _wla("quality", "--json", archive=arc)
    assert json.loads(r.out)[0]["jobs"] == 228
    r = _wla("sql", "SELECT count(*) AS n FROM typed_jobs", "--format", "csv", archive=arc)
    assert r.out.split() == ["n", "228"]
    r = _wla("sql", "DELETE FROM jobs", archive=arc)
    assert r.status == 1 and r.err.startswith("wla: ") and r.err.count("\n") == 1
    r = _wla("export", "NASA-iPSC-1993-3-head228", "-o", str(tmp_path / "n.swf"), archive=arc)
    assert r.status == 0 and (tmp_path / "n.swf").read_text().count("\n") == 228 + 28
    r = _wla("info", "nope", archive=arc)
    assert r.status == 1 and "no log named 'nope'" in r.err
    r = _wla("ls", archive=tmp_path / "missing.duckdb")
    assert r.status == 1 and "no archive at" in r.err
