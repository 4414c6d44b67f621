"""The command line through one Context: every spelling of a log or version,
-a over $WLA_ARCHIVE, a missing archive left missing, the archive closed
while a read-only command computes; and its output through the presenters:
--json of the reports equal to the Python data, flags that are flags,
`wla --version`, the help in the order of the work."""
from __future__ import annotations

import importlib
import json
import math
import subprocess
import sys

import pandas as pd
import pytest
from cli_run import wla
from real_logs import data_dir, pandas_log
from versions_example import LOG, V1, build
from wla.archive import open as open_archive
from wla.archive.analysis.caveats import known_issues
from wla.archive.clean.rules import load_rules
from wla.archive.clean.versions import steps, versions, why
from wla.archive.context import ENV_PATH
from wla.archive.store.catalog import catalog, log_info

OTHER = "ANL-Intrepid-2009-1-head10"


@pytest.fixture(scope="module")
def archive_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli-context") / "a.duckdb"
    build(path)
    return path


def _ok(*args, archive=None) -> str:
    run = wla(*args, archive=archive)
    assert run.status == 0, (args, run.err)
    return run.out


def _json(*args, archive=None):
    return json.loads(_ok(*args, "--json", archive=archive))


# -- names --------------------------------------------------------------------------------------


def test_simulate_takes_every_spelling_of_a_version(archive_file):
    jobs = pandas_log(LOG)
    by_name = _json("simulate", f"{LOG}@v1", archive=archive_file)
    assert by_name == _json("simulate", LOG, "--version", "v1", archive=archive_file)
    assert by_name == _json("simulate", LOG, "-v", f"{LOG}@v1", archive=archive_file)
    assert by_name["source"]["log"] == f"{LOG}@v1"
    assert by_name["counts"]["jobs"] == int((jobs.user != 4).sum())
    original = _json("simulate", LOG, "--version", "original", archive=archive_file)
    assert original == _json("simulate", LOG, archive=archive_file)
    assert original["source"]["log"] == LOG and original["counts"]["jobs"] == len(jobs)


def test_every_command_resolves_names_one_way(archive_file, tmp_path):
    v1 = f"{LOG}@v1"
    assert _ok("recipe", v1, archive=archive_file) == _ok("recipe", LOG, "v1", archive=archive_file) == V1
    assert _ok("provenance", v1, archive=archive_file) == _ok("provenance", LOG, "v1", archive=archive_file)
    assert _ok("versions", v1, archive=archive_file) == _ok("versions", LOG, "-v", "v1", archive=archive_file)
    assert _ok("info", v1, archive=archive_file) == _ok("info", LOG, "--version", "v1", archive=archive_file)
    assert _ok("quality", v1, "--json", archive=archive_file) == _ok("quality", f"{LOG}@v1", "--json",
                                                                       archive=archive_file)
    a, b = tmp_path / "a.swf", tmp_path / "b.swf"
    _ok("export", v1, "-o", a, archive=archive_file)
    _ok("export", LOG, "--version", "v1", "-o", b, archive=archive_file)
    jobs = pandas_log(LOG)
    lines = [line for line in a.read_text().splitlines() if line.strip() and not line.startswith(";")]
    assert a.read_bytes() == b.read_bytes() and len(lines) == int((jobs.user != 4).sum())
    job = int(jobs.job[jobs.user == 4].iloc[0])
    assert _ok("why", LOG, job, "--version", "original", archive=archive_file) == \
        f"job {job} has no versions to be in\n"
    assert _ok("flurries", LOG, "-v", "v1", "--json", archive=archive_file) == \
        _ok("flurries", v1, "--json", archive=archive_file)


@pytest.mark.parametrize("args, says", [
    (["simulate", f"{LOG}@v1", "--version", "v2"], f"wla: {LOG}@v1 names version v1 and the version given is v2"),
    (["info", LOG, "-v", "v9"], f"wla: no version 'v9' of {LOG}; its versions: v1, v2"),
    (["recipe", LOG], f"wla: {LOG} is the original log, not a version; name a version (its versions: v1, v2)"),
    (["publish", LOG, "original", "-o", "x.swf"], f"wla: {LOG} is the original log, not a version"),
    (["simulate", "nope"], f"wla: no log named 'nope'; the archive holds: {LOG}"),
    (["versions", "-v", "v1"], "wla: --version needs the log it is a version of"),
])
def test_names_that_do_not_resolve_are_one_line(archive_file, args, says):
    assert wla(*args, archive=archive_file).one_error_line().startswith(says)


