"""Starting fast, and saying so when it cannot: the line before a compile
(once, and only when numba's cache lacks the code), `wla doctor` on a cold
and a warm cache. No test here measures time (bench/bench_startup.py does)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pytest
from wla.archive.kernel import jit
from wla.sim.doctor import compiled_parts

ROOT = Path(__file__).resolve().parent.parent
WLA = Path(sys.executable).with_name("wla")
TINY_SWF = ("; MaxProcs: 8\n"
            "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
            "2 5 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n")


def _cold(tmp_path: Path) -> dict[str, str]:
    """The environment of a run whose numba cache is an empty folder."""
    cache = tmp_path / "numba-cache"
    cache.mkdir(exist_ok=True)
    return {**os.environ, jit.CACHE_ENV: str(cache)}


def _run(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=1200)


# -- the line before a compile -------------------------------------------------------------


@pytest.mark.slow  # compiles from an empty cache
def test_the_notice_comes_once_on_a_cold_cache_and_never_on_a_warm_one(tmp_path):
    """`wla ingest` compiles the SWF reader (several functions, one line);
    the next run finds them in the cache and says nothing."""
    env = _cold(tmp_path)
    (tmp_path / "tiny.swf").write_text(TINY_SWF)
    first = _run([str(WLA), "-a", "one.duckdb", "ingest", "tiny.swf"], env, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stderr == jit.compiling_notice(jit.part_of("wla.archive.swf.tokenizer")) + "\n"
    again = _run([str(WLA), "-a", "two.duckdb", "ingest", "tiny.swf"], env, tmp_path)
    assert (again.returncode, again.stderr) == (0, "")
    assert again.stdout.splitlines()[0] == first.stdout.splitlines()[0]


PART_MODULE = '''
from wla.archive.kernel.jit import njit


@njit(cache=True)
def double(x):
    return 2 * x


@njit(cache=True)
def triple(x):
    return 3 * x


def warm():
    assert double(2) + triple(2) == 10
'''

PART_RUN = '''
import json
from wla.archive.kernel import jit
part = jit.Part("the test part", ("startup_part",), ("startup_part:warm",), 1)
jit.PARTS = jit.PARTS + (part,)
before = jit.cache_state(part)
after = jit.warm((part,))[0]
print(json.dumps([before, after]))
'''


@pytest.mark.slow
def test_a_part_is_cold_until_compiled_then_warm_for_every_later_run(tmp_path):
    """cache_state reads numba's own index; warm() compiles (one line for
    the part, however many functions), and a new process finds it warm."""
    (tmp_path / "startup_part.py").write_text(PART_MODULE)
    env = {**_cold(tmp_path), "PYTHONPATH": str(tmp_path)}
    first = _run([sys.executable, "-c", PART_RUN], env, tmp_path)
    assert first.returncode == 0, first.stderr
    before, after = json.loads(first.stdout)
    assert (before["state"], after["state"]) == ("cold", "warm")
    assert before["folder"] == after["folder"] and after["folder"].startswith(env[jit.CACHE_ENV])
    assert first.stderr == "wla: compiling the test part once, about 1 s on two cores " \
                           "(later runs load it from the cache)\n"
    second = _run([sys.executable, "-c", PART_RUN], env, tmp_path)
    assert second.returncode == 0, second.stderr
    assert [s["state"] for s in json.loads(second.stdout)] == ["warm", "warm"]
    assert second.stderr == ""
    (tmp_path / "startup_part.py").write_text(PART_MODULE.replace("3 * x", "x + x + x"))  # the source changed
    third = _run([sys.executable, "-c", PART_RUN], env, tmp_path)
    assert [s["state"] for s in json.loads(third.stdout)] == ["cold", "warm"]


CALLEE = """
from wla.archive.kernel.jit import njit


@njit(cache=True)
def scale(x):
    return 2 * x
"""

CALLER = """
from wla.archive.kernel.jit import njit
from callee_part import scale


@njit(cache=True)
def twice_scaled(x):
    return scale(x) + scale(x)
