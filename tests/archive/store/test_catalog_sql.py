"""Catalog, read-only SQL, formats, `set`, and the command line."""
from __future__ import annotations

import gzip
import hashlib
import json
import shutil

import duckdb
import pandas as pd
import pytest
import wla.archive
from cli_run import wla as cli
from real_logs import ROOT, data_dir, pandas_log
from wla.archive import QueryError
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe
from wla.archive.convert import convert
from wla.archive.store.catalog import catalog, set_fact
from wla.archive.store.export import write_query
from wla.archive.store.ingest import ingest
from wla.archive.store.migrate import SCHEMA_VERSION
from wla.archive.store.select import log_query
from wla.archive.store.views import read_through_current_views

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


# -- what each log is: original, version, converted -------------------------------------

V1 = ROOT / "schema" / "recipes" / f"{SP2}-v1.toml"
# A version of a version: its original is still SP2, what it was built from is v1.
V1_STATUS = f"""log = "{SP2}@v1"
version = "v1-status"

[[step]]
rule = "status"
"""
SLURM = ROOT / "tests" / "data" / "convert" / "slurm.txt"


@pytest.fixture(scope="module")
def kinds_archive(real_archive, tmp_path_factory):
    """Every real log, SP2's versions v1 and v1-status (built from v1), and a
    log converted from Slurm records; read-only."""
    path = tmp_path_factory.mktemp("kinds") / "kinds.duckdb"
    shutil.copyfile(real_archive.path, path)
    with wla.archive.open(path, write=True) as a:
        clean(a, V1)
        clean(a, parse_recipe(V1_STATUS, "v1-status.toml"))
        convert(a, SLURM, "sacct", tz="Europe/Paris", max_procs=64)
    with wla.archive.open(path) as a:
        yield a


def test_each_log_says_what_it_is(kinds_archive):
    a = kinds_archive
    logs = a.df("SELECT log_id, name, kind, jobs FROM logs")
    versions = a.df("SELECT v.log_id, v.version, o.name AS original FROM versions AS v "
                    "JOIN logs AS o ON o.log_id = v.base_log_id")
    assert sorted(versions.version) == ["v1", "v1-status"] and set(versions.original) == {SP2}
    is_version = logs.log_id.isin(versions.log_id)
    assert (is_version == (logs.kind == "version")).all()
    # Jobs and logs per kind, from logs and versions, against typed_jobs.
    want = {"original": (int((~is_version).sum()), int(logs.jobs[~is_version].sum())),
            "version": (int(is_version.sum()), int(logs.jobs[is_version].sum()))}
    got = a.df("SELECT kind, count(DISTINCT log) AS logs, count(*) AS jobs FROM typed_jobs GROUP BY kind")
    assert {r.kind: (r.logs, r.jobs) for r in got.itertuples()} == want
    assert want["original"] == (20, 2205156 + 7)  # the real logs (MANIFEST.md) and the 7 Slurm jobs
    # Per log: an original is its own original and has no version; a version
    # names its original and its version, as the versions table does.
    per_log = a.df("SELECT DISTINCT log, kind, original, version, converted_from FROM typed_jobs")
    summary = a.df("SELECT name AS log, kind, original, version, converted_from FROM log_summary")
    key = ["log"]
    pd.testing.assert_frame_equal(per_log.sort_values(key, ignore_index=True),
                                  summary.sort_values(key, ignore_index=True))
    by_name = per_log.set_index("log")
    for row in versions.merge(logs, on="log_id").itertuples():
        assert by_name.loc[row.name, ["kind", "original", "version"]].tolist() == \
            ["version", row.original, row.version]
        assert row.name == f"{row.original}@{row.version}"  # ORIGINAL@VERSION
    originals = by_name[by_name.kind == "original"]
    assert (originals.index == originals.original).all() and originals.version.isna().all()


def test_converted_from_is_what_convert_wrote(kinds_archive):
    """The view reads the Conversion header line wla convert writes; no log of
    the Parallel Workloads Archive (whose Conversion lines name people) is taken
    for one."""
    a = kinds_archive
    line = a.df("SELECT h.value FROM header_lines AS h JOIN logs AS l USING (log_id) "
                "WHERE l.name = 'slurm' AND h.label = 'Conversion'").value.item()
    assert line.startswith("wla ") and line.endswith(" from slurm.txt (sacct)")
    converted = a.df("SELECT name, converted_from FROM log_summary WHERE converted_from IS NOT NULL")
    assert converted.values.tolist() == [["slurm", "slurm.txt (sacct)"]]
    real_conversions = a.df("SELECT count(*) AS n FROM logs WHERE conversion IS NOT NULL AND name <> 'slurm'")
    assert real_conversions.n.item() >= 10  # they have Conversion lines, and are not converted by wla


