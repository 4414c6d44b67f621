"""`wla simulate` and `wla esp`: what they print and store, checked against
SQL over the archive and against the Python API given the same options."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import duckdb
import numpy as np
import pandas as pd
import pytest
from real_logs import ROOT, data_dir
from typer.testing import CliRunner
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.store.ingest import ingest
from wla.cli.main import app, main
from wla.sim import from_archive, simulate
from wla.sim.esp import EXAMPLE_MIX
from wla.sim.save import parquet_settings, saved_settings

LOG = "SDSC-SP2-1998-4.2-cln"
VERSION = "wla1"
RECIPE = ROOT / "schema" / "recipes" / f"{LOG}.toml"
QUERY = f"SELECT * FROM typed_jobs WHERE log = '{LOG}' ORDER BY line_no"
SCHEDULE_COLUMNS = ["job", "submit", "start_time", "end_time", "processors", "estimate", "measured"]

# Jobs of a log (or version) the simulator cannot replay on its machine, by
# the first reason that applies.
LEFT_OUT = """
SELECT count(*) FILTER (WHERE j.run <= 0) AS "unknown or zero run time",
       count(*) FILTER (WHERE j.run > 0 AND j.procs <= 0 AND j.req_procs <= 0) AS "unknown processors",
       count(*) FILTER (WHERE j.run > 0 AND (j.procs > 0 OR j.req_procs > 0) AND j.submit < 0)
           AS "unknown or negative submit time",
       count(*) FILTER (WHERE j.run > 0 AND (j.procs > 0 OR j.req_procs > 0) AND j.submit >= 0
                        AND (CASE WHEN j.procs > 0 THEN j.procs ELSE j.req_procs END) > l.machine_size)
           AS "more processors than the machine",
       count(*) AS jobs
