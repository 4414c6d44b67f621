"""An archive written before archives recorded a schema version opens with
today's code: read-only as it is, and for writing brought to the current
schema (archive/store/migrate.py) with its logs, versions and decisions
intact.

The archive is tests/fixtures/archive-v1.duckdb.gz, made once by
tests/fixtures/make_archive_v1.py with the code of commit fbef685 (schema
version 1: fingerprints of the SQL alone, capacity at version 1 with the
defaults it has now). It holds NASA-iPSC-1993-3-head228 and its versions v1
(normalize, filter, capacity; published), v2 (normalize, status; published)
and v3 (trim).

And tests/fixtures/archive-v2.duckdb.gz, made by make_archive_v2.py with the
code of commit cdd7452 (schema version 2: logs without the layout of their
job lines): NASA-iPSC-1993-3-head228 and its version v1 (normalize,
recover; published).
"""
from __future__ import annotations

import datetime as dt
import gzip
import shutil
from pathlib import Path

import duckdb
import pytest
from cli_run import wla
from real_logs import TESTS, data_dir
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.publish import publish
from wla.archive.clean.recipe import parse_recipe
from wla.archive.clean.rules import load_rules, rule_fingerprint
from wla.archive.clean.versions import versions, why
from wla.archive.kernel.errors import LogExists, WlaError
from wla.archive.store.export import swf_bytes
from wla.archive.store.ingest import ingest
from wla.archive.store.migrate import SCHEMA_VERSION, schema_version, views_fingerprint
from wla.archive.store.notes import add_note, notes

FIXTURE = TESTS / "fixtures" / "archive-v1.duckdb.gz"
FIXTURE_V2 = TESTS / "fixtures" / "archive-v2.duckdb.gz"
LOG = "NASA-iPSC-1993-3-head228"
DATA = data_dir()
TABLES = ("logs", "header_lines", "jobs", "rejects", "versions", "steps", "decisions", "computed_drops")