"""

CALLER_RUN = """
from wla.archive.kernel import jit
jit.PARTS = jit.PARTS + (jit.Part("the two-module part", ("caller_part", "callee_part"), (), 1),)
from caller_part import twice_scaled
print(twice_scaled(5))
"""


@pytest.mark.slow
def test_a_change_to_a_callee_alone_compiles_its_callers_again(tmp_path):
    """numba checks only the source file of the function it loads, and the
    caller's cached code has the callee compiled in: a part keys its cache
    by all its modules, so the caller is not loaded stale."""
    (tmp_path / "callee_part.py").write_text(CALLEE)
    (tmp_path / "caller_part.py").write_text(CALLER)
    env = {**_cold(tmp_path), "PYTHONPATH": str(tmp_path)}
    first = _run([sys.executable, "-c", CALLER_RUN], env, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["20"] and "compiling the two-module part" in first.stderr
    again = _run([sys.executable, "-c", CALLER_RUN], env, tmp_path)
    assert again.stdout.split() == ["20"] and again.stderr == ""  # loaded from the cache
    (tmp_path / "callee_part.py").write_text(CALLEE.replace("2 * x", "3 * x"))
    changed = _run([sys.executable, "-c", CALLER_RUN], env, tmp_path)
    assert changed.returncode == 0, changed.stderr
    assert changed.stdout.split() == ["30"]  # numba alone would load the old caller and print 20


def _dispatcher(module: str, kept: bool = True) -> SimpleNamespace:
    return SimpleNamespace(py_func=SimpleNamespace(__module__=module),
                           _cache=SimpleNamespace(_cache_file=object() if kept else None))


def test_the_notice_is_one_line_per_process(monkeypatch, capsys):
    """Two parts compiled by one command are one wait: one line, naming the first."""
    monkeypatch.setitem(jit._compiles, "told", False)
    jit._announce(_dispatcher("somebody.elses"))  # not wla's
    jit._announce(_dispatcher("wla.sim.invariants", kept=False))  # no cache: NOTE says it all
    for module in ("wla.sim.core", "wla.sim.core", "wla.archive.swf.tokenizer", "wla.archive.swf.layout"):
        jit._announce(_dispatcher(module))
    assert capsys.readouterr().err == jit.compiling_notice(jit.part_of("wla.sim.core")) + "\n"


def test_every_module_that_compiles_belongs_to_a_part():
    """A module compiling with njit and in no part would compile unannounced,
    and `wla doctor` would not know it."""
    compiling = set()
    for folder in ("archive", "sim"):
        for path in (ROOT / folder).rglob("*.py"):
            source = path.read_text(encoding="utf-8")
            if "import njit" in source and path.name != "jit.py":
                compiling.add("wla." + ".".join(path.relative_to(ROOT).with_suffix("").parts))
    assert compiling and compiling <= {m for part in compiled_parts() for m in part.modules}
    for part in compiled_parts():
        assert all(callable(jit._function(spec)) for spec in part.warm), part
        assert jit.compiled_functions(part), part  # each part has compiled code to find


# -- wla doctor ----------------------------------------------------------------------------------


def test_doctor_on_a_cold_cache(tmp_path):
    env = {**_cold(tmp_path), "WLA_ARCHIVE": "elsewhere.duckdb"}
    run = _run([str(WLA), "doctor", "--json"], env, tmp_path)
    assert (run.returncode, run.stderr) == (0, "")
    data = json.loads(run.stdout)
    assert data["wla"] == metadata.version("wla")
    assert data["python"] == ".".join(map(str, sys.version_info[:3]))
    assert data["libraries"] == {name: metadata.version(name)
                                 for name in ("duckdb", "numba", "numpy", "pandas", "scipy", "sqlglot")}
    assert data["archive"] == {"path": str(tmp_path / "elsewhere.duckdb"), "exists": False}
    assert data["cache_folder"] == env[jit.CACHE_ENV]
    assert [c["part"] for c in data["compiled"]] == [p.name for p in compiled_parts()]
    assert {c["state"] for c in data["compiled"]} == {"cold"}
    assert all(c["folder"].startswith(env[jit.CACHE_ENV]) for c in data["compiled"])
    text = _run([str(WLA), "-a", "given.duckdb", "doctor"], env, tmp_path).stdout.splitlines()
    assert text[0] == f"wla {data['wla']} on Python {data['python']}"
    assert text[2] == f"archive: {tmp_path / 'given.duckdb'} (none yet: `wla ingest` makes it)"
    assert [line.split()[-2] for line in text if line.startswith("the ")] == ["cold"] * len(compiled_parts())
    assert text[-1].endswith("`wla doctor --warm` does it now")


@pytest.mark.slow
def test_doctor_warm_compiles_every_part_once(tmp_path):
    """Minutes on two cores: the whole simulator and the SWF reader."""
    env = _cold(tmp_path)
    run = _run([str(WLA), "doctor", "--warm", "--json"], env, tmp_path)
    assert run.returncode == 0, run.stderr
    assert {c["state"] for c in json.loads(run.stdout)["compiled"]} == {"warm"}
    assert run.stderr == "".join(jit.compiling_notice(p) + "\n" for p in compiled_parts())
    again = _run([str(WLA), "doctor", "--warm", "--json"], env, tmp_path)
    assert again.stderr == "" and {c["state"] for c in json.loads(again.stdout)["compiled"]} == {"warm"}