def test_jobs_per_original_log_per_year_counts_each_job_once(kinds_archive):
    a = kinds_archive
    q = ("SELECT original, year(submit_local) AS year, count(*) AS jobs FROM typed_jobs "
         "WHERE kind = 'original' GROUP BY ALL")
    per_year = a.df(q)
    assert per_year.jobs.sum() == 2205156 + 7
    assert per_year.groupby("original").jobs.sum().to_dict() == \
        a.df("SELECT name, jobs FROM logs WHERE kind <> 'version'").set_index("name").jobs.to_dict()
    # SDSC-SP2 by hand: pandas reads the file, the header's UnixStartTime and zone.
    df = pandas_log(SP2)
    years = pd.to_datetime(893466664 + df.submit, unit="s", utc=True).dt.tz_convert("US/Pacific").dt.year
    sp2 = per_year[per_year.original == SP2].set_index("year").jobs.to_dict()
    assert sp2 == years.value_counts().to_dict() and sum(sp2.values()) == 59715
    # Without the filter, its jobs are counted once per version as well.
    everything = a.df("SELECT count(*) AS n FROM typed_jobs WHERE original = ?", [SP2]).n.item()
    v1, v1s = (a.df("SELECT jobs FROM logs WHERE name = ?", [f"{SP2}@{v}"]).jobs.item() for v in ("v1", "v1-status"))
    assert everything == 59715 + v1 + v1s and v1 == 59715 - 609


def test_ls_shows_versions_under_their_original(kinds_archive):
    r = cli("ls", archive=kinds_archive.path)
    assert r.status == 0, r.err
    lines = r.out.splitlines()
    width = len(f"  {SP2}@v1-status")
    assert lines[0].startswith("name".ljust(width) + " first submit last submit")
    assert max(map(len, lines)) <= 100  # one table, no second block
    names = [line[:width].rstrip() for line in lines[1:23]]  # 20 logs, 2 versions
    at = names.index(SP2)
    assert names[at:at + 3] == [SP2, f"  {SP2}@v1", f"  {SP2}@v1-status"]
    assert [n for n in names if n.startswith(" ")] == [f"  {SP2}@v1", f"  {SP2}@v1-status"]
    originals = [n for n in names if not n.startswith(" ")]
    assert originals == sorted(originals) and len(originals) == 20
    assert lines[23:] == ["", "slurm: converted by wla convert from slurm.txt (sacct)"]
    # --json: every row with what it is, in the same order.
    rows = json.loads(cli("ls", "--json", archive=kinds_archive.path).out)
    assert [r["name"] for r in rows] == [n.strip() for n in names]
    assert list(rows[0])[:5] == ["name", "kind", "original", "version", "converted_from"]
    shown = {r["name"]: (r["kind"], r["original"], r["version"], r["converted_from"]) for r in rows}
    assert shown[SP2] == ("original", SP2, None, None)
    assert shown[f"{SP2}@v1-status"] == ("version", SP2, "v1-status", None)
    assert shown["slurm"] == ("original", "slurm", None, "slurm.txt (sacct)")
    assert shown[f"{SP2}@v1"][3] is None and rows[at + 1]["jobs"] == 59715 - 609


def test_ls_without_versions_is_the_table_alone(tmp_path):
    arc = tmp_path / "one.duckdb"
    cli("ingest", str(data_dir() / "NASA-iPSC-1993-3-head228.swf.gz"), archive=arc)
    r = cli("ls", archive=arc)
    assert r.out.splitlines() == [
        "name                     first submit last submit months procs users jobs utilization",
        "NASA-iPSC-1993-3-head228   1993-10-01  1993-10-01    0.0   128    13  228       84.1%",
    ]
    [row] = json.loads(cli("ls", "--json", archive=arc).out)
    assert {k: row[k] for k in ("name", "kind", "original", "version", "converted_from", "jobs")} == {
        "name": "NASA-iPSC-1993-3-head228", "kind": "original", "original": "NASA-iPSC-1993-3-head228",
        "version": None, "converted_from": None, "jobs": 228}


# -- an archive written by an older wla, read-only ----------------------------------------

OLD = ROOT / "tests" / "fixtures" / "archive-v1.duckdb.gz"
OLD_LOG = "NASA-iPSC-1993-3-head228"


def test_an_older_archive_is_read_through_todays_views(tmp_path):
    """Its stored views predate kind, original and version (and even the
    macros); a read-only open reads its tables through this wla's views,
    made for the connection alone: the file does not change."""
    path = tmp_path / "old.duckdb"
    with gzip.open(OLD, "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    con = duckdb.connect(str(path), read_only=True)
    with pytest.raises(duckdb.BinderException, match="kind"):
        con.execute("SELECT kind FROM typed_jobs")
    con.close()
    with wla.archive.open(path) as a:
        assert {"typed_jobs", "log_kinds", "log_summary"} <= set(_views_in(a.con, "temp"))
        kinds = catalog(a)[["name", "kind", "original", "version"]].fillna("-").values.tolist()
        assert kinds == [[OLD_LOG, "original", OLD_LOG, "-"]] + [
            [f"{OLD_LOG}@{v}", "version", OLD_LOG, v] for v in ("v1", "v2", "v3")]
        once = a.sql("SELECT count(*) AS n FROM typed_jobs WHERE kind = 'original'").n.item()
        assert once == 228
    r = cli("ls", archive=path)
    assert r.status == 0 and r.out.splitlines()[2].startswith(f"  {OLD_LOG}@v1 ")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def _views_in(con, database: str) -> list[str]:
    return [r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE database_name = ? "
                                      "AND NOT internal ORDER BY view_name", [database]).fetchall()]