def _unpacked(fixture: Path, path: Path) -> Path:
    with gzip.open(fixture, "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return path


@pytest.fixture
def old_archive(tmp_path) -> Path:
    return _unpacked(FIXTURE, tmp_path / "old.duckdb")


@pytest.fixture
def v2_archive(tmp_path) -> Path:
    return _unpacked(FIXTURE_V2, tmp_path / "v2.duckdb")


def _contents(path: Path) -> dict[str, list]:
    """Every row of the tables a migration must leave alone, and the rules,
    read by DuckDB alone."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        # As text: a TIMESTAMPTZ read into Python needs pytz.
        rows = {t: con.execute("SELECT COLUMNS(*)::VARCHAR FROM " + t + " ORDER BY ALL").fetchall()
                for t in TABLES}
        rows["rules"] = con.execute("SELECT name, version, fingerprint, sql FROM rules ORDER BY ALL").fetchall()
        rows["meta"] = con.execute("SELECT * FROM archive_meta").fetchall()
    finally:
        con.close()
    return rows


def test_the_fixture_is_an_archive_of_schema_version_1(old_archive):
    before = _contents(old_archive)
    assert before["meta"] == []  # no schema version recorded
    assert len(before["logs"]) == 4 and len(before["jobs"]) == 228 + 217 + 228 + 223
    assert [(n, v) for n, v, _, _ in before["rules"]] == [
        ("capacity", 1), ("filter", 1), ("normalize", 1), ("recover", 1), ("status", 1), ("trim", 1)]
    capacity = before["rules"][0]
    assert capacity[2].startswith("69c85830faba")  # capacity v1's fingerprint, as archives recorded it


def test_a_read_only_open_reads_the_old_archive_as_it_is(old_archive):
    with open_archive(old_archive) as a:
        assert schema_version(a.con) == 1
        assert versions(a).name.tolist() == [f"{LOG}@v1", f"{LOG}@v2", f"{LOG}@v3"]
        decisions, kept = why(a, LOG, 100)
        assert decisions.rule.tolist() == ["filter"] and decisions.fingerprint.tolist() == ["2df8aaa7bd08"]
        assert kept.kept.tolist() == [False, True, True]
    assert _contents(old_archive)["meta"] == []


def _same_rows(before: dict[str, list], after: dict[str, list]) -> None:
    """Every row of TABLES as it was; a logs row gains only `layout`, unknown."""
    for table in TABLES:  # logs, jobs, versions, steps, decisions: as they were
        if table == "logs":
            assert [row[:-1] for row in after[table]] == before[table]
            assert {row[-1] for row in after[table]} == {None}
        else:
            assert after[table] == before[table], table


def test_opening_for_writing_migrates_and_keeps_every_row(old_archive):
    before = _contents(old_archive)
    with open_archive(old_archive, write=True) as a:
        assert schema_version(a.con) == SCHEMA_VERSION == 4
    after = _contents(old_archive)
    assert after["meta"] == [("schema_version", "4"), ("views_sha256", views_fingerprint())]
    _same_rows(before, after)
    # Each kept rule now has the fingerprint of the text it kept, under the
    # new definition; the text is as it was.
    assert [(n, v, s) for n, v, _, s in after["rules"]] == [(n, v, s) for n, v, _, s in before["rules"]]
    files = load_rules()
    for name, version, fp, sql in after["rules"]:
        assert fp == rule_fingerprint(sql, f"{name}.sql") != dict((r[0], r[2]) for r in before["rules"])[name]
        if name != "capacity":  # unchanged files: the same rule, the same fingerprint
            assert fp == files[name].fingerprint
    # capacity v1 as this archive kept it: the text of its time, with its time limit.
    kept_capacity = next(sql for n, _, _, sql in after["rules"] if n == "capacity")
    assert "-- version: 1\n" in kept_capacity and "time_limit (number > 0, default 5)" in kept_capacity
    assert files["capacity"].version == 3 and "time_limit" not in files["capacity"].sql
    # A second open changes nothing.
    with open_archive(old_archive, write=True) as a:
        assert schema_version(a.con) == 4
    assert _contents(old_archive) == after


def _recipe(a, version: str) -> str:
    return a.con.execute("SELECT recipe FROM versions WHERE name = ?", [f"{LOG}@{version}"]).fetchone()[0]


@pytest.mark.slow
def test_published_versions_after_the_migration(old_archive, tmp_path):
    with open_archive(old_archive, write=True) as a:
        sha = dict(a.con.execute("SELECT version, published_sha256 FROM versions").fetchall())
        # The same recipe with the same rules: still the published version, nothing built.
        res = clean(a, parse_recipe(_recipe(a, "v2"), "v2.toml"))
        assert res.status == "unchanged"
        # capacity is version 3 now: v1's recipe is another build, refused saying why.
        with pytest.raises(LogExists) as e:
            clean(a, parse_recipe(_recipe(a, "v1"), "v1.toml"))
        assert str(e.value) == (
            f"{LOG}@v1 is published; it cannot be rebuilt differently under the same name: step 3 "
            "uses rule capacity version 3, published with version 1 (pin rule_version = 1 in that "
            "step to keep it, or give the recipe a new version)")
        pinned = _recipe(a, "v1").replace('rule = "capacity"\n', 'rule = "capacity"\nrule_version = 1\n')
        assert clean(a, parse_recipe(pinned, "v1.toml")).status == "unchanged"
        # The published files read as they were published.
        for version in ("v1", "v2"):
            out = publish(a, LOG, version, tmp_path / f"{version}.swf")
            assert (out.sha256, out.first) == (sha[version], False)
        # The unpublished v3 is rebuilt. A new version of this log with capacity v3 is refused:
        # the log has no start times, and capacity v3 will not judge it (v1 deleted nothing).
        assert clean(a, parse_recipe(_recipe(a, "v3"), "v3.toml")).status == "rebuilt"
        new = _recipe(a, "v1").replace('version = "v1"', 'version = "v4"')
        with pytest.raises(WlaError, match="step 3 \\(capacity\\): capacity cannot be judged without start"):
            clean(a, parse_recipe(new, "v4.toml"))
        # A log with start times: its version records capacity v3 beside v1.
        head = "HPC2N-2002-2.2-head3170"
        ingest(a, [DATA / f"{head}.swf.gz"])
        res = clean(a, parse_recipe(f'log = "{head}"\nversion = "c"\n[[step]]\nrule = "capacity"\n', "c.toml"))
        assert [(s.rule, s.rule_version) for s in res.steps] == [("capacity", 3)]
        rules = a.con.execute("SELECT version, fingerprint FROM rules WHERE name = 'capacity' "
                              "ORDER BY version").fetchall()
        assert [v for v, _ in rules] == [1, 3] and rules[1][1] == load_rules()["capacity"].fingerprint


def test_the_command_line_migrates_and_reads_the_archive(old_archive):
    recipe = old_archive.parent / "v2.toml"
    with open_archive(old_archive) as a:
        recipe.write_text(_recipe(a, "v2"))
    out = wla("clean", recipe, archive=old_archive)  # opens it for writing
    assert out.status == 0 and out.out == f"{LOG}@v2 is published and its recipe is unchanged; nothing to do\n"
    with open_archive(old_archive) as a:
        assert schema_version(a.con) == SCHEMA_VERSION
    out = wla("versions", "--wide", archive=old_archive)
    assert out.status == 0 and [line.split()[0] for line in out.out.splitlines()[1:]] == \
        [f"{LOG}@v1", f"{LOG}@v2", f"{LOG}@v3"]
    out = wla("why", LOG, "100", archive=old_archive)
    assert out.status == 0 and f"{LOG}@v1: job 100 (line 128) dropped" in out.out
    assert "2df8aaa7bd08" in out.out  # the decision keeps the fingerprint it was made with
    out = wla("sql", "SELECT count(*) AS n FROM decisions", archive=old_archive)
    assert out.status == 0 and out.out.split()[-1] == "16"


def test_an_archive_of_a_newer_schema_is_not_written(old_archive):
    con = duckdb.connect(str(old_archive))
    con.execute("INSERT INTO archive_meta VALUES ('schema_version', '5')")
    con.close()
    with pytest.raises(WlaError, match=r"has schema version 5, written by a newer wla; this one "
                                       r"writes version 4: upgrade wla"):
        open_archive(old_archive, write=True)
    with open_archive(old_archive) as a:  # reading is still tried
        assert len(versions(a)) == 3


def test_a_new_archive_starts_at_the_current_schema_version(tmp_path):
    with open_archive(tmp_path / "new.duckdb", write=True) as a:
        assert schema_version(a.con) == SCHEMA_VERSION


# -- schema version 2: logs without a layout -------------------------------------------


def _as_rendered_before(a, name: str) -> bytes:
    """A log without a layout as export writes it, computed here: the header
    lines, then each job's fields right-aligned in columns as wide as their
    widest value, one space apart (every value of this log is whole)."""
    log_id = a.log_id(name)
    header = [t for (t,) in a.con.execute("SELECT text FROM header_lines WHERE log_id = ? ORDER BY seq",
                                          [log_id]).fetchall()]
    rows = a.con.execute("SELECT * EXCLUDE (log_id, line_no) FROM jobs WHERE log_id = ? ORDER BY line_no",
                         [log_id]).fetchall()
    cells = [[str(int(v)) for v in row] for row in rows]
    widths = [max(len(r[k]) for r in cells) for k in range(len(cells[0]))]
    jobs = [" ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    return ("\n".join(header + jobs) + "\n").encode()


def test_a_v2_archive_migrates_and_exports_as_before(v2_archive, tmp_path):
    before = _contents(v2_archive)
    assert before["meta"] == [("schema_version", "2")]
    with open_archive(v2_archive) as a:  # read-only: as it is, exported as before
        assert schema_version(a.con) == 2
        old_text = swf_bytes(a, LOG)
        assert old_text == _as_rendered_before(a, LOG)
    with open_archive(v2_archive, write=True) as a:
        assert schema_version(a.con) == SCHEMA_VERSION == 4
        assert a.con.execute("SELECT count(*) FROM verbatim_lines").fetchall() == [(0,)]
        # The log's text is gone: its export is what it was, not its file.
        assert swf_bytes(a, LOG) == old_text
        file = DATA / f"{LOG}.swf.gz"
        assert old_text != gzip.decompress(file.read_bytes())
        # The published version reads as it was published.
        published = a.con.execute("SELECT published_sha256 FROM versions").fetchall()[0][0]
        assert publish(a, LOG, "v1", tmp_path / "v1.swf").sha256 == published
        # The same file again is the same log; a new file keeps its layout.
        [same] = ingest(a, [file])
        assert same.status == "unchanged"
        [new] = ingest(a, [DATA / "lublin_256.swf.gz"])
        assert new.status == "ingested"
        assert swf_bytes(a, "lublin_256") == gzip.decompress((DATA / "lublin_256.swf.gz").read_bytes())
    after = _contents(v2_archive)
    assert after["meta"] == [("schema_version", "4"), ("views_sha256", views_fingerprint())]
    for table in TABLES:  # every row that was there is there as it was
        was = before[table]
        now = [row[:-1] for row in after[table]] if table == "logs" else after[table]
        assert [row for row in now if row in was] == was, table


# -- schema version 4: notes ------------------------------------------------------------


@pytest.mark.parametrize("fixture", ["old_archive", "v2_archive"])
def test_an_older_archive_reads_without_notes_and_takes_them_once_migrated(fixture, request):
    path = request.getfixturevalue(fixture)
    with open_archive(path) as a:  # read-only: no notes table, and no notes
        assert not a.con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'notes'").fetchall()[0][0]
        assert notes(a, LOG) == []
    with open_archive(path, write=True) as a:
        assert schema_version(a.con) == 4
        add_note(a, LOG, "the head of the NASA log: 228 jobs", on=dt.date(2024, 5, 1))
    with open_archive(path) as a:
        assert [(n.log, n.seq, n.noted_on, n.text) for n in notes(a, LOG)] == [
            (LOG, 1, dt.date(2024, 5, 1), "the head of the NASA log: 228 jobs")]
    out = wla("note", f"{LOG}@v1", archive=path)  # a version reads its original's notes
    assert out.status == 0 and "2024-05-01" in out.out and "228 jobs" in out.out
