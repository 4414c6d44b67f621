"""Read-only means read-only: every user query passes one gate (archive/guard.py)
and runs on a connection that can neither write the archive nor reach files.

Each attack goes through every door a query has (`wla sql`, `wla export
--query`, `wla simulate --query --save TABLE`, the Python API), and after each
the archive file is byte-for-byte what it was and no file has appeared."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import duckdb
import pandas as pd
import pytest
import wla.archive
from cli_run import wla as cli
from real_logs import data_dir
from wla.archive import QueryError
from wla.archive.store.export import write_query
from wla.archive.store.guard import parse_query
from wla.archive.store.ingest import ingest
from wla.sim import from_archive

LOG = "NASA-iPSC-1993-3-head228"

# (attack, what the refusal names). The first two are the attack run's own.
ATTACKS = [
    ("UPDATE logs SET name = 'pwned' WHERE log_id = 1; EXPORT DATABASE 'out/x'; "
     "SELECT * FROM typed_jobs WHERE log = 'pwned'", "cannot read the query|one statement"),
    ("DELETE FROM jobs WHERE log_id = 1; EXPORT DATABASE 'out/y'", "cannot read the query|one statement"),
    ("EXPORT DATABASE 'out/e1'", "cannot read the query"),
    ("EXPORT DATABASE 'out/e3' (FORMAT parquet)", "cannot read the query"),
    ("IMPORT DATABASE 'out/e1'", "cannot read the query|read-only"),
    ("COPY (SELECT * FROM logs) TO 'out/c.csv'; EXPORT DATABASE 'out/e2'", "cannot read the query|one statement"),
    ("COPY (SELECT * FROM logs) TO 'out/c.csv'", "COPY"),
    ("COPY jobs FROM 'out/in.csv'", "COPY"),
    ("SELECT * FROM read_text('/etc/passwd')", "file system operations are disabled"),
    ("SELECT * FROM glob('/etc/*')", "file system operations are disabled"),
    ("SELECT * FROM read_csv('/etc/passwd')", "file system operations are disabled"),
    ("SELECT * FROM read_json_auto('/etc/hostname')", "file system operations are disabled"),
    ("SELECT * FROM '/etc/passwd'", "file system operations are disabled|does not exist"),
    ("SELECT * FROM read_parquet('out/x.parquet')", "file system operations are disabled"),
    ("SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')", "file system operations are disabled"),
    ("SELECT * FROM sqlite_scan('out/x.db', 't')", "sqlite_scan|does not exist|not allowed"),
    ("SUMMARIZE SELECT * FROM read_text('/etc/passwd')", "file system operations are disabled"),
    ("DESCRIBE SELECT * FROM glob('/etc/*')", "file system operations are disabled"),
    ("LOAD httpfs", r"LOAD \.\.\. is not a reading statement"),
    ("INSTALL httpfs", "INSTALL"),
    ("FORCE INSTALL httpfs", "cannot read the query|not allowed"),
    ("ATTACH 'out/other.duckdb' AS o", "ATTACH"),
    ("ATTACH 'out/other.duckdb' AS o; CREATE TABLE o.t AS SELECT * FROM jobs", "one statement"),
    ("DETACH DATABASE o", "DETACH|not allowed"),
    ("USE memory", "USE"),
    ("CREATE TABLE t AS SELECT 1", "CREATE"),
    ("CREATE TEMP TABLE t AS SELECT 1", "CREATE"),
    ("CREATE VIEW v AS SELECT 1", "CREATE"),
    ("CREATE MACRO m(x) AS x", "CREATE|cannot read the query"),
    ("CREATE SECRET s (TYPE s3, KEY_ID 'k', SECRET 'v')", "CREATE|cannot read the query|not allowed"),
    ("DROP VIEW typed_jobs", "DROP"),
    ("ALTER TABLE logs RENAME TO l2", "ALTER"),
    ("INSERT INTO logs (log_id) VALUES (99)", "INSERT"),
    ("UPDATE logs SET name = 'pwned'", "UPDATE"),
    ("DELETE FROM jobs", "DELETE"),
    ("TRUNCATE jobs", "TRUNCATE|not allowed"),
    ("SELECT 1 INTO t", "INTO"),
    ("WITH x AS (DELETE FROM jobs RETURNING *) SELECT * FROM x", "DELETE"),
    ("SELECT * FROM (INSERT INTO logs (log_id) VALUES (99) RETURNING *)", "cannot read the query"),
    ("SET enable_external_access = true", "SET"),
    ("SET threads = 1", "SET"),
    ("RESET enable_external_access", r"RESET \.\.\. is not a reading"),
    ("SET VARIABLE x = 1", "SET"),
    ("PRAGMA enable_profiling", "PRAGMA"),
    ("CALL pragma_version()", r"CALL \.\.\. is not a reading"),
    ("CHECKPOINT", "not allowed"),
    ("VACUUM", r"VACUUM \.\.\. is not a reading"),
    ("BEGIN TRANSACTION", "not allowed"),
    ("EXPLAIN ANALYZE SELECT 1", r"EXPLAIN \.\.\. is not a reading"),
    ("SELECT * FROM query('SELECT 1')", r"query\(\) runs SQL"),
    ("SELECT json_execute_serialized_sql('x')", r"runs SQL"),
    ("SELECT 1; SELECT 2", "one statement"),
    ("(SELECT 1); DROP TABLE jobs", "one statement"),
    ("SELECT 1 -- ;\n; DROP TABLE jobs", "one statement"),
    ("SELECT 'a\\'; DELETE FROM jobs; --'", "one statement"),
    ("SELECT $$x$$; DROP TABLE jobs", "one statement|cannot read the query"),
    ("SELECT E'\\''; DELETE FROM jobs; --'", "one statement|cannot read the query"),
    ("", "empty"),
    ("   ", "empty"),
    ("-- only a comment", "no statement"),
    (";", "no statement"),
    ("SELECT " + "(" * 3000 + "1" + ")" * 3000, "nested too deeply"),
]

# Queries that only read, and that the gate lets through.
READING = [
    "SELECT count(*) AS n FROM jobs",
    "WITH t AS (SELECT log, count(*) AS n FROM typed_jobs GROUP BY log) SELECT * FROM t",
    "FROM logs SELECT name",
    "SELECT 1 AS x UNION ALL SELECT 2",
    "(SELECT 1 AS x)",
    "DESCRIBE typed_jobs",
    "SHOW TABLES",
    "SUMMARIZE SELECT submit FROM jobs",
    "SELECT * FROM (VALUES (1), (2)) AS v(x)",
    "SELECT 'it''s; not a second statement' AS s",
]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A folder holding an archive with one real log; attacks run from it."""
    root = tmp_path_factory.mktemp("guard")
    path = root / "a.duckdb"
    with wla.archive.open(path, write=True) as a:
        ingest(a, [data_dir() / f"{LOG}.swf.gz"])
    (root / "out").mkdir()
    return root, path


