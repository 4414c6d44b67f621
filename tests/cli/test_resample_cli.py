"""`wla users` and `wla resample` on SDSC-SP2: the classes counted another
way (pandas), the same seed giving the same file bit for bit, and refusals
in one line."""
from __future__ import annotations

import json

import pytest
from cli_run import wla
from real_logs import pandas_log
from wla.archive import open as open_archive
from wla.archive.kernel.clock import WEEK

LOG = "SDSC-SP2-1998-4.2-cln"


@pytest.fixture
def archive_copy(sp2_archive_file, tmp_path):
    path = tmp_path / "a.duckdb"
    path.write_bytes(sp2_archive_file.read_bytes())
    return path


def test_users_counts_each_class_as_pandas_does(sp2_archive_file):
    r = wla("users", LOG, "--json", archive=sp2_archive_file)
    assert r.status == 0, r.err
    got = json.loads(r.out)
    jobs = pandas_log(LOG)
    known = jobs[(jobs.user >= 0) & (jobs.submit >= 0)]
    start, end = known.submit.min(), known.submit.max()
    per = known.groupby("user").submit.agg(["min", "max", "size"])
    long = per["max"] - per["min"] >= 12 * WEEK
    edge = (per["max"] <= start + 4 * WEEK) | (per["min"] >= end - 4 * WEEK)
    want = {"long-term": per[long], "temporary": per[~long & ~edge], "discarded": per[~long & edge]}
    for name, rows in want.items():
        assert got["classes"][name] == {"users": len(rows), "jobs": int(rows["size"].sum())}
    temp = per[~long]
    active = (temp["max"] // WEEK - temp["min"] // WEEK + 1).sum()
    weeks = int(end // WEEK - start // WEEK + 1)
    assert got["weeks"] == weeks
    assert got["temporary_active_per_week"] == pytest.approx(active / weeks, rel=1e-12)
    later = (temp["min"] // WEEK > start // WEEK).sum()
    assert got["temporary_arrivals_per_week"] == pytest.approx(later / (weeks - 1), rel=1e-12)
    tighter = json.loads(wla("users", LOG, "--json", "--long-term-weeks", "30", archive=sp2_archive_file).out)
    assert tighter["classes"]["long-term"]["users"] == int((per["max"] - per["min"] >= 30 * WEEK).sum())


def test_rare_behavior_triples_from_the_command_line(sp2_archive_file):
    r = wla("users", LOG, "--rb", "5:0:1e9", "--json", archive=sp2_archive_file)
    got = json.loads(r.out)
    jobs = pandas_log(LOG)
    assert got["classes"]["rare-behavior"] == {"users": 1, "jobs": int((jobs.user == 5).sum())}
    bad = wla("users", LOG, "--rb", "5:1998-13-01:1999-01-01", archive=sp2_archive_file)
    assert "not a date" in bad.one_error_line()


def test_the_same_seed_stores_the_same_bytes(archive_copy, tmp_path, sp2_archive_file):
    other = tmp_path / "b.duckdb"
    other.write_bytes(sp2_archive_file.read_bytes())
    for path in (archive_copy, other):
        r = wla("resample", LOG, "--seed", "8", "--load", "0.9", "--json", archive=path)
        assert r.status == 0, r.err
    data = json.loads(r.out)
    assert data["name"] == f"{LOG}-r8" and data["settings"]["load"] == 0.9
    shas = []
    for p in (archive_copy, other):
        with open_archive(p) as a:
            shas.append(a.con.execute("SELECT sha256 FROM logs WHERE kind = 'resampled'").fetchall())
    assert shas[0] == shas[1] and len(shas[0]) == 1
    again = wla("resample", LOG, "--seed", "8", archive=archive_copy)
    assert "already holds a log named" in again.one_error_line()
    sim = wla("simulate", f"{LOG}-r8", "--json", archive=archive_copy)
    assert json.loads(sim.out)["counts"]["jobs"] == data["jobs"]
    shaken = wla("shake", f"{LOG}-r8", "--runs", "2", "--workers", "1", "--json", archive=archive_copy)
    assert json.loads(shaken.out)["source"]["log"] == f"{LOG}-r8"
    listed = wla("ls", archive=archive_copy).out
    assert f"{LOG}-r8" in listed


@pytest.mark.parametrize("args, words", [
    (["--rb-npw", "1"], "--rb-npw needs rare-behavior users"),
    (["--rb-npw", "50", "--rb-from-flurries"], "exceeds the temporary arrival rate"),
    (["--load", "40"], "initial temporary users asked for"),
    (["--weeks", "0"], "--weeks"),
    (["--name", "bad@name"], "bad@name"),
])
def test_refusals_are_one_line(archive_copy, args, words):
    r = wla("resample", LOG, *args, archive=archive_copy)
    assert words in r.one_error_line()
    assert "resampled" not in wla("sql", "SELECT DISTINCT kind FROM logs", archive=archive_copy).out
