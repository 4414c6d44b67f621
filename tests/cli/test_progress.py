"""The progress display of long commands: drawn on stderr only, only where a
person watches, never touching stdout or a result; and the library's
callbacks told the right counts."""
from __future__ import annotations

import contextlib
import gzip
import io
import re
import shutil
import subprocess
import sys

import pytest
from cli_run import wla
from real_logs import data_dir
from wla.archive import open as open_archive
from wla.archive.analysis.capacity.choice import capacity_deletions
from wla.archive.analysis.jobs import log_jobs
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe
from wla.archive.store.ingest import ingest
from wla.cli import progress

SMALL = ["ANL-Intrepid-2009-1-head10", "HPC2N-2002-2.2-head3170", "NASA-iPSC-1993-3-head228"]
HPC2N = "HPC2N-2002-2.2-head3170"
RECIPE = f"""\
log = "{HPC2N}"
version = "p1"

[[step]]
rule = "normalize"

[[step]]
rule = "recover"

[[step]]
rule = "filter"
where = "user=2"
reason = "a test"
"""
# A capacity with a few small components, and a node limit small enough that
# some programs stop at it (the deletions are the same on any machine).
CAPACITY = ["--capacity", "210", "--node-limit", "200"]
SECONDS = re.compile(r"in \d+\.\d\d s")  # the one clock a command prints (ingest, clean)


def _undrawn(err: str) -> bool:
    """Nothing of a display on stderr (no terminal control sequence); other
    lines (the one-time compiling notice) may be there."""
    return "\x1b" not in err and "\r" not in err


def _jobs_in(name: str) -> int:
    """Job lines of a real log, counted without wla."""
    with gzip.open(data_dir() / f"{name}.swf.gz", "rt") as fh:
        return sum(1 for line in fh if line.strip() and not line.lstrip().startswith(";"))