# -- which archive ----------------------------------------------------------------------------------


def test_a_given_archive_wins_over_the_environment_for_writes_and_reads(monkeypatch, tmp_path):
    env, given = tmp_path / "env.duckdb", tmp_path / "given.duckdb"
    monkeypatch.setenv(ENV_PATH, str(env))
    _ok("ingest", data_dir() / f"{OTHER}.swf.gz")  # no -a: the environment's
    _ok("ingest", data_dir() / f"{LOG}.swf.gz", archive=given)  # -a before the command
    _ok("set", LOG, "max-procs", "64", "-a", given)  # -a after it
    with open_archive(env) as a:
        assert a.log_names() == [OTHER]
    with open_archive(given) as a:
        assert a.log_names() == [LOG]
        assert a.con.execute("SELECT machine_size FROM logs").fetchall() == [(64,)]
    assert [r["name"] for r in _json("ls", archive=given)] == [LOG]
    assert [r["name"] for r in _json("ls", "-a", given)] == [LOG]
    assert [r["name"] for r in _json("ls")] == [OTHER]
    # given twice: the one after the command name
    assert [r["name"] for r in _json("ls", "-a", env, archive=given)] == [OTHER]


@pytest.mark.parametrize("args", [["ls"], ["info", LOG], ["sql", "SELECT 1"], ["quality"], ["versions"],
                                  ["why", LOG, "1"], ["simulate", LOG], ["flurries", LOG],
                                  ["set", LOG, "max-procs", "8"], ["publish", LOG, "v1", "-o", "x.swf"]])
def test_a_missing_archive_is_one_line_and_stays_missing(monkeypatch, tmp_path, archive_file, args):
    monkeypatch.setenv(ENV_PATH, str(archive_file))  # an archive that does exist is not used instead
    missing = tmp_path / "missing.duckdb"
    line = wla(*args, archive=missing).one_error_line()
    assert line == f"wla: no archive at {missing} (ingest a log to create one)"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_ingest_writes_while_a_simulation_computes(monkeypatch, tmp_path):
    """The simulator runs with the archive closed: another process ingests
    meanwhile, which a reader's open connection would lock out."""
    module = importlib.import_module("wla.sim.simulate")  # wla.sim.simulate is also the function

    path = tmp_path / "a.duckdb"
    build(path)
    real, writes = module.simulate, []

    def computing(*args, **kwargs):
        writes.append(subprocess.run([sys.executable, "-m", "wla.cli.main", "-a", str(path), "ingest",
                                      str(data_dir() / f"{OTHER}.swf.gz")],
                                     capture_output=True, text=True, timeout=300))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "simulate", computing)
    out = _json("simulate", f"{LOG}@v1", archive=path)
    [ingest] = writes
    assert ingest.returncode == 0, ingest.stderr
    assert ingest.stdout.startswith(f"ingested  {OTHER}: 10 jobs")
    assert out["source"]["log"] == f"{LOG}@v1"
    with open_archive(path) as a:
        assert OTHER in a.log_names()


def test_capacity_computes_with_the_archive_closed(monkeypatch, archive_file):
    """The same, in-process: a writer opens the file during the computation."""
    import wla.archive.analysis.capacity as module
    from wla.archive.context import Context

    real, opened = module.capacity_report, []

    def computing(*args, **kwargs):
        with Context(archive_file).writing() as a:  # refused if this process still held a reader
            opened.append(a.writable)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "capacity_report", computing)
    _ok("capacity", LOG, "--no-solve", "--capacity", "128", archive=archive_file)
    assert opened == [True]


# -- presenters ----------------------------------------------------------------------------------------


