"""The one-line warning of simulate, resample, stats and validate, and
--json's warnings, on NASA iPSC (arrivals that are start times, said by its
header): on the head of the original log and its versions, on the cleaned
log; none on SDSC-SP2."""
from __future__ import annotations

import json

import pytest
from cli_run import wla
from real_logs import data_dir
from versions_example import LOG, build
from wla.archive import open as open_archive
from wla.archive.analysis.diagnosis.warnings import log_warnings
from wla.archive.store.ingest import ingest

NASA = "NASA-iPSC-1993-3.1-cln"
SAYS = "arrival times are start times ({}): its arrivals, waits and slowdowns cannot be studied"


@pytest.fixture(scope="module")
def nasa(tmp_path_factory):
    path = tmp_path_factory.mktemp("warnings") / "a.duckdb"
    build(path)  # the head of the original log, v1 and v2
    with open_archive(path, write=True) as a:
        [r] = ingest(a, [data_dir() / f"{NASA}.swf.gz"])
        assert r.status == "ingested"
    return path


def _warned(run) -> list[str]:
    assert run.status == 0, run.err
    return [line.removeprefix("wla: warning: ") for line in run.err.splitlines() if line.startswith("wla: warning: ")]


@pytest.mark.parametrize("name", [LOG, f"{LOG}@v1", f"{LOG}@v2"])
def test_simulate_warns_in_one_line_and_in_json_and_a_version_inherits_it(nasa, name):
    line = f"{name}: {SAYS.format('header')}"
    assert _warned(wla("simulate", name, archive=nasa)) == [line]
    run = wla("simulate", name, "--json", archive=nasa)
    assert json.loads(run.out)["warnings"] == [line] and _warned(run) == [line]


def test_stats_resample_and_validate_warn(nasa):
    line = f"{NASA}: {SAYS.format('header and data')}"
    assert _warned(wla("stats", NASA, archive=nasa)) == [line]
    assert json.loads(wla("stats", NASA, "--json", archive=nasa).out)["warnings"] == [line]
    made = wla("resample", NASA, "--weeks", "4", "--seed", "1", "--name", "nasa-r", "--json", archive=nasa)
    assert json.loads(made.out)["warnings"] == [line] and _warned(made) == [line]
    # the resampled log inherits its source's warning
    assert _warned(wla("simulate", "nasa-r", archive=nasa)) == [f"nasa-r: resampled from {line}"]
    checked = wla("validate", NASA, "--runs", "2", "--weeks", "4", "--workers", "1", "--json", archive=nasa)
    warnings = json.loads(checked.out)["warnings"]
    assert warnings[0] == line and _warned(checked) == warnings  # then validate's own, if any


def test_no_warning_on_sdsc_sp2(sp2_archive_file):
    run = wla("simulate", "SDSC-SP2-1998-4.2-cln", "--json", archive=sp2_archive_file)
    assert json.loads(run.out)["warnings"] == [] and _warned(run) == []
    stats = wla("stats", "SDSC-SP2-1998-4.2-cln", "--json", archive=sp2_archive_file)
    assert json.loads(stats.out)["warnings"] == [] and _warned(stats) == []


def test_a_resampled_log_is_not_judged_by_its_own_waits(sp2_archive_file, tmp_path):
    """Its jobs keep their waits in the log beside other users' jobs, so the
    processors they would hold together exceed the machine: the detector
    says non-dedicated on its data, yet the log it came from warns of
    nothing, and neither does it."""
    from wla.archive.analysis.diagnosis.warnings import _read, findings
    from wla.archive.store.catalog import log_facts

    path = tmp_path / "a.duckdb"
    path.write_bytes(sp2_archive_file.read_bytes())
    made = wla("resample", "SDSC-SP2-1998-4.2-cln", "--weeks", "26", "--seed", "1", "--name", "r", "--json",
               archive=path)
    assert made.status == 0 and json.loads(made.out)["warnings"] == []
    with open_archive(path) as a:
        assert [f.detector for f in findings(_read(a, log_facts(a, "r")))] == ["non_dedicated"]
        assert log_warnings(a, "r") == []
    assert _warned(wla("simulate", "r", archive=path)) == []
