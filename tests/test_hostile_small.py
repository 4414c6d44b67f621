"""Small hostile inputs: a folder that cannot be read, log names made to
run in a shell, a recipe of endless steps, a damaged log whose numbers
make numpy complain. Each answer is wla's one line, and nothing else."""
from __future__ import annotations

import gzip
import os
import shlex
import shutil
import subprocess
import sys

import numpy as np
import pytest
from cli_run import wla
from real_logs import data_dir
from wla.archive.clean.recipe import MAX_STEPS, parse_recipe
from wla.archive.kernel.errors import RecipeError
from wla.archive.kernel.names import for_shell

SMALL = "NASA-iPSC-1993-3-head228"
WLA = [sys.executable, "-m", "wla.cli.main"]


def _unprivileged() -> list[str] | None:
    """A prefix that runs a command without the power to read any folder
    (root reads a mode-000 folder; without these capabilities it cannot)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--inh-caps", "-all"]


def test_a_folder_that_cannot_be_read_says_so(tmp_path):
    prefix = _unprivileged()
    if prefix is None:
        pytest.skip("running as root without setpriv: no folder is unreadable")
    logs = tmp_path / "logs"
    (logs / "locked").mkdir(parents=True)
    shutil.copy(data_dir() / f"{SMALL}.swf.gz", logs / "locked")
    (logs / "locked").chmod(0)
    try:
        for target in (logs, logs / "locked"):
            r = subprocess.run([*prefix, *WLA, "-a", str(tmp_path / "a.duckdb"), "ingest", str(target)],
                               capture_output=True, text=True, timeout=300)
            assert r.returncode == 1, r.stderr
            assert r.stderr == f"wla: {logs / 'locked'}: permission denied\n", r.stderr
        assert not (tmp_path / "a.duckdb").exists()
    finally:
        (logs / "locked").chmod(0o755)


@pytest.mark.parametrize("name", ["a;touch pwned", "$(touch pwned)", "x`touch pwned`y", "it's; touch pwned"])
def test_hints_quote_names_for_the_shell(tmp_path, name):
    """The command a hint offers names the log as one shell word: pasted
    into a shell it is the name, and runs nothing."""
    log = tmp_path / "log.swf"  # no MaxProcs: the hints say how to set it
    log.write_text("; Version: 2.2\n1 0 5 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n")
    db = tmp_path / "a.duckdb"
    assert wla("ingest", log, "--name", name, archive=db).status == 0
    word = shlex.quote(name)
    assert for_shell(name) == word
    for command in (["validate", name, "--runs", "1"], ["capacity", name]):
        refused = wla(*command, archive=db).one_error_line()
        assert f"`wla set {word} max-procs N`" in refused, refused
    echoed = subprocess.run(["sh", "-c", f"printf '%s\\n' {word}"], capture_output=True, text=True, cwd=tmp_path)
    assert echoed.stdout == name + "\n" and not (tmp_path / "pwned").exists()


def _recipe(steps: int) -> str:
    return 'log = "L"\nversion = "v1"\n' + '[[step]]\nrule = "drop_where"\nwhere = "run < 0"\n' * steps


def test_a_recipe_has_at_most_max_steps():
    assert len(parse_recipe(_recipe(MAX_STEPS)).steps) == MAX_STEPS
    with pytest.raises(RecipeError, match=f"r.toml: 1,001 steps; a recipe has at most {MAX_STEPS:,}"):
        parse_recipe(_recipe(MAX_STEPS + 1), "r.toml")


@pytest.mark.slow  # seconds of a worker; CI's slow step runs it
def test_no_numpy_warning_before_the_one_line(tmp_path):
    """A log written as UTF-16 (no byte-order mark) reads as fields whose
    arithmetic overflows; the answer is wla's line only, every time."""
    text = gzip.decompress((data_dir() / f"{SMALL}.swf.gz").read_bytes()).decode("ascii")
    for encoding, attempts in (("utf-16-le", 3), ("utf-16-be", 1), ("utf-16", 1)):
        path = tmp_path / f"{encoding}.swf"
        path.write_bytes(text.encode(encoding))
        for attempt in range(attempts):  # the warning came from some runs only (threads)
            db = tmp_path / f"{encoding}{attempt}.duckdb"
            r = subprocess.run([*WLA, "-a", str(db), "ingest", str(path)], capture_output=True, text=True,
                               timeout=300)
            assert r.returncode == 1
            assert [x for x in r.stderr.splitlines() if not x.startswith("wla: ")] == [], r.stderr


def test_out_of_range_instants_warn_nothing():
    from wla.archive.swf.instants import outside

    with np.errstate(all="raise"):
        got = outside(np.array([np.inf, 5.0, 1e308]), np.array([-np.inf, 1.0, 1e308]), np.array([1.0, 1.0, 1e308]))
    assert got.tolist() == [True, False, True]