@pytest.fixture
def folder(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in SMALL:
        shutil.copy(data_dir() / f"{name}.swf.gz", logs)
    return logs


@pytest.fixture(scope="module")
def small_archive(tmp_path_factory):
    path = tmp_path_factory.mktemp("progress") / "a.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [data_dir() / f"{name}.swf.gz" for name in SMALL])
    return path


@pytest.fixture
def drawn(monkeypatch):
    """Displays forced on (as on a terminal) and drawn at once; each call a
    display is told is recorded as (what, done, total, detail)."""
    monkeypatch.setenv(progress.ENV, "1")
    monkeypatch.setattr(progress, "DELAY", 0)
    calls = []
    real_init, real_call = progress._Drawn.__init__, progress._Drawn.__call__

    def init(self, what, unit, forced, rate=False):
        real_init(self, what, unit, forced, rate)
        self._label = what
        calls.append((what, None, None, "opened"))

    def call(self, done, total, what=""):
        calls.append((self._label, done, total, what))
        real_call(self, done, total, what)

    monkeypatch.setattr(progress._Drawn, "__init__", init)
    monkeypatch.setattr(progress._Drawn, "__call__", call)
    return calls


@pytest.fixture
def unwatched(monkeypatch):
    """No terminal, no WLA_PROGRESS: a display must never be made."""
    monkeypatch.delenv(progress.ENV, raising=False)
    monkeypatch.setattr(progress, "DELAY", 0)

    def refuse(*args, **kw):
        raise AssertionError("a display was made")

    monkeypatch.setattr(progress._Drawn, "__init__", refuse)


def test_ingest_shows_files_and_jobs_on_stderr_and_leaves_stdout_alone(folder, tmp_path, drawn, monkeypatch):
    shown = wla("ingest", folder, archive=tmp_path / "shown.duckdb")
    assert shown.status == 0, shown.err
    told = [c for c in drawn if c[0] == "ingest" and c[1] is not None]
    jobs = [_jobs_in(n) for n in SMALL]  # the folder's files in name order, as ingest takes them
    assert told == [("ingest", i + 1, 3, f"{sum(jobs[:i + 1]):,} jobs") for i in range(3)]
    assert "ingest" in shown.err and "3/3 files" in shown.err and "\x1b[" in shown.err

    monkeypatch.delenv(progress.ENV)
    plain = wla("ingest", folder, archive=tmp_path / "plain.duckdb")
    assert plain.status == 0 and _undrawn(plain.err)
    assert SECONDS.sub("", shown.out) == SECONDS.sub("", plain.out) and len(plain.out.splitlines()) == 4


def test_nothing_is_drawn_unless_someone_watches(folder, tmp_path, small_archive, unwatched, monkeypatch):
    run = wla("ingest", folder, archive=tmp_path / "a.duckdb")
    assert run.status == 0 and _undrawn(run.err)
    assert _undrawn(wla("quality", archive=small_archive).err)
    monkeypatch.setenv(progress.ENV, "0")  # never, even on a terminal
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert progress.mode() == "off"


@pytest.mark.parametrize("args", [["-q", "quality"], ["--quiet", "quality"], ["quality", "-q"],
                                  ["quality", "--json"], ["simulate", HPC2N, "--json"],
                                  ["capacity", HPC2N, "--json", *CAPACITY]])
def test_quiet_and_json_draw_nothing(args, small_archive, drawn):
    run = wla(*args, archive=small_archive)
    assert run.status == 0, run.err
    assert _undrawn(run.err) and drawn == []


def test_quiet_is_the_runs_wherever_it_is_given(small_archive, drawn):
    """-q after the command name sets the same flag as before it, and the
    command's own options still parse around it."""
    before = wla("-q", "info", HPC2N, archive=small_archive)
    after = wla("info", "-q", HPC2N, archive=small_archive)
    assert before.status == after.status == 0 and before.out == after.out and drawn == []


@pytest.mark.parametrize("args", [["quality"], ["simulate", HPC2N],
                                  ["capacity", HPC2N, *CAPACITY]])
def test_stdout_is_the_same_with_a_display(args, small_archive, drawn, monkeypatch):
    shown = wla(*args, archive=small_archive)
    assert shown.status == 0, shown.err
    assert args[0] in shown.err and drawn[0] == (args[0], None, None, "opened")
    monkeypatch.delenv(progress.ENV)
    plain = wla(*args, archive=small_archive)
    assert plain.status == 0 and _undrawn(plain.err)
    assert shown.out == plain.out and shown.out


def test_capacity_counts_its_programs(small_archive, drawn):
    """Two programs (L and S) per component, told from 0 to all of them."""
    with open_archive(small_archive) as a:
        jobs, facts = log_jobs(a, HPC2N)
    told = []
    limits = {"node_limit": 200}
    choice = capacity_deletions(jobs, 210, **limits, progress=lambda d, t: told.append((d, t)))
    programs = 2 * len(choice.components)
    assert programs == 10  # 5 components, as `wla capacity` reports them
    assert told == [(d, programs) for d in range(programs + 1)]
    assert choice.deletions.equals(capacity_deletions(jobs, 210, **limits).deletions)
    cli = wla("capacity", HPC2N, *CAPACITY, archive=small_archive)
    counted = [c for c in drawn if c[1] is not None]
    assert [c[1:3] for c in counted] == told and cli.status == 0


def test_clean_tells_each_step_with_its_rule(small_archive, tmp_path):
    path = tmp_path / "a.duckdb"
    shutil.copy(small_archive, path)
    told = []
    with open_archive(path, write=True) as a:
        res = clean(a, parse_recipe(RECIPE), progress=lambda *call: told.append(call))
    assert len(res.steps) == 3
    assert told == [(0, 3, "normalize"), (1, 3, "recover"), (2, 3, "filter"), (3, 3, "")]


def test_clean_on_the_command_line(small_archive, tmp_path, drawn, monkeypatch):
    recipe = tmp_path / "p1.toml"
    recipe.write_text(RECIPE)
    shown_archive, plain_archive = tmp_path / "shown.duckdb", tmp_path / "plain.duckdb"
    shutil.copy(small_archive, shown_archive)
    shutil.copy(small_archive, plain_archive)
    shown = wla("clean", recipe, archive=shown_archive)
    assert shown.status == 0, shown.err
    assert [c[1:] for c in drawn if c[1] is not None] == \
        [(0, 3, "normalize"), (1, 3, "recover"), (2, 3, "filter"), (3, 3, "")]
    assert "3/3 steps" in shown.err
    monkeypatch.delenv(progress.ENV)
    plain = wla("clean", recipe, archive=plain_archive)
    assert _undrawn(plain.err) and SECONDS.sub("", shown.out) == SECONDS.sub("", plain.out)


def test_a_quick_command_draws_nothing_before_the_delay(small_archive, drawn, monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 3600)
    run = wla("quality", archive=small_archive)
    assert run.status == 0 and _undrawn(run.err) and drawn[0] == ("quality", None, None, "opened")


def test_a_display_is_gone_when_the_command_fails(small_archive, drawn):
    """The refusal is still one line, after the display is taken away (its
    line erased, the cursor shown again)."""
    run = wla("simulate", "no-such-log", archive=small_archive)
    assert run.status == 1 and drawn == [("simulate", None, None, "opened")]
    display, _, refusal = run.err.rpartition("\x1b[2K")
    assert "\x1b[?25h" in display and refusal.startswith("wla: ") and refusal.count("\n") == 1


def test_start_up_loads_no_rich():
    """rich is imported only to draw: not for --help, nor for a command whose
    stderr is no terminal."""
    script = ("import sys\nfrom wla.cli.main import main\nsys.argv = ['wla', *sys.argv[1:]]\n"
              "try:\n    main()\nexcept SystemExit:\n    pass\n"
              "print('rich' in sys.modules, [m for m in sys.modules if m.startswith('rich')][:3])")
    for args in (["--help"], ["quality", "--help"], ["-a", "/nonexistent/a.duckdb", "quality"]):
        run = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True,
                             timeout=120, env={"PATH": "/usr/bin:/bin"})
        assert run.stdout.splitlines()[-1] == "False []", (args, run.stdout, run.stderr)