@pytest.fixture
def unchanged(site, monkeypatch):
    """Run from the site's folder; afterwards the archive and folder are as before."""
    root, path = site
    monkeypatch.chdir(root)
    before, files = _sha(path), _files(root)
    yield root, path
    assert _sha(path) == before, "the archive file changed"
    assert _files(root) == files, f"files appeared: {_files(root) - files}"
    assert not any(Path("/tmp").glob("wla-attack*"))


@pytest.mark.parametrize("attack,why", ATTACKS, ids=[f"attack{i}" for i in range(len(ATTACKS))])
def test_refused_from_python_and_wla_sql(unchanged, attack, why):
    _, path = unchanged
    with wla.archive.open(path) as a, pytest.raises(QueryError, match=why):
        a.sql(attack)
    for fmt in ("table", "csv"):
        line = cli("sql", "--format", fmt, "--", attack, archive=path).one_error_line()
        assert "internal error" not in line


@pytest.mark.parametrize("attack,why", ATTACKS[:12], ids=[f"attack{i}" for i in range(12)])
def test_other_doors_refuse(unchanged, attack, why):
    root, path = unchanged
    cli("simulate", "--query", attack, "--procs", "128", "--save", "t1", archive=path).one_error_line()
    cli("export", "--query", attack, "-o", "out/q.parquet", archive=path).one_error_line()
    cli("sql", attack, "--format", "parquet", "-o", "out/q.parquet", archive=path).one_error_line()
    with wla.archive.open(path) as a:
        with pytest.raises(QueryError):
            from_archive(a, query=attack, procs=128)
        with pytest.raises(QueryError):
            write_query(a, attack, "parquet", root / "out" / "q.parquet")


@pytest.mark.parametrize("query", READING)
def test_reading_queries_run(unchanged, query):
    _, path = unchanged
    with wla.archive.open(path) as a:
        frame = a.sql(query)
    assert len(frame) >= 1
    run = cli("sql", query, "--format", "csv", archive=path)
    assert run.status == 0, run.err


