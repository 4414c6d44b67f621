"""Every real log ingests, matches its manifest, and comes back out unchanged."""
from __future__ import annotations

import gzip
import hashlib
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from real_logs import manifest, real_files
from wla.archive.store.export import export_swf
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


# The two largest logs (a third of all jobs), read line by line in Python,
# run in the slow step, and so do the older releases of two logs whose newer
# release is read by default (the same layout, nearly the same lines).
LARGEST = ("RICC-2010-2.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz")
OLDER = ("SDSC-BLUE-2000-4.1-cln.swf.gz", "HPC2N-2002-2.1-cln.swf.gz")
# Read line by line in Python in the slow step only: their export is checked
# byte for byte by default all the same.
READ_SLOWLY = ("SDSC-BLUE-2000-4.2-cln.swf.gz", "LLNL-Thunder-2007-1.1-cln.swf.gz")


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.name in LARGEST + OLDER + READ_SLOWLY
                                  else p for p in real_files()], ids=lambda p: p.name)
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


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.name in OLDER else p
                                  for p in real_files()], ids=lambda p: p.name)
def test_export_is_the_file(real_archive, tmp_path, path):
    """Export gives back the file's text byte for byte (gzip'd with no name
    and no time, by the output's name), the sha256 the logs row records."""
    name = path.name.removesuffix(".swf.gz")
    with gzip.open(path, "rb") as fh:
        original = fh.read()
    out = tmp_path / f"{name}.swf.gz"
    assert export_swf(real_archive, name, out) == real_archive.con.execute(
        "SELECT jobs FROM logs WHERE name = ?", [name]).fetchall()[0][0]
    raw = out.read_bytes()
    assert raw[4:8] == b"\0\0\0\0"  # gzip mtime 0
    text = gzip.decompress(raw)
    assert text == original
    assert hashlib.sha256(text).hexdigest() == real_archive.con.execute(
        "SELECT sha256 FROM logs WHERE name = ?", [name]).fetchall()[0][0]


def test_few_lines_are_kept_as_written(real_archive):
    """The 19 files are written by printf: one layout per file spells all but
    the odd line. Kept as written, as read in the files: the last line of
    HPC2N-2002-2.2-head3170 (one space), and the first five job lines of
    NASA-iPSC-1993-3-head228, whose processor column is two wider."""
    kept = real_archive.con.execute(
        "SELECT name, count(*) FROM verbatim_lines JOIN logs USING (log_id) GROUP BY name ORDER BY name"
    ).fetchall()
    assert kept == [("HPC2N-2002-2.2-head3170", 1), ("NASA-iPSC-1993-3-head228", 5)]
    layouts = {n: json.loads(t) for n, t in real_archive.con.execute("SELECT name, layout FROM logs").fetchall()}
    # SDSC-SP2: '%5d %8d %6d %6d %4d %6.2f %5d %4d %6d %5d %2d %3d %3d %3d %2d %2d %2d %2d',
    # the cpu time with two decimals where they fit its six columns, else whole.
    sp2 = layouts["SDSC-SP2-1998-4.2-cln"]
    assert sp2["widths"] == [5, 8, 6, 6, 4, 6, 5, 4, 6, 5, 2, 3, 3, 3, 2, 2, 2, 2]
    assert sp2["spaces"] == [0] + [1] * 17 and sp2["decimals"] == [0] * 5 + [2] + [0] * 12
    assert not sp2["crlf"] and sp2["final_newline"]
    assert not layouts["ANL-Intrepid-2009-1-head10"]["final_newline"]


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
