"""Every real log ingests, matches its manifest, and comes back out unchanged."""
from __future__ import annotations

import gzip
import math
import re

import numpy as np
import pandas as pd
import pytest
from conftest import manifest, real_files
from wla.archive import open as open_archive
from wla.archive.store.export import export_swf
from wla.archive.store.ingest import ingest
from wla.archive.swf.fields import COLUMNS


def test_manifest_lists_every_file():
    assert sorted(manifest()) == [f.name for f in real_files()]


def test_every_log_matches_manifest(real_archive):
    logs = real_archive.df("SELECT name, jobs, header_lines, sha256 FROM logs").set_index("name")
    for file, want in manifest().items():
        row = logs.loc[file.removesuffix(".swf.gz")]
        assert row.jobs == want["jobs"], file
        assert row.header_lines == want["header"], file
        assert row.sha256.startswith(want["sha"]), file


def _plain_values(path) -> tuple[list[str], list[list[float]]]:
    """Header lines and job values read with nothing of wla: the test's own parser."""
    header, jobs = [], []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.lstrip().startswith(";"):
                header.append(line)
            elif line.strip():
                jobs.append([float(t) for t in line.split()])
    return header, jobs


@pytest.mark.parametrize("path", real_files(), ids=lambda p: p.name)
def test_stored_values_equal_the_file(real_archive, path):
    header, jobs = _plain_values(path)
    name = path.name.removesuffix(".swf.gz")
    log_id = real_archive.log_id(name)
    stored = real_archive.df(f"SELECT text FROM header_lines WHERE log_id = {log_id} ORDER BY seq")
    assert stored.text.tolist() == header
    cols = ", ".join(COLUMNS)
    got = real_archive.con.execute(
        f"SELECT {cols} FROM jobs WHERE log_id = {log_id} ORDER BY line_no").fetchnumpy()
    want = np.array(jobs, dtype=np.float64)
    for k, c in enumerate(COLUMNS):
        np.testing.assert_array_equal(got[c].astype(np.float64), want[:, k], err_msg=f"{name} {c}")


@pytest.mark.parametrize("path", real_files(), ids=lambda p: p.name)
def test_export_round_trip(real_archive, tmp_path, path):
    """Export, ingest the export: identical header lines and identical values."""
    name = path.name.removesuffix(".swf.gz")
    out = tmp_path / f"{name}.swf.gz"
    export_swf(real_archive, name, out)
    with open_archive(tmp_path / "again.duckdb", write=True) as b:
        (res,) = ingest(b, [out], name="again")
        assert res.status == "ingested", res.message
        sql = "SELECT {} FROM jobs WHERE log_id = {} ORDER BY line_no"
        cols = ", ".join(COLUMNS)
        mine = real_archive.df(sql.format(cols, real_archive.log_id(name)))
        back = b.df(sql.format(cols, b.log_id("again")))
        pd.testing.assert_frame_equal(mine, back)
        h = "SELECT line_no, text FROM header_lines WHERE log_id = {} ORDER BY seq"
        a_h = real_archive.df(h.format(real_archive.log_id(name)))
        b_h = b.df(h.format(b.log_id("again")))
        assert a_h.text.tolist() == b_h.text.tolist()


def test_header_facts(real_archive):
    logs = real_archive.df("SELECT * FROM logs").set_index("name")
    sp2 = logs.loc["SDSC-SP2-1998-4.2-cln"]
    assert (sp2.machine_size, sp2.machine_size_source) == (128, "MaxProcs")
    assert sp2.unix_start_time == 893466664 and sp2.tz == "US/Pacific"
    assert logs.loc["lublin_256"].machine_size_source == "MaxNodes"
    ricc = logs.loc["RICC-2010-2"]
    assert pd.isna(ricc.machine_size) and ricc.header_lines == 0


def test_labels_with_any_spacing_and_repeats(real_archive):
    lab = real_archive.df(
        "SELECT label, value, text FROM header_lines h JOIN logs USING (log_id) "
        "WHERE name = 'SDSC-SP2-1998-4.2-cln' ORDER BY seq")
    queues = lab[lab.label == "Queue"]
    assert len(queues) == 7 and queues.value.iloc[0] == "0  interactive"
    assert lab[lab.label == "EndTime"].value.item() == "Sat Apr 29 21:08:32 PDT 2000"
    # continuation lines are kept, without a label
    assert lab.label.isna().sum() == sum(
        1 for t in lab.text if not re.match(r"^\s*;\s*[A-Za-z]\w*\s*:", t))


def test_typed_view_derived_columns(real_archive):
    """Derived times against a computation with pandas and zoneinfo."""
    t = real_archive.df(
        "SELECT job, submit, wait, run, start_time, end_time, submit_local, day_of_week, "
        "hour_of_day, week, tz_known FROM typed_jobs WHERE log = 'SDSC-SP2-1998-4.2-cln' "
        "ORDER BY line_no")
    raw = real_archive.df(
        "SELECT job, submit, wait, run FROM jobs JOIN logs USING (log_id) "
        "WHERE name = 'SDSC-SP2-1998-4.2-cln' ORDER BY line_no")
    missing = raw.run == -1
    assert t.run.isna().sum() == missing.sum()
    ok = ~missing
    np.testing.assert_array_equal(t.end_time[ok], (raw.submit + raw.wait + raw.run)[ok])
    local = pd.to_datetime(893466664 + raw.submit, unit="s", utc=True).dt.tz_convert("US/Pacific")
    np.testing.assert_array_equal(t.hour_of_day, local.dt.hour)
    np.testing.assert_array_equal(t.day_of_week, local.dt.day_of_week + 1)
    np.testing.assert_array_equal(t.week, np.floor(raw.submit / 604800).astype(int))
    assert t.tz_known.all()
    ricc = real_archive.df("SELECT count(submit_local) n, bool_or(tz_known) k FROM typed_jobs "
                            "WHERE log = 'RICC-2010-2'")
    assert ricc.n.item() == 0 and not ricc.k.item()


def test_fractional_cpu_survives(real_archive):
    v = real_archive.df("SELECT cpu FROM jobs JOIN logs USING (log_id) WHERE "
                         "name = 'HPC2N-2002-2.2-head3170' AND job = 7182").cpu.item()
    assert v == 223.29 and not math.isclose(v, round(v))
