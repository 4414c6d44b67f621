"""Input the command line refuses: numbers out of range, files that cannot be
read. Each is one line `wla: ...` naming what is wrong, status 1, and never
an internal error; the Python API refuses the same numbers."""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from as_user import ROOT, as_nobody, shared_folder
from cli_run import wla
from made_jobs import make_jobs
from wla.archive import open as open_archive
from wla.archive.analysis.capacity import capacity_report
from wla.archive.analysis.capacity.choice import capacity_deletions
from wla.archive.analysis.flurries import flurries
from wla.archive.analysis.load import load_profile
from wla.archive.convert.records import to_swf
from wla.archive.kernel.errors import OptionError, UsageError
from wla.archive.kernel.ranges import MAX_PROCESSORS
from wla.archive.store.ingest import ingest
from wla.sim import simulate
from wla.sim.esp import EXAMPLE_MIX, esp_workload, read_mix, run_esp
from wla.sim.predictors import parse_estimator
from wla.sim.schedule import schedule

LOG = "tiny"
BIG = str(2**70)  # typer takes an int of any size
P31 = f"{2**31 - 1:,}"  # the largest processor count, as messages write it
TINY_SWF = "; MaxProcs: 8\n" + "".join(
    f"{j} {10 * j} 5 100 {1 + j % 4} -1 -1 {1 + j % 4} 200 -1 1 {1 + j % 3} 1 -1 -1 -1 -1 -1\n" for j in range(1, 41))