def test_answers_are_the_databases(site):
    """What passes the gate runs unchanged: the same rows DuckDB gives directly."""
    _, path = site
    query = "SELECT user_id, count(*) AS n, sum(run) AS r FROM jobs GROUP BY user_id ORDER BY user_id"
    with wla.archive.open(path) as a:
        got = a.sql(query)
    con = duckdb.connect(str(path), read_only=True)
    try:
        want = con.execute(query).df()
    finally:
        con.close()
    pd.testing.assert_frame_equal(got, want)


def test_the_connection_itself_cannot_write_or_reach_files(site):
    """Behind the gate, DuckDB's own guards hold: a statement run directly on
    a reader's connection can neither write, nor read files, nor unlock them."""
    _, path = site
    with wla.archive.open(path) as a:
        for statement, why in [("DELETE FROM jobs", "read-only"),
                               ("COPY logs TO '/tmp/wla-attack.csv'", "disabled"),
                               ("SELECT * FROM read_text('/etc/passwd')", "disabled"),
                               ("SET enable_external_access = true", "locked"),
                               ("LOAD httpfs", "disabled")]:
            with pytest.raises(duckdb.Error, match=why):
                a.con.execute(statement)
    assert not Path("/tmp/wla-attack.csv").exists()


def test_a_writer_runs_no_user_query(site, tmp_path):
    """The Python API refuses a user query on an archive opened for writing,
    so `simulate --save TABLE` must read its workload on a read-only one."""
    _, path = site
    copy = tmp_path / "w.duckdb"
    copy.write_bytes(path.read_bytes())
    with wla.archive.open(copy, write=True) as a:
        with pytest.raises(QueryError, match="read-only"):
            a.sql("SELECT 1")
        with pytest.raises(QueryError, match="read-only"):
            from_archive(a, query="SELECT * FROM typed_jobs", procs=128)


def test_simulate_query_save_table(site, tmp_path):
    """A reading --query with --save TABLE still works: read, then save."""
    _, path = site
    copy = tmp_path / "s.duckdb"
    copy.write_bytes(path.read_bytes())
    query = f"SELECT * FROM typed_jobs WHERE log = '{LOG}' ORDER BY line_no"
    run = cli("simulate", "--query", query, "--procs", "128", "--save", "t1", archive=copy)
    assert run.status == 0, run.err
    with wla.archive.open(copy) as a:
        saved = a.df("SELECT count(*) AS n FROM t1").n.item()
        simulated = from_archive(a, query=query, procs=128)
        assert a.log_names() == [LOG]
    assert saved == len(simulated)


def test_read_files_is_an_explicit_opt_in(site, tmp_path):
    _, path = site
    mine = tmp_path / "mine.csv"
    mine.write_text("user_id,group_name\n1,physics\n2,chemistry\n")
    query = (f"SELECT g.group_name, count(*) AS n FROM jobs JOIN read_csv('{mine}') AS g "
             "USING (user_id) GROUP BY ALL ORDER BY 1")
    cli("sql", query, archive=path).one_error_line()
    with wla.archive.open(path, read_files=True) as a:
        got = a.sql(query)
    with wla.archive.open(path) as a:
        users = a.df("SELECT user_id, count(*) AS n FROM jobs WHERE user_id IN (1, 2) GROUP BY ALL")
    want = {"physics": users.n[users.user_id == 1].sum(), "chemistry": users.n[users.user_id == 2].sum()}
    assert dict(zip(got.group_name, got.n)) == {k: v for k, v in want.items() if v}
    run = cli("sql", "--read-files", query, "--format", "csv", archive=path)
    assert run.status == 0, run.err
    # Reading files does not open writing ones.
    before = set(os.listdir(tmp_path))
    cli("sql", "--read-files", f"COPY logs TO '{tmp_path / 'x.csv'}'", archive=path).one_error_line()
    assert set(os.listdir(tmp_path)) == before


def test_the_gate_alone(site):
    """The gate reads the tree, not the words: a keyword in a string or a
    name is no statement, and a writing node deep in a query is found."""
    parse_query("SELECT 'DROP TABLE jobs; COPY x TO y' AS s")
    parse_query('SELECT 1 AS "delete"')
    with pytest.raises(QueryError, match="DELETE"):
        parse_query("SELECT * FROM (SELECT 1) WHERE 1 IN (WITH d AS (DELETE FROM jobs RETURNING 1) SELECT * FROM d)")