def test_a_late_display_shows_the_count_told_before_it_appeared(monkeypatch):
    """Counts told before the delay are kept, and shown when the display
    appears; the elapsed time counts from the start of the work."""
    monkeypatch.setenv(progress.ENV, "1")
    monkeypatch.setattr(progress, "DELAY", 3600)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), progress.display("work", "things") as shown:
        shown(1, 4, "the first")
        assert err.getvalue() == ""
        shown._since -= 3725  # as if the work had begun 1 h 2 min 5 s ago
        shown._appear()  # what the timer does after DELAY
        shown(2, 4, "the second")
    frames = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", err.getvalue())  # the text, without colours and moves
    assert re.search(r"1/4 things 1:02:0\d the first", frames) and re.search(r"2/4 things 1:02:0\d the second", frames)


def test_shake_and_sweep_count_their_runs(small_archive, drawn):
    """Each finished run is told, from none to all, and the sweep's bar
    shows the rate and the time left; stdout is the same without it."""
    shaken = wla("shake", HPC2N, "--runs", "3", "--workers", "1", archive=small_archive)
    swept = wla("sweep", HPC2N, "--grid", "load=0.9,1.0", "--runs", "2", "--workers", "1",
                archive=small_archive)
    assert shaken.status == swept.status == 0, (shaken.err, swept.err)
    counts = [c for c in drawn if c[1] is not None]
    assert [c[1:3] for c in counts if c[0] == "shake"] == [(d, 3) for d in range(4)]
    assert [c[1:3] for c in counts if c[0] == "sweep"] == [(d, 6) for d in range(7)]
    assert "runs/s" in swept.err and "left" in swept.err


def test_pull_counts_the_kibibytes_it_downloads(tmp_path, drawn, monkeypatch):
    """The bar grows with the bytes that arrive, up to the file's size, with
    the log's name; stdout is the result lines alone."""
    from pull_server import serve

    name = "KTH-SP2-1996-2.1-cln"
    with serve(data_dir()) as url:
        monkeypatch.setenv("WLA_PULL_URL", url)
        pulled = wla("pull", name, "--dir", tmp_path / "pwa", archive=tmp_path / "a.duckdb")
    assert pulled.status == 0, pulled.err
    kib = (data_dir() / f"{name}.swf.gz").stat().st_size // 1024
    counts = [c for c in drawn if c[0] == "pull" and c[1] is not None]
    assert counts[-1][1:] == (kib, kib, "")  # "" once all is done (archive/kernel/progress.py)
    assert {c[3] for c in counts[1:-1]} == {name}
    assert all(a[1] <= b[1] for a, b in zip(counts, counts[1:]))
    assert f"/{kib:,} KiB" in pulled.err and "\x1b[" not in pulled.out