ESP = ["esp", "--full-at", "2400", "--full-at", "3600"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """An archive holding one small log, and inputs that are not readable files."""
    root = tmp_path_factory.mktemp("refusals")
    (root / f"{LOG}.swf").write_text(TINY_SWF)
    with open_archive(root / "a.duckdb", write=True) as a:
        [result] = ingest(a, [root / f"{LOG}.swf"])
    assert result.status == "ingested", result.message
    (root / "folder").mkdir()
    os.mkfifo(root / "fifo")
    (root / "rules_with_fifo").mkdir()
    os.mkfifo(root / "rules_with_fifo" / "x.sql")
    (root / "records.csv").write_text("arrival,run,procs\n1,10,1\n")
    return root


def _numbers(option: str, values: list[str], says: str) -> list[tuple[list[str], str]]:
    return [([option, v], says.format(v=v)) for v in values]


# (arguments after the command, what the one line says); {v} is the value as printed
NUMERIC = {
    "simulate": [
        *_numbers("--tau", ["nan", "inf", "0", "-5"], "--tau must be a finite number > 0, not"),
        *_numbers("--load-factor", ["nan", "inf", "0", "-1", "1e7", "1e-9"],
                  "--load-factor must be a number in [1e-06, 1,000,000], not"),
        *_numbers("--warmup", ["2", "1", "-0.1", "nan"], "--warmup must be a number in [0, 1), not"),
        *_numbers("--procs", ["0", "-5", BIG, str(2**31)],
                  f"--procs must be a whole number from 1 to {P31}, not {{v}}"),
        *_numbers("--seed", ["-1", str(2**63), BIG],
                  "--seed must be a whole number from 0 to 9,223,372,036,854,775,807, not {v}"),
        (["--estimate", "last:0"], f"last takes a whole number of jobs from 1 to {P31}"),
        (["--estimate", f"last:{BIG}"], f"last takes a whole number of jobs from 1 to {P31}"),
        (["--estimate", "last:\u00b2"], f"last takes a whole number of jobs from 1 to {P31}"),
        (["--estimate", "badness:nan"], "badness takes a factor in [0, 1,000,000]"),
        (["--estimate", "badness:inf"], "badness takes a factor in [0, 1,000,000]"),
        (["--estimate", "badness:1e300"], "badness takes a factor in [0, 1,000,000]"),
    ],
    "esp": [
        *_numbers("--procs", ["0", str(2**24 + 1), BIG],
                  "--procs must be a whole number from 1 to 16,777,216, not {v}"),
        *_numbers("--seed", ["-1", BIG], "--seed must be a whole number from 0 to 9,223,372,036,854,775,807"),
        *_numbers("--full-at", ["nan", "inf", "-1", "1e300"],
                  "--full-at must be a number in [0, 9,007,199,254,740,992], not"),
    ],
    "capacity": [
        *_numbers("--capacity", ["0", "-1", BIG], f"--capacity must be a whole number from 1 to {P31}, not {{v}}"),
        *_numbers("--slack", ["inf", "nan", "-1"], "--slack must be a finite number >= 0, not"),
        *_numbers("--threshold", ["nan", "2", "-0.1"], "--threshold must be a number in [0, 1], not"),
        *_numbers("--size-limit", ["0", str(2**31), BIG], f"--size-limit must be a whole number from 1 to {P31}"),
        *_numbers("--node-limit", ["0", str(2**31), BIG], f"--node-limit must be a whole number from 1 to {P31}"),
    ],
    "load": [
        *_numbers("--capacity", ["0", BIG], f"--capacity must be a whole number from 1 to {P31}, not {{v}}"),
        *_numbers("--level", ["nan", "inf", "-0.5", "2"], "--level must be a number in [0, 1], not"),
    ],
    "flurries": [
        *_numbers("--candidate", ["nan", "0", "inf", "-1"], "--candidate must be a finite number > 0, not"),
        *_numbers("--large", ["nan", "-1"], "--large must be a finite number > 0, not"),
        *_numbers("--dominance", ["2", "0", "1", "nan"], "--dominance must be a number in (0, 1), not"),
        *_numbers("--top", ["-1", BIG], f"--top must be a whole number from 0 to {P31}, not {{v}}"),
    ],
    "diff": _numbers("--limit", ["-3", BIG], f"--limit must be a whole number from 0 to {P31}, not {{v}}"),
    "ingest": _numbers("--workers", ["0", "-1", BIG], "--workers must be a whole number from 1 to 1,024, not {v}"),
    "convert": _numbers("--max-procs", ["0", BIG], f"--max-procs must be a whole number from 1 to {P31}, not {{v}}"),
    "why": [([BIG], "JOB must be a whole number from -9,223,372,036,854,775,808 to 9,223,372,036,854,775,807"),
            (["--", str(-(2**70))], "JOB must be a whole number from -9,223,372,036,854,775,808")],
}

# What comes before the options, per command.
LEAD = {
    "simulate": ["simulate", LOG], "esp": ESP + ["--procs", "64"], "capacity": ["capacity", LOG],
    "load": ["load", LOG], "flurries": ["flurries", LOG], "diff": ["diff", LOG, "original", "original"],
    "ingest": ["ingest", "{root}/tiny.swf"], "convert": ["convert", "{root}/records.csv", "-f", "csv"],
    "why": ["why", LOG],
}

CASES = [(LEAD[cmd] + args, says) for cmd, cases in NUMERIC.items() for args, says in cases]

FILES = [
    (ESP + ["--procs", "64", "--mix", "{root}/missing.csv"], "{root}/missing.csv: no such file"),
    (ESP + ["--procs", "64", "--mix", "{root}/folder"], "{root}/folder: is a folder, not a regular file"),
    (ESP + ["--procs", "64", "--mix", "{root}/fifo"], "{root}/fifo: is a FIFO, not a regular file"),
    (["convert", "{root}/missing.csv", "-f", "csv"], "{root}/missing.csv: no such file"),
    (["convert", "{root}/folder", "-f", "csv"], "{root}/folder: is a folder, not a regular file"),
    (["convert", "{root}/fifo", "-f", "csv"], "{root}/fifo: is a FIFO, not a regular file"),
    (["rules", "--rules", "{root}/missing"], "{root}/missing: no such folder of rules"),
    (["rules", "--rules", "{root}/fifo"], "{root}/fifo: is a FIFO, not a folder of rules"),
    (["rules", "--rules", "{root}/records.csv"], "{root}/records.csv: is a file, not a folder of rules"),
    (["rules", "--rules", "{root}/rules_with_fifo"], "{root}/rules_with_fifo/x.sql: is a FIFO, not a regular file"),
    (["flurries", LOG, "--plot", "{root}/missing/f.png"], "{root}/missing/f.png: No such file or directory"),
]


def _filled(args: list[str], root: Path) -> list[str]:
    return [a.format(root=root) if "{root}" in a else a for a in args]


@pytest.mark.parametrize("args, says", CASES + FILES, ids=lambda x: " ".join(x) if isinstance(x, list) else None)
def test_a_refusal_is_one_line_naming_the_problem(files, never_waits, args, says):
    run = wla(*_filled(args, files), archive=files / "a.duckdb")
    line = run.one_error_line()  # status 1, one line on stderr, no traceback
    assert "internal error" not in line
    assert says.format(root=files) in line, line
    assert run.out == ""


def test_values_at_the_edges_of_the_ranges_are_taken(files):
    """The ranges are exact: their bounds are allowed."""
    for args in (["simulate", LOG, "--json", "--warmup", "0", "--procs", str(2**31 - 1), "--seed", str(2**63 - 1),
                  "--load-factor", "1e6", "--estimate", "badness:1e6"],
                 ["simulate", LOG, "--json", "--load-factor", "1e-6", "--estimate", f"last:{2**31 - 1}"],
                 ESP + ["--procs", "1", "--seed", "0", "--json"],
                 ["load", LOG, "--json", "--level", "1", "--capacity", "1"],
                 ["capacity", LOG, "--json", "--threshold", "0", "--slack", "0", "--node-limit", str(2**31 - 1)],
                 ["flurries", LOG, "--json", "--top", "0"]):
        run = wla(*args, archive=files / "a.duckdb")
        assert run.status == 0, (args, run.err)
        json.loads(run.out)


def test_every_file_parameter_is_left_to_wla(files):
    """typer's `readable` check would answer an unreadable file with a usage
    box and status 2; every file and folder parameter leaves it to wla."""
    from typer.main import get_command
    from wla.cli.main import app

    group = get_command(app)
    found = []
    for name, command in [("", group), *group.commands.items()]:
        for param in command.params:
            info = getattr(getattr(param, "type_descriptor", None), "parameter_info", None) or param.type
            annotation = str(getattr(getattr(param, "type_descriptor", None), "annotation", type(info)))
            if "Path" in annotation:
                found.append(f"{name} {param.name}")
                assert not info.readable and not info.exists and not info.writable, (name, param.name)
    assert {"esp mix", "convert path", "rules rules", "ingest paths", " archive"} <= set(found)


def test_unreadable_inputs_as_a_user_who_cannot_read_them(files):
    """Files only root may read, seen by user 65534: one line from wla each."""
    folder = shared_folder()
    try:
        for name in ("secret.csv", "secret.swf"):
            (folder / name).write_text("type,fraction,run,count\na,0.5,10,1\n")
            (folder / name).chmod(0o600)
        (folder / "closed").mkdir(mode=0o700)
        (folder / "rules").mkdir(mode=0o755)
        (folder / "rules" / "x.sql").write_text("-- a rule\n")
        (folder / "rules" / "x.sql").chmod(0o600)
        archive = folder / "a.duckdb"
        shutil.copy(files / "a.duckdb", archive)
        os.chown(archive, 65534, 65534)
        cases = [
            (ESP + ["--procs", "64", "--mix", f"{folder}/secret.csv"], f"{folder}/secret.csv: cannot read file"),
            (["convert", f"{folder}/secret.csv", "-f", "csv"], f"{folder}/secret.csv: cannot read file"),
            (["rules", "--rules", f"{folder}/closed"], f"{folder}/closed: cannot read folder"),
            (["rules", "--rules", f"{folder}/rules"], f"{folder}/rules/x.sql: cannot read file"),
            (["ingest", f"{folder}/secret.swf"], f"{folder}/secret.swf"),
        ]
        if os.geteuid() != 0:  # this user cannot read them either: run here
            results = [wla(*args, archive=archive) for args, _ in cases]
            results = [(r.status, r.err) for r in results]
        else:
            prefix, why = as_nobody(folder)
            if prefix is None:
                pytest.skip(why)
            script = ("import json, sys; sys.path.insert(0, sys.argv[1]); from cli_run import wla; "
                      "runs = [wla(*a, archive=sys.argv[2]) for a in json.loads(sys.argv[3])]; "
                      "print(json.dumps([(r.status, r.err) for r in runs]))")
            out = subprocess.run(prefix + [sys.executable, "-c", script, str(ROOT / "tests"), str(archive),
                                           json.dumps([a for a, _ in cases])],
                                 capture_output=True, text=True, timeout=300)
            assert out.returncode == 0, out.stderr
            results = json.loads(out.stdout.splitlines()[-1])
        for (args, says), (status, err) in zip(cases, results):
            assert status == 1 and err.count("\n") == 1 and err.startswith("wla: "), (args, status, err)
            assert says in err and "internal error" not in err and "Traceback" not in err, (args, err)
    finally:
        shutil.rmtree(folder)


# -- the Python API refuses the same ---------------------------------------------------


def _jobs():
    return make_jobs([dict(submit=10 * j, wait=5, run=100, procs=1 + j % 4, req_time=200, user_id=1 + j % 3)
                      for j in range(1, 21)])


@pytest.mark.parametrize("call, name", [
    (lambda: simulate(_jobs(), procs=2**70), "procs"),
    (lambda: simulate(_jobs(), procs=8, tau=math.nan), "tau"),
    (lambda: simulate(_jobs(), procs=8, load_factor=math.inf), "load_factor"),
    (lambda: simulate(_jobs(), procs=8, warmup=2), "warmup"),
    (lambda: simulate(_jobs(), procs=8, seed=-1), "seed"),
    (lambda: schedule(np.zeros(1), np.ones(1), np.ones(1, int), np.ones(1), 0), "procs"),
    (lambda: schedule(np.zeros(1), np.ones(1), np.ones(1, int), np.ones(1), 8, last_k=2**70), "last_k"),
    (lambda: run_esp(read_mix(EXAMPLE_MIX), 0, full_arrivals=[2400, 3600]), "procs"),
    (lambda: esp_workload(read_mix(EXAMPLE_MIX), 64, 0, [math.nan, 3600]), "full_arrivals"),
    (lambda: esp_workload(read_mix(EXAMPLE_MIX), 64, 0, [2400, 3600], gap=math.inf), "gap"),
    (lambda: capacity_report(_jobs(), MAX_PROCESSORS + 1), "capacity"),
    (lambda: capacity_report(_jobs(), 8, slack=math.inf), "slack"),
    (lambda: capacity_deletions(_jobs(), 8, threshold=math.nan), "threshold"),
    (lambda: capacity_deletions(_jobs(), 8, size_limit=0), "size_limit"),
    (lambda: capacity_deletions(_jobs(), 8, node_limit=0), "node_limit"),
    (lambda: capacity_deletions(_jobs(), 8, workers=0), "workers"),
    (lambda: load_profile(_jobs(), 2**70), "capacity"),
    (lambda: load_profile(_jobs(), 8, level=math.nan), "level"),
    (lambda: flurries(_jobs(), candidate=math.nan), "candidate"),
    (lambda: flurries(_jobs(), dominance=2), "dominance"),
    (lambda: flurries(_jobs(), top=-1), "top"),
    (lambda: to_swf(EXAMPLE_MIX, "csv", max_procs=2**70), "max_procs"),
])
def test_the_python_api_refuses_the_same_values(call, name):
    with pytest.raises(OptionError) as e:
        call()
    assert e.value.name == name and str(e.value).startswith(f"{name} must be ")


def test_estimates_built_by_hand_are_checked_too():
    from wla.sim.predictors import Estimator

    for text in ("last:0", f"last:{2**31}", "badness:-1", "badness:nan", "last:1_0", "last: 2"):
        with pytest.raises(UsageError):
            parse_estimator(text)
    for built in (Estimator("last", k=0), Estimator("badness", factor=math.inf), Estimator("guess")):
        with pytest.raises(UsageError):
            parse_estimator(built)
    assert parse_estimator(Estimator("badness", factor=0.123456789)).factor == 0.123456789