def _same(shown, value) -> bool:
    """A JSON value against the Python one: days as YYYY-MM-DD, instants as ISO
    8601, NULL and NaN as null."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NaT:
        return shown is None
    if isinstance(value, pd.Timestamp):
        return shown in (value.strftime("%Y-%m-%d"), value.isoformat())
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float):
        return math.isclose(shown, value, rel_tol=1e-15)
    return shown == value


def _rows_equal(shown: list[dict], frame: pd.DataFrame) -> None:
    assert len(shown) == len(frame)
    for got, row in zip(shown, frame.to_dict("records")):
        assert list(got) == list(row)
        for key, value in row.items():
            assert _same(got[key], value), (key, got[key], value)


def test_ls_json_is_the_catalog(archive_file):
    with open_archive(archive_file) as a:
        frame = catalog(a)
    shown = _json("ls", archive=archive_file)
    _rows_equal(shown, frame)
    assert shown[0]["first_submit_date"] == "1993-10-01"  # as `wla ls` prints it


def test_info_json_is_the_log_info(archive_file):
    with open_archive(archive_file) as a:
        info = log_info(a, f"{LOG}@v2")
    shown = _json("info", f"{LOG}@v2", archive=archive_file)
    assert list(shown) == ["log", "summary", "header", "known_issues"]
    with open_archive(archive_file) as a:  # the original's known issues, whatever the version
        assert shown["known_issues"] == [i.to_dict() for i in known_issues(a, LOG)]
    for part in ("log", "summary"):
        assert list(shown[part]) == list(info[part])
        for key, value in info[part].items():
            assert _same(shown[part][key], value), (part, key)
    _rows_equal(shown["header"], info["header"])
    assert shown["log"]["jobs"] == int(((pandas_log(LOG).user != 4) & (pandas_log(LOG).user != 5)).sum())


def test_versions_json_lists_versions_and_steps(archive_file):
    with open_archive(archive_file) as a:
        listed, built = versions(a, LOG), steps(a, f"{LOG}@v2")
    shown = _json("versions", LOG, archive=archive_file)
    _rows_equal(shown, listed)
    assert [v["name"] for v in shown] == [f"{LOG}@v1", f"{LOG}@v2"]
    assert [v["built_from"] for v in shown] == [LOG, f"{LOG}@v1"]
    assert _json("versions", archive=archive_file) == shown
    _rows_equal(_json("versions", f"{LOG}@v2", archive=archive_file), built)


def test_why_json_is_every_decision(archive_file):
    jobs = pandas_log(LOG)
    job = int(jobs.job[jobs.user == 5].iloc[0])
    with open_archive(archive_file) as a:
        decisions, kept = why(a, LOG, job)
    shown = _json("why", LOG, job, archive=archive_file)
    assert list(shown) == ["job", "versions", "decisions"] and shown["job"] == job
    _rows_equal(shown["versions"], kept)
    _rows_equal(shown["decisions"], decisions)
    assert [(v["version"], v["kept"]) for v in shown["versions"]] == [(f"{LOG}@v1", True), (f"{LOG}@v2", False)]
    assert [(d["version"], d["action"], d["rule"]) for d in shown["decisions"]] == [(f"{LOG}@v2", "drop", "filter")]


def test_rules_json_is_every_rule(archive_file):
    found = load_rules()
    shown = _json("rules", archive=archive_file)
    assert [r["name"] for r in shown] == list(found)
    for r in shown:
        rule = found[r["name"]]
        assert (r["version"], r["fingerprint"], r["file"], r["rationale"]) == \
            (rule.version, rule.fingerprint, rule.file, rule.rationale)
        assert [p["name"] for p in r["params"]] == list(rule.params)
        for p in r["params"]:
            param = rule.params[p["name"]]
            assert (p["type"], p["required"], p["doc"]) == (param.type, param.required, param.doc)
            assert p["default"] == (None if param.required else param.default)
        assert (r["reads"], r["writes"]) == (list(rule.reads), list(rule.writes))
    assert _json("rules", "filter") == next(r for r in shown if r["name"] == "filter")
    where = next(p for p in shown[[r["name"] for r in shown].index("filter")]["params"] if p["name"] == "where")
    assert where == {"name": "where", "type": "predicate", "required": True, "default": None,
                     "doc": "the jobs to drop, e.g. user=374 and job>=1000 and job<=2000"}


def test_diff_json_has_every_row_whatever_the_limit(archive_file):
    jobs = pandas_log(LOG)
    shown = _json("diff", LOG, "original", "v1", "--limit", "1", archive=archive_file)
    assert [s["jobs"] for s in shown["summary"]] == [int((jobs.user == 4).sum())]
    assert sorted(d["job"] for d in shown["detail"]) == sorted(jobs.job[jobs.user == 4].astype(int))
