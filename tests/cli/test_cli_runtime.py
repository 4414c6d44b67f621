"""What ends a command other than a refusal: an interrupt, memory, a closed
pipe, a bug; and where compiled code is cached when nothing beside wla can
be written. Each ends as at most one line on stderr, with its own status."""
from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import shutil
import stat
import subprocess
import sys

import numba
import pytest
import sqlglot
from as_user import NOBODY, WLA, as_nobody, shared_folder
from cli_run import wla
from wla.archive import open as open_archive
from wla.archive.clean import rules as rule_files
from wla.archive.kernel import jit
from wla.cli.main import EX_INTERRUPTED, EX_PIPE, EX_SOFTWARE, TRACEBACK_ENV, main

TINY_SWF = ("; MaxProcs: 8\n"
            "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
            "2 5 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n")


def _raising(error: BaseException):
    def fail(*args, **kwargs):
        raise error
    return fail


# -- main(): every way out ------------------------------------------------------------


@pytest.mark.parametrize("error, status, line", [
    (KeyboardInterrupt(), EX_INTERRUPTED, "wla: interrupted"),
    (MemoryError(), 1, "wla: out of memory while running `wla rules`"),
    (RuntimeError("boom\nsecond line"), EX_SOFTWARE,
     f"wla: internal error: RuntimeError: boom (set {TRACEBACK_ENV}=1 to see the traceback; please report it)"),
    (AssertionError(), EX_SOFTWARE,
     f"wla: internal error: AssertionError (set {TRACEBACK_ENV}=1 to see the traceback; please report it)"),
    # typer would print "Aborted!" with status 1, as if the input were wrong
    (EOFError("stream ended"), EX_SOFTWARE,
     f"wla: internal error: EOFError: stream ended (set {TRACEBACK_ENV}=1 to see the traceback; please report it)"),
    (PermissionError(13, "Permission denied", "/some/out.png"), 1, "wla: /some/out.png: Permission denied"),
])
def test_what_ends_a_command_is_one_line_with_its_status(monkeypatch, error, status, line):
    monkeypatch.delenv(TRACEBACK_ENV, raising=False)
    monkeypatch.setattr(rule_files, "load_rules", _raising(error))
    run = wla("rules")
    assert (run.status, run.err, run.out) == (status, line + "\n", "")


def test_wla_traceback_raises_the_error_itself(monkeypatch):
    monkeypatch.setenv(TRACEBACK_ENV, "1")
    monkeypatch.setattr(sys, "argv", ["wla", "rules"])
    for error in (RuntimeError("boom"), KeyboardInterrupt()):
        monkeypatch.setattr(rule_files, "load_rules", _raising(error))
        with pytest.raises(type(error)):
            main()


class _ClosedPipe(io.StringIO):
    """stdout whose reader has gone, as under `wla ... | head -1`."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_pipe_ends_quietly(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["wla", "rules"])
    err = io.StringIO()
    with contextlib.redirect_stdout(_ClosedPipe()), contextlib.redirect_stderr(err), \
            pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == EX_PIPE and err.getvalue() == ""


def test_a_closed_pipe_in_a_real_process(tmp_path):
    """The reader closes its end before wla writes: no message, no Python
    complaint at exit, the SIGPIPE status."""
    proc = subprocess.Popen([str(WLA), "esp", "--procs", "64", "--full-at", "2400", "--full-at", "3600",
                             "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == EX_PIPE
    assert err == b""


def test_sqlglot_warnings_never_reach_the_terminal(caplog, monkeypatch, tmp_path):
    """sqlglot logs a warning when it falls back to a bare command; at the
    command line only wla's one line is shown."""
    query = "VACUUM ANALYZE jobs"
    logger = logging.getLogger("sqlglot")
    monkeypatch.setattr(logger, "level", logging.NOTSET)
    with caplog.at_level(logging.WARNING):
        sqlglot.parse(query, read="duckdb")
    assert [r.name for r in caplog.records] == ["sqlglot"]  # the input does warn
    caplog.clear()
    path = tmp_path / "a.duckdb"
    with open_archive(path, write=True):
        pass
    with caplog.at_level(logging.WARNING):
        run = wla("sql", query, archive=path)
    assert run.one_error_line().startswith("wla: ")
    assert [r for r in caplog.records if r.name == "sqlglot"] == []
    assert logger.level == logging.ERROR


# -- the numba cache --------------------------------------------------------------------


@pytest.fixture
def fresh_jit(monkeypatch):
    """jit's decision as in a new process, numba's settings restored after."""
    monkeypatch.setattr(jit, "_state", {"fallback": None, "noted": False})
    monkeypatch.setattr(numba.core.config, "CACHE_DIR", numba.core.config.CACHE_DIR)
    monkeypatch.setenv(jit.CACHE_ENV, os.environ.get(jit.CACHE_ENV, ""))


def _from_source(name: str):
    """A function whose source file does not exist: numba finds no cache
    folder for it, as for every function when nothing can be written."""
    space: dict = {}
    exec(compile(f"def {name}(x):\n    return x + 1\n", "<no file>", "exec"), space)
    return space[name]


