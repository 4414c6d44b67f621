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


@pytest.mark.slow
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


def test_quality_says_the_dependencies_of_each_log(tmp_path):
    # A made log whose fields 17/18 are set (job 3 points to job 9, not in it),
    # and one without: a table for the first, one line for the second.
    made = tmp_path / "made.swf"
    made.write_text("".join(f"{j} {j * 100} 0 10 1 -1 -1 1 -1 -1 1 1 -1 -1 -1 -1 {p} {t}\n"
                            for j, p, t in [(1, -1, -1), (2, 1, 90), (3, 9, 10.5), (4, 3, 0)]))
    none = tmp_path / "none.swf"
    none.write_text("1 0 0 10 1 -1 -1 1 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n")
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [made, none])
    out = wla("quality", archive=tmp_path / "a.duckdb")
    assert out.status == 0, out.err
    part = out.out.split("dependencies (fields 17 and 18; think times in seconds):\n")[1].split("\n\n")[0]
    head, row, line = part.splitlines()
    assert head.split() == ["name", "with_pred", "share", "not_in_log", "min", "q1", "median", "q3", "p90", "max"]
    # think times 0, 10.5, 90: quartiles 5.25, 10.5, 50.25, p90 74.1
    assert row.split() == ["made", "3", "75.0%", "1", "0", "5.25", "10.50", "50.25", "74.10", "90"]
    assert line == "none: no job has a preceding job"
    got = json.loads(wla("quality", "made", "--json", archive=tmp_path / "a.duckdb").out)[0]
    assert {k: got[k] for k in ("with_predecessor", "predecessor_share", "predecessor_missing", "think_median")} \
        == {"with_predecessor": 3, "predecessor_share": 0.75, "predecessor_missing": 1, "think_median": 10.5}


def test_quality_shows_the_papers_figures_counts_and_draws_them(tmp_path):
    # job 1 got what it asked for, job 2 fewer processors, job 3 four times as many
    # and failed within 5 s; job 4 was cancelled
    made = tmp_path / "made.swf"
    made.write_text("".join(f"{j} {j * 100} 0 {r} {p} -1 -1 {q} 60 -1 {s} 1 -1 -1 -1 -1 -1 -1\n"
                            for j, r, p, q, s in [(1, 10, 4, 4, 1), (2, 20, 2, 4, 1), (3, 3, 16, 4, 0),
                                                  (4, 5, 1, 1, 5)]))
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [made])
    out = wla("quality", "--plot-dir", tmp_path / "figs", archive=tmp_path / "a.duckdb")
    assert out.status == 0, out.err
    part = out.out.split("the paper's figures")[1].splitlines()
    assert part[1].split() == ["name", "procs&req", "fewer", "as_req", "x4", "req_time_0", "r_size_run"]
    assert part[2].split()[:9] == ["made", "4", "1", "25%", "2", "50%", "1", "25%", "0"]
    status = out.out.split("status; gaps")[1].splitlines()[2].split()
    assert status[:9] == ["made", "2", "50%", "1", "25%", "1", "1", "25%", "0"]
    kinds = ("requests", "inter_starts", "requested_time", "size_run")
    assert out.err.splitlines()[-4:] == [f"drew {tmp_path / 'figs' / f'made-{k}.png'}" for k in kinds]
    got = json.loads(wla("quality", "--json", archive=tmp_path / "a.duckdb").out)[0]
    assert {k: got[k] for k in ("procs_under_requested", "procs_four_times", "failed_within_5s", "cancelled")} \
        == {"procs_under_requested": 1, "procs_four_times": 1, "failed_within_5s": 1, "cancelled": 1}
