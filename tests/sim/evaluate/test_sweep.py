"""`wla sweep`: grids, the table of (point, run), its agreement with
shaking studies run point by point, resuming after Ctrl-C and kill -9, the
TOML form, and the plot."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from cli_run import wla
from wla.archive import open as open_archive
from wla.archive.kernel.errors import UsageError
from wla.sim import shake
from wla.sim.evaluate.grid import options_at, parse_grid, points
from wla.sim.evaluate.summary import METRIC_NAMES
from wla.sim.evaluate.sweep import sweep

LOG = "SDSC-SP2-1998-4.2-cln"


# -- grids ----------------------------------------------------------------------------------------

def test_a_load_range_gives_the_values_as_written():
    """0.5:0.95:0.01 is 46 loads, each the double of its decimal text (no
    drift from adding 0.01 45 times)."""
    name, values = parse_grid("load=0.5:0.95:0.01")
    assert name == "load" and len(values) == 46
    assert values == [float(f"0.{50 + i}") for i in range(46)]
    assert parse_grid("load=0.5,0.7")[1] == [0.5, 0.7]
    assert parse_grid("load=0.5:0.6:0.07")[1] == [0.5, 0.57]  # the steps stop before passing TO


def test_estimate_and_other_grids():
    assert parse_grid("estimate=last:1..30")[1] == [f"last:{k}" for k in range(1, 31)]
    assert parse_grid("estimate=user,exact,last:2..3")[1] == ["user", "exact", "last:2", "last:3"]
    assert parse_grid("badness=0:1:0.5")[1] == [0.0, 0.5, 1.0]
    assert options_at({"badness": 0.5, "load": 0.8}) == {"estimate": "badness:0.5", "load_factor": 0.8}
    assert parse_grid("procs=64,128")[1] == [64, 128]
    assert parse_grid("policy=easy, conservative")[1] == ["easy", "conservative"]


def test_grids_multiply_the_last_fastest():
    pts = points([("policy", ["easy", "fcfs"]), ("load", [0.5, 0.6, 0.7])])
    assert pts == [{"policy": p, "load": x} for p in ("easy", "fcfs") for x in (0.5, 0.6, 0.7)]


@pytest.mark.parametrize("text, words", [
    ("load", "NAME=VALUES"), ("speed=1,2", "not a parameter"), ("load=0.9:0.5:0.1", "FROM <= TO"),
    ("load=0.5:0.9:0", "STEP > 0"), ("load=a,b", "not a number"), ("procs=64.5", "whole number"),
    ("estimate=last:0..3", "last takes a whole number"), ("load=0:1:1e-7", "at most"),
])
def test_bad_grids_are_refused(text, words):
    with pytest.raises(UsageError, match=words):
        parse_grid(text)


# -- what a sweep computes ------------------------------------------------------------------------

def test_each_point_is_the_shaking_study_of_its_settings(sp2_workload):
    """Point by point, the sweep's rows are exactly the runs of a shaking
    study with that point's options and the same seed (run i is shaken the
    same way at every point)."""
    result = sweep(sp2_workload, [parse_grid("load=0.9,1.1"), parse_grid("policy=easy,fcfs")], runs=3, seed=4,
                   workers=1)
    t = result.table
    assert list(t.columns[:6]) == ["point", "load", "policy", "run", "seed", "shaken"]
    assert len(t) == 4 * 4 and list(t["run"]) == [0, 1, 2, 3] * 4
    for p, (load, policy) in enumerate([(0.9, "easy"), (0.9, "fcfs"), (1.1, "easy"), (1.1, "fcfs")]):
        study = shake(sp2_workload, runs=3, seed=4, workers=1, load_factor=load, policy=policy)
        rows = t[t["point"] == p]
        assert (rows["load"] == load).all() and (rows["policy"] == policy).all()
        for name in METRIC_NAMES:
            assert list(rows[name]) == list(study.runs[name]), (p, name)
        assert result.points[p]["metrics"]["wait_mean"] == study.summaries["wait_mean"]


def test_a_machine_grid_leaves_out_the_jobs_wider_than_each_machine(sp2_workload):
    result = sweep(sp2_workload, [("procs", [64, 128])], runs=0, workers=1)
    small = sweep(sp2_workload, [("procs", [64])], runs=0, workers=1).table
    assert result.table.iloc[0]["wait_mean"] == small.iloc[0]["wait_mean"]
    assert result.table.iloc[1]["wait_mean"] == shake(sp2_workload, runs=1, workers=1).runs.iloc[0]["wait_mean"]
    assert (sp2_workload.procs > 64).sum() > 0  # the smaller machine really drops jobs


def test_options_a_grid_sweeps_are_not_given_twice(sp2_workload):
    with pytest.raises(UsageError, match="^policy is swept by a grid"):
        sweep(sp2_workload, [("policy", ["easy"])], runs=0, policy="fcfs", workers=1)
    with pytest.raises(UsageError, match="policy"):
        sweep(sp2_workload, [("policy", ["easy", "best"])], runs=0, workers=1)


# -- the command ----------------------------------------------------------------------------------

def _sweep_args(out, *extra):
    return ["sweep", LOG, "--grid", "load=0.9,1.0", "--grid", "policy=easy,fcfs", "--runs", "3", "--seed", "2",
            "--workers", "1", "--save", str(out), *extra]


def test_the_command_stores_the_table_and_prints_each_point(sp2_archive_file, sp2_workload, tmp_path):
    out = tmp_path / "s.parquet"
    r = wla(*_sweep_args(out), "--metric", "wait_mean", archive=sp2_archive_file)
    assert r.status == 0, r.err
    table = pd.read_parquet(out)
    expected = sweep(sp2_workload, [("load", [0.9, 1.0]), ("policy", ["easy", "fcfs"])], runs=3, seed=2,
                     workers=1).table
    pd.testing.assert_frame_equal(table, expected, check_exact=True)
    assert not (tmp_path / "s.parquet.journal").exists()
    single = table[(table["point"] == 3) & (table["run"] == 0)]["wait_mean"].iloc[0]
    line = next(x for x in r.out.splitlines() if x.startswith("1.0 ") and "fcfs" in x)
    assert f"{single:,.0f}" in line
    assert "16 runs saved to" in r.err


def test_json_has_every_point_and_metric(sp2_archive_file, tmp_path):
    r = wla("sweep", LOG, "--grid", "load=0.9,1.0", "--runs", "2", "--workers", "1", "--json",
            archive=sp2_archive_file)
    assert r.status == 0, r.err
    data = json.loads(r.out)
    assert [p["load"] for p in data["points"]] == [0.9, 1.0]
    assert set(data["points"][0]["metrics"]) == set(METRIC_NAMES)
    assert data["settings"]["grids"] == {"load": [0.9, 1.0]}


def test_a_toml_sweep_is_the_command_line_sweep(sp2_archive_file, tmp_path):
    """The file's options and grids give the same table; the command line's
    options win over the file's."""
    config = tmp_path / "sweep.toml"
    config.write_text(f'log = "{LOG}"\nruns = 3\nseed = 2\n'
                      '[grid]\nload = [0.9, 1.0]\npolicy = "easy,fcfs"\n')
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    assert wla(*_sweep_args(a), archive=sp2_archive_file).status == 0
    r = wla("sweep", "--config", config, "--workers", "1", "--save", b, archive=sp2_archive_file)
    assert r.status == 0, r.err
    pd.testing.assert_frame_equal(pd.read_parquet(a), pd.read_parquet(b), check_exact=True)
    config.write_text(f'log = "{LOG}"\nruns = 5\n[grid]\nload = "0.9:1.0:0.1"\n')
    r = wla("sweep", "--config", config, "--runs", "1", "--workers", "1", "--json", archive=sp2_archive_file)
    assert r.status == 0, r.err
    assert json.loads(r.out)["settings"]["runs"] == 1
    config.write_text(f'log = "{LOG}"\npolicy = "fcfs"\n[grid]\npolicy = ["easy"]\n')
    assert "swept by a --grid" in wla("sweep", "--config", config, archive=sp2_archive_file).one_error_line()
    config.write_text('colour = "red"\n')
    assert "unknown keys colour" in wla("sweep", "--config", config, archive=sp2_archive_file).one_error_line()


