"""The analysis commands print what their Python functions return."""
from __future__ import annotations

import json

import pytest
from cli_run import Run, wla
from real_logs import data_dir
from wla.archive import open as open_archive
from wla.archive.analysis.flurries import flurries
from wla.archive.analysis.jobs import log_jobs
from wla.archive.analysis.load import load_profile
from wla.archive.store.ingest import ingest

LOG = "SDSC-SP2-1998-4.2-cln"


@pytest.fixture(scope="module")
def archive_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "a.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [data_dir() / f"{LOG}.swf.gz", data_dir() / "RICC-2010-2.swf.gz"])
    return path


def _wla(archive_file, *args: str) -> Run:
    return wla(*args, archive=archive_file)


def test_flurries_json_and_plot(archive_file, tmp_path):
    out = _wla(archive_file, "flurries", LOG, "--json", "--plot", str(tmp_path / "f.png"))
    assert out.status == 0, out.err
    with open_archive(archive_file) as a:
        jobs, facts = log_jobs(a, LOG)
    want = flurries(jobs, unix_start_time=facts["unix_start_time"], tz=facts["tz"]).to_dict()
    assert json.loads(out.out) == json.loads(json.dumps(want))
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_where_and_exclude_narrow_the_jobs(archive_file):
    only = json.loads(_wla(archive_file, "flurries", LOG, "--json", "--where", "user=24").out)
    without = json.loads(_wla(archive_file, "flurries", LOG, "--json", "--exclude", "user=24").out)
    with open_archive(archive_file) as a:
        n24 = a.df("SELECT count(*) AS n FROM jobs WHERE log_id = 1 AND user_id = 24").n[0]
    assert only["jobs"] == n24 and without["jobs"] == 59715 - n24
    assert {c["user"] for c in only["weekly_candidates"]} == {24}


def test_load_needs_a_machine_size(archive_file):
    out = _wla(archive_file, "load", "RICC-2010-2")
    assert out.status == 1 and "has no machine size" in out.err
    out = _wla(archive_file, "load", "RICC-2010-2", "--capacity", "8192", "--json")
    assert out.status == 0, out.err
    with open_archive(archive_file) as a:
        jobs, _ = log_jobs(a, "RICC-2010-2")
    assert json.loads(out.out)["trim"] == json.loads(json.dumps(load_profile(jobs, 8192).to_dict()["trim"]))


def test_capacity_json_report_and_rule(archive_file):
    out = _wla(archive_file, "capacity", LOG, "--json")
    assert out.status == 0, out.err
    got = json.loads(out.out)
    from wla.archive.analysis.capacity import capacity_report
    from wla.archive.analysis.capacity.choice import capacity_deletions
    from wla.archive.analysis.quality import quality

    with open_archive(archive_file) as a:
        jobs, _ = log_jobs(a, LOG)
        counted = int(quality(a, [LOG]).exceptions[0])
    assert got["report"] == json.loads(json.dumps(capacity_report(jobs, 128).as_dict()))
    assert got["report"]["exceptions"] == counted > 0  # the SQL of the quality report agrees
    choice = capacity_deletions(jobs, 128)
    assert got["rule"]["deleted"] == choice.deleted and got["rule"]["applied"] is True
