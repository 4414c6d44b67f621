"""SDSC-SP2's two capacity regimes as two versions: each keeps the jobs
submitted in its regime (counted by pandas from the file), carries its
capacity as the version's machine size (in its logs row, its Note line and
its provenance), and `wla simulate LOG@V` runs it on that size."""
from __future__ import annotations

import gzip
import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from cli_run import wla
from real_logs import data_dir, pandas_log
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.provenance import provenance
from wla.archive.clean.recipe import parse_recipe
from wla.archive.kernel.errors import RecipeError
from wla.archive.store.ingest import ingest

SP2 = "SDSC-SP2-1998-4.2-cln"
# where wla quality puts the change: 1998-11-28 00:00 in San Diego, on the log's submit clock
CHANGE = datetime(1998, 11, 28, tzinfo=ZoneInfo("US/Pacific")).timestamp() - 893466664


def _recipe(version: str, step: str) -> object:
    return parse_recipe(f'log = "{SP2}"\nversion = "{version}"\n\n[[step]]\nrule = "regime"\n{step}\n')


@pytest.fixture(scope="module")
def regimes_archive(tmp_path_factory):
    path = tmp_path_factory.mktemp("regimes") / "a.duckdb"
    with open_archive(path, write=True) as a:
        [r] = ingest(a, [data_dir() / f"{SP2}.swf.gz"])
        assert r.status == "ingested"
        for k in (1, 2):
            clean(a, _recipe(f"r{k}", f"regime = {k}"))
    return path


@pytest.mark.long
def test_each_regime_is_a_version_with_its_jobs_and_its_size(regimes_archive):
    frame = pandas_log(SP2)
    early = int((frame["submit"] < CHANGE).sum())
    with open_archive(regimes_archive) as a:
        rows = dict((n, (j, s, src)) for n, j, s, src in a.con.execute(
            "SELECT name, jobs, machine_size, machine_size_source FROM logs WHERE kind = 'version'").fetchall())
        notes = [t for (t,) in a.con.execute(
            "SELECT text FROM header_lines JOIN logs USING (log_id) WHERE name = ? AND text LIKE '; Note: Step%'",
            [f"{SP2}@r1"]).fetchall()]
        prov = provenance(a, f"{SP2}@r2")
        original = a.con.execute("SELECT machine_size, machine_size_source FROM logs WHERE name = ?",
                                 [SP2]).fetchall()[0]
    assert rows[f"{SP2}@r1"] == (early, 115, "recipe")
    assert rows[f"{SP2}@r2"] == (len(frame) - early, 128, "recipe")
    assert original == (128, "MaxProcs")
    [note] = notes
    assert note.endswith(f"{len(frame) - early} jobs dropped, 0 changed; machine size set to 115 "
                         "(the MaxProcs line above; 128 before)")
    [entity] = [e for e in prov["entity"].values() if e.get("prov:label") == f"{SP2}@r2"]
    assert entity["wla:machine_size"] == 128
    for version, size in (("r1", 115), ("r2", 128)):
        run = wla("simulate", f"{SP2}@{version}", "--json", archive=regimes_archive)
        assert run.status == 0, run.err
        result = json.loads(run.out)
        assert (result["settings"]["procs"], result["source"]["procs_from"]) == (size, "recipe")


def test_a_published_regime_says_its_size_in_its_maxprocs_line(regimes_archive, tmp_path):
    """The published file, ingested again, is a log of the regime's size:
    its MaxProcs line is the one line of the original header that changed."""
    from wla.archive.clean.publish import publish

    copy = tmp_path / "a.duckdb"
    copy.write_bytes(regimes_archive.read_bytes())
    with open_archive(copy, write=True) as a:
        publish(a, SP2, "r1", tmp_path / "r1.swf.gz")
        [r] = ingest(a, [tmp_path / "r1.swf.gz"], name="again")
        assert r.status == "ingested"
        assert a.rows("SELECT machine_size, machine_size_source FROM logs WHERE name = 'again'") == [(115, "MaxProcs")]
    with gzip.open(data_dir() / f"{SP2}.swf.gz", "rt") as fh:
        before = [line.rstrip("\n") for line in fh if line.startswith(";")]
    with gzip.open(tmp_path / "r1.swf.gz", "rt") as fh:
        after = [line.rstrip("\n") for line in fh if line.startswith(";")]
    changed = [(b, a) for b, a in zip(before, after) if b != a]
    assert changed == [("; MaxProcs: 128", "; MaxProcs: 115")]
    assert len(after) == len(before) + 2  # the version's two Note lines


def test_a_regime_the_log_does_not_have_is_refused(tmp_path):
    path = tmp_path / "a.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [data_dir() / "KTH-SP2-1996-2.1-cln.swf.gz"])
        recipe = parse_recipe('log = "KTH-SP2-1996-2.1-cln"\nversion = "r2"\n\n[[step]]\nrule = "regime"\n'
                              'regime = 2\n')
        with pytest.raises(RecipeError, match="regime 2: the step's jobs hold 1 capacity regime$"):
            clean(a, recipe)