def test_a_sweep_into_the_archive_resumes_from_its_journal(sp2_archive_file, tmp_path):
    r = wla("sweep", LOG, "--grid", "load=0.9,1.0", "--runs", "1", "--workers", "1", "--save", "loads",
            archive=sp2_archive_file)
    assert r.status == 0, r.err
    with open_archive(sp2_archive_file) as a:
        assert a.con.execute("SELECT count(*) FROM loads").fetchone()[0] == 4
    assert not any(p.name.endswith("sweep-journal") for p in sp2_archive_file.parent.iterdir())


# `wla sweep` in a real process whose runs after the first STOP_AFTER never
# end: however slow the machine, the signal finds it with exactly that many
# runs in its journal, part way.
STALLED = """
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # a test runner's child may inherit it ignored
import wla.sim.evaluate.sweep as sweep
real, done = sweep.sweep_run, [0]

def stalled(study, item):
    done[0] += 1
    while done[0] > int(os.environ["STOP_AFTER"]):
        time.sleep(0.02)
    return real(study, item)

sweep.sweep_run = stalled
from wla.cli.main import main
sys.argv = ["wla", *sys.argv[1:]]
main()
"""


def _run_until(args, sp2_archive_file, journal, runs, sig):
    """Start the sweep, stop it with `sig` once its journal holds `runs` runs."""
    env = {**os.environ, "WLA_PROGRESS": "0", "STOP_AFTER": str(runs)}
    proc = subprocess.Popen([sys.executable, "-c", STALLED, "-a", str(sp2_archive_file), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 300  # only turns a hang into a failure
        while proc.poll() is None and time.monotonic() < deadline:
            if journal.exists() and journal.read_text().count("\n") == 1 + runs:
                proc.send_signal(sig)
                break
            time.sleep(0.02)
        proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode


@pytest.mark.parametrize("sig", [signal.SIGKILL, pytest.param(signal.SIGINT, marks=pytest.mark.slow)],
                         ids=["kill-9", "ctrl-c"])
def test_an_interrupted_sweep_resumes_to_the_same_table(sp2_archive_file, tmp_path, sig):
    """Stopped part way, then resumed: no finished run is done again (each
    (point, run) is in the journal once) and the table is the uninterrupted
    sweep's, to the bit."""
    whole, cut = tmp_path / "whole.parquet", tmp_path / "cut.parquet"
    args = ["sweep", LOG, "--grid", "load=0.8:1.0:0.1", "--runs", "12", "--seed", "6", "--workers", "1"]
    assert wla(*args, "--save", whole, archive=sp2_archive_file).status == 0
    journal = tmp_path / "cut.parquet.journal"
    status = _run_until([*args, "--save", str(cut)], sp2_archive_file, journal, 10, sig)
    assert status == (130 if sig == signal.SIGINT else -signal.SIGKILL) and not cut.exists()
    finished = journal.read_text().count("\n") - 1
    assert finished == 10
    refused = wla(*args, "--save", cut, archive=sp2_archive_file).one_error_line()
    assert "--resume" in refused
    seen: list = []
    real_add = __import__("wla.sim.evaluate.journal", fromlist=["Journal"]).Journal.add

    def counting(self, point, run, values):
        seen.append((point, run))
        real_add(self, point, run, values)

    mp = pytest.MonkeyPatch()
    mp.setattr("wla.sim.evaluate.journal.Journal.add", counting)
    try:
        r = wla(*args, "--save", cut, "--resume", archive=sp2_archive_file)
    finally:
        mp.undo()
    assert r.status == 0, r.err
    assert len(seen) == 3 * 13 - finished and len(set(seen)) == len(seen)
    pd.testing.assert_frame_equal(pd.read_parquet(cut), pd.read_parquet(whole), check_exact=True)
    assert not journal.exists()


def test_journals_are_not_mixed_up(sp2_archive_file, tmp_path):
    out = tmp_path / "j.parquet"
    journal = tmp_path / "j.parquet.journal"
    assert "nothing to resume" in wla(*_sweep_args(out), "--resume", archive=sp2_archive_file).one_error_line()
    journal.write_text('{"format": "wla sweep journal 1", "hash": "0", "spec": {}}\n')
    line = wla(*_sweep_args(out), "--resume", archive=sp2_archive_file).one_error_line()
    assert "journal of another sweep" in line
    journal.write_text("not a journal\n")
    assert "not a wla sweep journal" in wla(*_sweep_args(out), "--resume", archive=sp2_archive_file).one_error_line()


def test_the_plot_is_a_png_and_the_same_bytes_twice(sp2_archive_file, tmp_path):
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    for path in (a, b):
        r = wla("sweep", LOG, "--grid", "estimate=last:1..3", "--runs", "2", "--workers", "1",
                "--plot", path, "--metric", "bounded_slowdown_mean", archive=sp2_archive_file)
        assert r.status == 0, r.err
    assert a.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("args, words", [
    ([], "at least one --grid"),
    (["--grid", "load=1", "--plot", "wait_mean"], "--plot takes the figure's file: --plot FILE.png --metric wait_mean"),
    (["--grid", "load=1", "-o", "s.png"], "sweep draws --metric to --plot FILE"),
    (["--grid", "load=1", "--resume"], "--resume finishes"),
    (["--grid", "policy=easy", "--policy", "fcfs"], "swept by a --grid"),
    (["--grid", "load=1", "--metric", "speed"], "--metric is one of"),
    (["--grid", "procs=64", "--procs", "64"], "--procs is swept"),
])
def test_refusals_are_one_line(sp2_archive_file, args, words):
    assert words in wla("sweep", LOG, *args, archive=sp2_archive_file).one_error_line()
