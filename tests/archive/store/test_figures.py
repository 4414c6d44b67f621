"""Kept figures: `log_figures` holds, for every log and version, what its
jobs give (the catalog reads it instead of every job), after each way jobs
are stored or removed, and after a migration from an archive without it."""
from __future__ import annotations

import gzip
import shutil

import numpy as np
import pandas as pd
import pytest
import wla.archive
from real_logs import data_dir
from test_migration import FIXTURE_V2, _unpacked
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe
from wla.archive.store.ingest import ingest
from wla.archive.store.listing import listing

LOG = "NASA-iPSC-1993-3-head228"
OTHER = "HPC2N-2002-2.2-head3170"
RECIPE = f'log = "{LOG}"\nversion = "v1"\n\n[[step]]\nrule = "filter"\nwhere = "user=3"\n'


def kept_and_computed(a) -> tuple[list, list]:
    """The kept rows, and the same figures computed again from the jobs now."""
    kept = a.con.execute("SELECT * FROM log_figures ORDER BY log_id").fetchall()
    computed = a.con.execute("SELECT * FROM job_figures ORDER BY log_id").fetchall()
    return kept, computed


def by_hand(path) -> tuple:
    """jobs, first and last submit, users, processor-seconds of an SWF file, read by pandas."""
    with gzip.open(path, "rt") as fh:
        df = pd.read_csv(fh, sep=r"\s+", comment=";", header=None)
    procs = np.where(df[4] > 0, df[4], np.where(df[7] > 0, df[7], np.nan))
    ran = df[3] > 0
    return (len(df), float(df[1][df[1] != -1].min()), float(df[1][df[1] != -1].max()),
            int(df[11][df[11] != -1].nunique()), float(np.nansum(df[3][ran] * procs[ran])))


def test_every_real_log_keeps_its_figures(real_archive):
    kept, computed = kept_and_computed(real_archive)
    assert kept == computed and len(kept) == len(list(data_dir().glob("*.swf.gz")))
    for name in ("SDSC-SP2-1998-4.2-cln", "KTH-SP2-1996-2.1-cln"):
        row = real_archive.con.execute(
            "SELECT f.jobs, first_submit, last_submit, users, proc_seconds FROM log_figures AS f "
            "JOIN logs USING (log_id) WHERE name = ?", [name]).fetchall()[0]
        assert row[:4] == by_hand(data_dir() / f"{name}.swf.gz")[:4]
        assert row[4] == pytest.approx(by_hand(data_dir() / f"{name}.swf.gz")[4], rel=1e-12)


def test_figures_follow_versions_replacements_and_removals(tmp_path):
    path = tmp_path / "a.duckdb"
    file = data_dir() / f"{LOG}.swf.gz"
    small = data_dir() / f"{OTHER}.swf.gz"
    with wla.archive.open(path, write=True) as a:
        ingest(a, [file, small])
        clean(a, parse_recipe(RECIPE, "v1.toml"))
        kept, computed = kept_and_computed(a)
        assert kept == computed and len(kept) == 3
        version = dict(zip(listing(a).columns, listing(a).rows[2]))
        assert version["name"] == f"{LOG}@v1" and version["jobs"] < by_hand(file)[0]
        # Rebuilt with another recipe under the same name: the figures of the new jobs.
        clean(a, parse_recipe(RECIPE.replace("user=3", "user=5"), "v1.toml"))
        kept2, computed2 = kept_and_computed(a)
        assert kept2 == computed2 and kept2 != kept
        # Replaced by another file: its figures, the old ones gone.
        other = tmp_path / f"{OTHER}.swf"
        text = gzip.decompress(small.read_bytes()).decode().splitlines(keepends=True)
        other.write_text("".join(text[:-20]))
        [res] = ingest(a, [other], replace=True)
        assert res.status == "replaced", res.message
        kept3, computed3 = kept_and_computed(a)
        assert kept3 == computed3 and kept3 != kept2 and len(kept3) == 3
        ids = {r[0] for r in a.con.execute("SELECT log_id FROM logs").fetchall()}
        assert {r[0] for r in kept3} == ids


def test_a_migrated_archive_keeps_the_figures_of_its_logs(tmp_path):
    path = _unpacked(FIXTURE_V2, tmp_path / "v2.duckdb")
    with wla.archive.open(path) as a:  # read-only: computed on the fly, as the catalog was before
        before = listing(a)
        assert a.con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'log_figures'"
                             ).fetchall() == [(0,)]
    with wla.archive.open(path, write=True) as a:
        kept, computed = kept_and_computed(a)
        assert kept == computed and len(kept) == 2
        assert listing(a) == before
    copy = tmp_path / "copy.duckdb"
    shutil.copyfile(path, copy)
    with wla.archive.open(copy) as a:
        assert listing(a) == before