FROM jobs AS j JOIN logs AS l USING (log_id)
WHERE l.name = ?
"""

runner = CliRunner()


@pytest.fixture(scope="module")
def archive_file(tmp_path_factory):
    """SDSC-SP2 and its worked cleaned version."""
    path = tmp_path_factory.mktemp("sim") / "a.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [data_dir() / f"{LOG}.swf.gz"])
        clean(a, RECIPE)
    return path


def _left_out(archive_file, name: str = LOG) -> tuple[int, dict[str, int]]:
    with open_archive(archive_file) as a:
        row = a.con.execute(LEFT_OUT, [name]).df().iloc[0].to_dict()
    jobs = int(row.pop("jobs"))
    return jobs, {k: int(v) for k, v in row.items()}


def _invoke(archive_file, *args: str):
    return runner.invoke(app, ["--archive", str(archive_file), *args])


def _fails(monkeypatch, capsys, *args: str) -> str:
    """Run the `wla` entry point in-process; it must exit 1 with one line
    on stderr and nothing on stdout. Returns that line."""
    monkeypatch.setattr(sys, "argv", ["wla", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    out = capsys.readouterr()
    assert exit_.value.code == 1, out
    assert out.out == ""
    assert out.err.startswith("wla: ") and out.err.count("\n") == 1, out.err
    assert "Traceback" not in out.err
    return out.err


# -- wla simulate ---------------------------------------------------------------------


def test_simulate_prints_what_ran_what_was_left_out_and_the_metrics(archive_file):
    jobs, left = _left_out(archive_file)
    out = _invoke(archive_file, "simulate", LOG)
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert lines[0].startswith(f"{LOG}: EASY on 128 processors (MaxProcs)")
    assert "estimates user, overrun truncate" in lines[0]
    simulated = jobs - sum(left.values())
    assert lines[1] == f"jobs {jobs:,}: simulated {simulated:,}; not simulated: " \
        f"{left['unknown or zero run time']:,} unknown or zero run time"
    assert lines[2].startswith("measured ")
    for label in ("wait (s)", "response (s)", "bounded slowdown"):
        row = [line for line in lines if line.startswith(label)]
        assert len(row) == 1 and len(row[0].split()) == len(label.split()) + 3, label
    assert any(line.startswith("utilization ") and "of the machine" in line for line in lines)
    assert any(line.startswith("throughput ") and "makespan" in line for line in lines)
    assert any(line.startswith("settings: ") and "warmup=0.01" in line for line in lines)
    assert out.stderr == ""


def test_simulate_json_equals_the_python_api(archive_file):
    options = ["--policy", "fcfs", "--estimate", "exact", "--exclude", "user=24", "--warmup", "0.02",
               "--tau", "30"]
    out = _invoke(archive_file, "simulate", LOG, "--json", *options)
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    assert got.pop("warnings") == []  # the command's own: the log's (none on SDSC-SP2)
    with open_archive(archive_file) as a:
        result = simulate(from_archive(a, LOG, exclude="user=24"), policy="fcfs", estimate="exact",
                          warmup=0.02, tau=30.0)
    assert got == json.loads(result.to_json())
    jobs, left = _left_out(archive_file)
    assert got["counts"]["jobs"] == jobs
    assert got["counts"]["not_simulated"] == left
    assert got["counts"]["simulated"] == jobs - sum(left.values())
    assert got["counts"]["not_measured"]["excluded (predicate or rare behavior)"] > 0
    assert got["settings"]["policy"] == "fcfs" and got["settings"]["exclude"] == "user=24"
    assert got["source"] == {"log": LOG, "procs_from": "MaxProcs"}


def test_check_reports_a_valid_schedule_on_stderr(archive_file):
    out = _invoke(archive_file, "simulate", LOG, "--check", "--json")
    assert out.exit_code == 0, out.output
    assert out.stderr.strip() == "schedule checked: valid"
    assert json.loads(out.stdout)["settings"]["checked"] is True


def test_a_version_is_simulated_like_a_log(archive_file):
    name = f"{LOG}@{VERSION}"
    jobs, left = _left_out(archive_file, name)
    with open_archive(archive_file) as a:
        stored = a.con.execute("SELECT jobs FROM logs WHERE name = ?", [name]).fetchone()[0]
        original = a.con.execute("SELECT jobs FROM logs WHERE name = ?", [LOG]).fetchone()[0]
    assert jobs == stored < original
    out = _invoke(archive_file, "simulate", LOG, "--version", VERSION, "--json")
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    assert got["source"] == {"log": name, "procs_from": "MaxProcs"}
    assert got["counts"]["jobs"] == jobs
    assert got["counts"]["simulated"] == jobs - sum(left.values())
    assert got["counts"]["not_simulated"] == left
    assert got["settings"]["procs"] == 128


def test_a_query_is_simulated_like_the_log(archive_file):
    out = _invoke(archive_file, "simulate", "--query", QUERY, "--json")
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    by_log = json.loads(_invoke(archive_file, "simulate", LOG, "--json").stdout)
    assert got["source"] == {"query": QUERY, "procs_from": "MaxProcs"}
    assert got["counts"] == by_log["counts"]
    assert got["metrics"] == by_log["metrics"]
    text = _invoke(archive_file, "simulate", "--query", QUERY)
    assert text.exit_code == 0 and text.stdout.startswith("query: EASY on 128 processors")


def test_a_query_over_no_single_log_takes_procs(archive_file):
    query = "SELECT job, submit, run, procs, req_procs, req_time, user_id FROM typed_jobs " \
            f"WHERE log = '{LOG}' ORDER BY line_no"
    out = _invoke(archive_file, "simulate", "--query", query, "--procs", "128", "--json")
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    assert got["source"] == {"query": query, "procs_from": "given"}
    by_log = json.loads(_invoke(archive_file, "simulate", LOG, "--json").stdout)
    assert got["counts"] == by_log["counts"] and got["metrics"] == by_log["metrics"]


# -- --save -----------------------------------------------------------------------------


def test_save_stores_the_schedule_with_its_settings(archive_file):
    jobs, left = _left_out(archive_file)
    out = _invoke(archive_file, "simulate", LOG, "--save", "easy_run", "--json")
    assert out.exit_code == 0, out.output
    assert out.stderr.strip() == "schedule saved to easy_run"
    summary = json.loads(out.stdout)
    assert summary.pop("warnings") == []
    with open_archive(archive_file) as a:
        columns = a.con.execute("SELECT column_name FROM information_schema.columns "
                                "WHERE table_name = 'easy_run' ORDER BY ordinal_position").fetchall()
        table = a.con.execute("SELECT * FROM easy_run").df()
        comment = a.con.execute("SELECT comment FROM duckdb_tables() WHERE table_name = 'easy_run'").fetchone()[0]
        stored = saved_settings(a, "easy_run")
        simulated_jobs = a.con.execute(
            "SELECT job FROM jobs JOIN logs USING (log_id) WHERE name = ? AND run > 0 ORDER BY line_no",
            [LOG]).df().job
    assert [c for (c,) in columns] == SCHEDULE_COLUMNS
    assert len(table) == jobs - sum(left.values()) == len(simulated_jobs)
    assert np.array_equal(table.job.to_numpy(), simulated_jobs.to_numpy())
    assert int(table.measured.sum()) == summary["counts"]["measured"]
    assert (table.start_time >= table.submit).all() and (table.end_time > table.start_time).all()
    assert json.loads(comment) == stored == summary
    assert stored["settings"]["policy"] == "easy"


def test_saving_again_replaces_the_table(archive_file):
    for policy in ("easy", "fcfs"):
        out = _invoke(archive_file, "simulate", LOG, "--policy", policy, "--save", "replaced")
        assert out.exit_code == 0, out.output
    with open_archive(archive_file) as a:
        assert a.con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'replaced'").fetchone()[0] == 1
        n = a.con.execute("SELECT count(*) FROM replaced").fetchone()[0]
        settings = saved_settings(a, "replaced")["settings"]
        fcfs = simulate(from_archive(a, LOG), policy="fcfs")
        table = a.con.execute("SELECT * FROM replaced").df()
    assert settings["policy"] == "fcfs"
    assert n == len(fcfs.job)
    assert np.array_equal(table.start_time.to_numpy(), fcfs.start)


def test_a_schedule_is_found_under_the_name_it_was_saved_as(archive_file):
    for name, policy in (("Mixed_Run", "easy"), ("mixed_run", "fcfs")):
        out = _invoke(archive_file, "simulate", LOG, "--policy", policy, "--save", name)
        assert out.exit_code == 0, out.output
    with open_archive(archive_file) as a:
        tables = a.con.execute("SELECT count(*) FROM duckdb_tables() WHERE lower(table_name) = 'mixed_run'")
        assert tables.fetchone()[0] == 1  # one table, replaced
        assert a.con.execute("SELECT count(*) FROM Mixed_Run").fetchone()[0] > 0  # SQL finds it by either name
        assert saved_settings(a, "mixed_run")["settings"]["policy"] == "fcfs"
        assert saved_settings(a, "Mixed_Run")["settings"]["policy"] == "fcfs"


def test_an_empty_save_name_is_refused(archive_file, monkeypatch, capsys):
    err = _fails(monkeypatch, capsys, "--archive", str(archive_file), "simulate", LOG, "--save", "")
    assert "table name" in err


@pytest.mark.parametrize("name", ["jobs", "logs", "typed_jobs", "Jobs"])
def test_saving_over_the_archive_is_refused(archive_file, monkeypatch, capsys, name):
    with open_archive(archive_file) as a:
        before = a.con.execute("SELECT count(*) FROM jobs").fetchone()[0]
    err = _fails(monkeypatch, capsys, "--archive", str(archive_file), "simulate", LOG, "--save", name)
    assert "of the archive itself" in err
    with open_archive(archive_file) as a:
        assert a.con.execute("SELECT count(*) FROM jobs").fetchone()[0] == before
        assert a.con.execute("SELECT count(*) FROM logs").fetchone()[0] == 2


def test_save_parquet_writes_the_schedule_and_its_settings(archive_file, tmp_path):
    path = tmp_path / "s.parquet"
    out = _invoke(archive_file, "simulate", LOG, "--save", str(path), "--json")
    assert out.exit_code == 0, out.output
    summary = json.loads(out.stdout)
    assert summary.pop("warnings") == []
    rows = duckdb.execute("SELECT * FROM read_parquet(?)", [str(path)]).df()
    assert rows.columns.tolist() == SCHEDULE_COLUMNS
    with open_archive(archive_file) as a:
        result = simulate(from_archive(a, LOG))
        jobs = a.con.execute(
            "SELECT job, submit, CASE WHEN procs > 0 THEN procs ELSE req_procs END AS width,"
            " CASE WHEN req_time > 0 THEN req_time ELSE run END AS estimate, run"
            " FROM jobs JOIN logs USING (log_id) WHERE name = ? AND run > 0 ORDER BY line_no", [LOG]).df()
    pd.testing.assert_frame_equal(rows, result.schedule(), check_dtype=False)
    assert len(rows) == summary["counts"]["simulated"] == len(jobs)
    assert np.array_equal(rows.job, jobs.job) and np.array_equal(rows.submit, jobs.submit)
    assert np.array_equal(rows.processors, jobs.width) and np.array_equal(rows.estimate, jobs.estimate)
    held = np.minimum(jobs.run, jobs.estimate)  # killed at the estimate
    np.testing.assert_allclose(rows.end_time - rows.start_time, held, rtol=1e-12, atol=1e-6)
    assert parquet_settings(path) == summary


def test_save_keeps_a_query_with_quotes_intact(archive_file, tmp_path):
    path = tmp_path / "q.parquet"
    out = _invoke(archive_file, "simulate", "--query", QUERY, "--save", str(path))
    assert out.exit_code == 0, out.output
    assert parquet_settings(path)["source"]["query"] == QUERY
    out = _invoke(archive_file, "simulate", "--query", QUERY, "--save", "by_query")
    assert out.exit_code == 0, out.output
    with open_archive(archive_file) as a:
        assert saved_settings(a, "by_query")["source"]["query"] == QUERY


# -- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("args, says", [
    (["--query", QUERY, "--version", VERSION], "--version applies to a log"),
    ([], "give a log to simulate, or --query"),
    ([LOG, "--query", QUERY], "not both"),
    ([LOG, "--version", "nope"], f"no version 'nope' of {LOG}; its versions: {VERSION}"),
    ([f"{LOG}@{VERSION}", "--version", "original"], f"{LOG}@{VERSION} names version {VERSION} and the version "
                                                     "given is original; give one"),
    (["nope@v1"], "no log named 'nope'"),
    ([LOG, "--policy", "sjf"], "unknown policy 'sjf'"),
    ([LOG, "--estimate", "last:0"], "'0'"),
    ([LOG, "--estimate", "badness:-1"], "'-1'"),
    ([LOG, "--estimate", "foo"], "unknown estimate 'foo'"),
    ([LOG, "--overrun", "ignore"], "unknown overrun mode 'ignore'"),
    ([LOG, "--load-factor", "-1"], "--load-factor must be a number in [1e-06, 1,000,000], not -1.0"),
    ([LOG, "--load-factor", "0"], "--load-factor must be a number in [1e-06, 1,000,000], not 0.0"),
    ([LOG, "--warmup", "1.5"], "--warmup must be a number in [0, 1), not 1.5"),
    ([LOG, "--tau", "0"], "--tau must be a finite number > 0, not 0.0"),
    ([LOG, "--procs", "0"], "--procs must be a whole number from 1 to 2,147,483,647, not 0"),
    ([LOG, "--exclude", "usr=24"], "unknown field 'usr'"),
    (["--query", "SELECT submit, run, procs FROM typed_jobs"], "--procs"),
    (["--query", f"SELECT log, submit, procs FROM typed_jobs WHERE log = '{LOG}'"], "lacks run"),
    (["--query", "DELETE FROM jobs"], "read-only"),
])
def test_simulate_errors_are_one_line(archive_file, monkeypatch, capsys, args, says):
    err = _fails(monkeypatch, capsys, "--archive", str(archive_file), "simulate", *args)
    assert says in err, err


def test_the_installed_command_fails_with_one_line(archive_file):
    run = subprocess.run([sys.executable, "-m", "wla.cli.main", "--archive", str(archive_file),
                          "simulate", LOG, "--warmup", "1.5"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.startswith("wla: ") and run.stderr.count("\n") == 1 and "--warmup" in run.stderr


# -- wla esp -----------------------------------------------------------------------------------


def _mix_work(P: int) -> tuple[int, float]:
    """Jobs and processor-seconds of the example mix on P processors, from the CSV."""
    mix = pd.read_csv(EXAMPLE_MIX)
    width = np.maximum(1, np.floor(mix.fraction * P + 0.5))
    return int(mix["count"].sum()), float((mix["count"] * width * mix.run).sum())


def test_esp_prints_both_efficiencies():
    out = runner.invoke(app, ["esp", "--procs", "128", "--full-at", "2400", "--full-at", "3600"])
    assert out.exit_code == 0, out.output
    js = runner.invoke(app, ["esp", "--procs", "128", "--full-at", "2400", "--full-at", "3600", "--json"])
    esp = json.loads(js.stdout)["esp"]
    rows = [line.split() for line in out.stdout.splitlines() if line.startswith("efficiency")]
    assert [r[1] for r in rows if r[1] not in ("(MWF", "(sum")] == [f"{100 * esp['efficiency']:.2f}%"]  # a fraction
    assert [r[3] for r in rows if r[1:3] == ["(sum", "T_pi)"]] == [f"{100 * esp['by_processor']:.2f}%"]
    assert [r[3] for r in rows if r[1:3] == ["(MWF", "IAE)"]] == [f"{100 * esp['corrected']:.2f}%"]


def test_esp_json_scores_recomputed_from_its_numbers():
    out = runner.invoke(app, ["esp", "--procs", "128", "--full-at", "2400", "--full-at", "3600", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    esp, P = got["esp"], 128
    jobs, work = _mix_work(P)
    assert got["counts"]["simulated"] == jobs == 82
    assert math.isclose(esp["work"], work, rel_tol=1e-12)
    assert math.isclose(esp["efficiency"], esp["work"] / (P * esp["elapsed"]), rel_tol=1e-12)
    assert math.isclose(esp["corrected"], esp["work"] / (P * esp["elapsed"] - esp["idle_at_end"]), rel_tol=1e-12)
    assert 0 < esp["efficiency"] <= esp["corrected"] <= 1
    assert math.isclose(esp["by_processor"], esp["work"] / esp["busy_span"], rel_tol=1e-12)
    assert esp["busy_span"] <= P * esp["elapsed"]
    # Every job is measured, up to the last end: elapsed is the makespan and
    # the utilization is the efficiency.
    assert got["settings"]["warmup"] == 0 and got["settings"]["stop_at_last_arrival"] is False
    assert math.isclose(esp["elapsed"], got["metrics"]["makespan"], rel_tol=1e-12)
    assert math.isclose(esp["efficiency"], got["metrics"]["utilization"], rel_tol=1e-12)
    assert got["counts"]["measured"] == jobs
    assert esp["elapsed"] >= 3600 + 100  # the last full-machine job arrives at 3600 and runs 100 s
    # The second full-machine job arrives at 3600 and runs 100 s: it ends no
    # earlier than 3700 s after the start; the rule compares that to 0.9 T.
    assert esp["second_full_end"] >= 3700
    assert math.isclose(esp["second_full_limit"], 0.9 * esp["elapsed"], rel_tol=1e-12)
    assert esp["second_full_in_time"] == (esp["second_full_end"] <= esp["second_full_limit"])


def test_esp_seeds_gives_the_distribution_of_the_runs_it_lists():
    args = ["esp", "--procs", "64", "--full-at", "2400", "--full-at", "3600", "--seed", "3", "--seeds", "4"]
    got = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert got["seeds"] == [3, 6] and [r["seed"] for r in got["runs"]] == [3, 4, 5, 6]
    values = [r["efficiency"] for r in got["runs"]]
    assert math.isclose(got["distribution"]["efficiency"]["mean"], sum(values) / 4, rel_tol=1e-12)
    assert got["distribution"]["efficiency"]["max"] == max(values)
    out = runner.invoke(app, args)
    assert out.exit_code == 0, out.output
    row = next(line.split() for line in out.stdout.splitlines() if line.startswith("P x T "))
    assert row[3] == f"{100 * sum(values) / 4:.2f}"


def test_esp_two_stage_gives_each_class_its_waits():
    args = ["esp", "--procs", "64", "--full-at", "2400", "--full-at", "3600", "--two-stage"]
    got = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    one, two = got["without_priority"], got["full_first"]
    assert one["waits"]["full"]["jobs"] == two["waits"]["full"]["jobs"] == 2
    assert two["waits"]["full"]["max"] <= one["waits"]["full"]["max"]
    out = runner.invoke(app, args)
    assert out.exit_code == 0 and "2: full jobs first" in out.stdout
    err = runner.invoke(app, [*args, "--seeds", "2"])
    assert err.exit_code != 0


def test_esp_without_full_at_names_the_option(monkeypatch, capsys):
    err = _fails(monkeypatch, capsys, "esp", "--procs", "128")
    assert "--full-at" in err
    err = _fails(monkeypatch, capsys, "esp", "--procs", "128", "--full-at", "2400")
    assert "--full-at" in err and "2 full-machine" in err