def test_views_a_reader_cannot_make_are_left_as_stored(tmp_path):
    """A file whose tables today's views cannot read (not an archive, or an
    archive of a newer schema that renamed a column) keeps what it has;
    nothing is half made. One they can read is read through them."""
    bare = tmp_path / "bare.duckdb"
    duckdb.connect(str(bare)).close()
    con = duckdb.connect(str(bare), read_only=True)
    assert read_through_current_views(con) is False
    assert _views_in(con, "temp") == []
    con.close()
    newer = tmp_path / "newer.duckdb"
    with wla.archive.open(newer, write=True) as a:
        ingest(a, [data_dir() / f"{OLD_LOG}.swf.gz"])
    con = duckdb.connect(str(newer))  # a newer wla: schema 3 and more, its own typed_jobs
    con.execute("CREATE OR REPLACE VIEW typed_jobs AS SELECT * FROM jobs")
    con.execute("UPDATE archive_meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION + 1)])
    con.execute("ALTER TABLE logs ADD COLUMN added_later VARCHAR")
    con.close()
    with wla.archive.open(newer) as a:
        assert "typed_jobs" in _views_in(a.con, "temp")
        assert a.sql("SELECT DISTINCT kind FROM typed_jobs").kind.tolist() == ["original"]
    con = duckdb.connect(str(newer))
    con.execute("ALTER TABLE logs RENAME COLUMN kind TO what")
    con.close()
    with wla.archive.open(newer) as a:  # its stored views: the ones it was written with
        assert _views_in(a.con, "temp") == []
        assert "kind" not in a.sql("SELECT * FROM typed_jobs LIMIT 0").columns


def test_a_reader_makes_no_views_when_the_stored_ones_are_this_wlas(tmp_path):
    """A writable open records the fingerprint of the views it made; a reader
    finding it makes none, and one finding another makes its own."""
    from wla.archive.store.migrate import views_fingerprint

    path = tmp_path / "a.duckdb"
    with wla.archive.open(path, write=True) as a:
        ingest(a, [data_dir() / f"{OLD_LOG}.swf.gz"])
    with wla.archive.open(path) as a:
        assert _views_in(a.con, "temp") == []
        assert a.con.execute("SELECT value FROM archive_meta WHERE key = 'views_sha256'").fetchall() == [
            (views_fingerprint(),)]
        assert a.sql("SELECT DISTINCT kind FROM typed_jobs").kind.tolist() == ["original"]
    con = duckdb.connect(str(path))
    con.execute("UPDATE archive_meta SET value = 'another' WHERE key = 'views_sha256'")
    con.close()
    with wla.archive.open(path) as a:
        assert "typed_jobs" in _views_in(a.con, "temp")
    with wla.archive.open(path, write=True):
        pass  # a writer makes the views again and records them
    with wla.archive.open(path) as a:
        assert _views_in(a.con, "temp") == []


@pytest.mark.slow
def test_versions_are_listed_under_their_own_log_with_a_resampled_log_present(tmp_path):
    """A resampled log comes after its source's versions, each log followed
    by its own versions, in `wla ls`, its JSON and the site's index alike."""
    from wla.archive.store.listing import listing
    from wla.cli.site.catalog_page import catalog_rows

    archive = tmp_path / "a.duckdb"
    kth = "KTH-SP2-1996-2.1-cln"
    assert cli("ingest", data_dir() / f"{kth}.swf.gz", archive=archive).status == 0
    assert cli("resample", kth, "--seed", "1", "--name", "kth-big", archive=archive).status == 0
    for log, version in ((kth, "v1"), ("kth-big", "v1"), (kth, "wla1")):
        recipe = tmp_path / f"{log}-{version}.toml"
        recipe.write_text(f'log = "{log}"\nversion = "{version}"\n[[step]]\nrule = "normalize"\n')
        assert cli("clean", recipe, archive=archive).status == 0
    order = [kth, f"{kth}@v1", f"{kth}@wla1", "kth-big", "kth-big@v1"]
    assert [r["name"] for r in json.loads(cli("ls", "--json", archive=archive).out)] == order
    text = cli("ls", archive=archive).out.splitlines()[1:]
    assert [line.split()[0] for line in text] == order
    assert [line.startswith("  ") for line in text] == [False, True, True, False, True]
    with wla.archive.open(archive) as a:
        listed = listing(a)
    assert [r.name for r in catalog_rows(listed, {name: name for name in order})] == order