def test_no_cache_folder_compiles_without_a_cache_and_says_so_once(fresh_jit, monkeypatch, capsys):
    monkeypatch.setattr(jit, "private_temp_folder", lambda: None)
    first = jit.njit(cache=True, nogil=True)(_from_source("first"))
    second = jit.njit(cache=True)(_from_source("second"))
    assert first(1) == 2 and second(41) == 42
    assert capsys.readouterr().err == jit.NOTE + "\n"


def test_the_private_folder_is_made_for_this_user_only(monkeypatch, tmp_path):
    monkeypatch.setattr(jit.tempfile, "tempdir", str(tmp_path))
    folder = jit.private_temp_folder()
    assert folder == str(tmp_path / f"wla-numba-cache-{os.getuid()}")
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert jit.private_temp_folder() == folder  # found again


@pytest.mark.parametrize("plant", ["open to all", "a link", "a file"])
def test_a_folder_others_could_write_is_never_used(monkeypatch, tmp_path, plant):
    """numba loads pickled code from its cache: a folder planted by another
    user, or one anybody can write, would run their code."""
    monkeypatch.setattr(jit.tempfile, "tempdir", str(tmp_path))
    target = tmp_path / f"wla-numba-cache-{os.getuid()}"
    if plant == "open to all":
        target.mkdir()
        target.chmod(0o777)
    elif plant == "a link":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        target.symlink_to(tmp_path / "elsewhere")
    else:
        target.write_text("")
    assert jit.private_temp_folder() is None


def test_another_users_folder_is_never_used(monkeypatch, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("making a folder owned by another user needs root")
    monkeypatch.setattr(jit.tempfile, "tempdir", str(tmp_path))
    target = tmp_path / f"wla-numba-cache-{os.getuid()}"
    target.mkdir(mode=0o700)
    os.chown(target, NOBODY, NOBODY)
    assert jit.private_temp_folder() is None


@pytest.fixture
def nobody_folder():
    folder = shared_folder()
    (folder / "tiny.swf").write_text(TINY_SWF)
    yield folder
    shutil.rmtree(folder)


def _nobody(folder) -> list[str]:
    """The command prefix that runs as user 65534 in `folder` (or skip)."""
    prefix, why = as_nobody(folder)
    if prefix is None:
        pytest.skip(why)
    return prefix


def _ingest_tiny(prefix: list[str], folder) -> subprocess.CompletedProcess:
    return subprocess.run(prefix + [str(WLA), "--archive", str(folder / "a.duckdb"), "ingest",
                                    str(folder / "tiny.swf")], capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # compiles the tokenizer and the simulator core from an empty cache
def test_a_user_who_can_write_nothing_of_wla_gets_a_temporary_cache(nobody_folder):
    """As user 65534 without a home, nothing beside wla is writable: the
    compiled code goes to a private folder under TMPDIR, saying only that it
    compiles, once, and a command that compiles (ingest: the tokenizer; esp:
    the simulator) works."""
    prefix = _nobody(nobody_folder)
    run = _ingest_tiny(prefix, nobody_folder)
    reader, core = jit.part_of("wla.archive.swf.tokenizer"), jit.part_of("wla.sim.core")
    assert (run.returncode, run.stderr) == (0, jit.compiling_notice(reader) + "\n"), run.stderr
    assert run.stdout.startswith("ingested  tiny: 2 jobs")
    run = subprocess.run(prefix + [str(WLA), "esp", "--procs", "64", "--full-at", "2400", "--full-at", "3600",
                                   "--json"], capture_output=True, text=True, timeout=300)
    assert (run.returncode, run.stderr) == (0, jit.compiling_notice(core) + "\n"), run.stderr
    assert json.loads(run.stdout)["counts"]["simulated"] == 82
    cache = nobody_folder / f"wla-numba-cache-{NOBODY}"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700 and cache.stat().st_uid == NOBODY
    kept = {p.name.split(".")[0] for p in cache.rglob("*.nbi")}
    assert {"tokenizer", "core"} <= kept  # both compiled modules cached there


@pytest.mark.slow  # compiles on every run
def test_with_no_writable_folder_at_all_one_note_and_the_command_works(nobody_folder):
    """The private folder's name taken by root's folder: no cache anywhere,
    the note once, and the command still succeeds."""
    (nobody_folder / f"wla-numba-cache-{NOBODY}").mkdir(mode=0o755)  # root's, not writable by 65534
    run = _ingest_tiny(_nobody(nobody_folder), nobody_folder)
    assert (run.returncode, run.stderr) == (0, jit.NOTE + "\n"), run.stderr
    assert run.stdout.startswith("ingested  tiny: 2 jobs")


def test_the_exit_statuses_page_names_every_status_a_command_ends_with():
    """1 (the user's input), 2 (a command line typer cannot read), 70, 130, 141."""
    import re

    from cli_run import wla
    from real_logs import ROOT

    page = (ROOT / "docs" / "pages" / "reference" / "exit-statuses.md").read_text(encoding="utf-8")
    table = page[page.index("| status | when |"):] + "\n\n"
    table = table[:table.index("\n\n")]
    listed = {int(s) for s in re.findall(r"^\| (\d+) \|", table, re.MULTILINE)}
    assert listed == {1, 2, EX_SOFTWARE, EX_INTERRUPTED, EX_PIPE}
    assert wla("simulate", "--no-such-option").status == 2
