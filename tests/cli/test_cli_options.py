"""Options declared once, with the library's defaults; flags that are flags;
-a on every command; `wla --version`; the help in the order of the work."""
from __future__ import annotations

import importlib
import inspect
import json
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
import wla
from cli_run import wla as run_wla
from typer.main import get_command
from wla.cli import options
from wla.cli.main import app
from wla.cli.settings import BUILT
from wla.sim.settings import SimSettings

CLI = Path(options.__file__).parent


def _commands():
    return get_command(app).commands


def _declared(command):
    """The OptionInfo / ArgumentInfo objects a command's parameters were declared with."""
    info = next(c for c in app.registered_commands if c.name == command)
    return [p.default for p in inspect.signature(info.callback).parameters.values()]


def _library_default(function: str, parameter: str) -> object:
    module, _, name = function.partition(":")
    return inspect.signature(getattr(importlib.import_module(module), name)).parameters[parameter].default


def test_every_library_default_is_the_librarys_own():
    assert len(options.LIBRARY) >= 20
    for option, sources in options.LIBRARY:
        for source in sources:
            function, _, parameter = source.rpartition(".")
            assert option.default == _library_default(function, parameter), (option.param_decls, source)


def test_options_built_from_settings_have_the_settings_defaults():
    """The simulator's, the studies' and the resampling's options restate nothing."""
    assert {cls.__name__ for _, cls, _ in BUILT} == {"SimSettings", "ShakeSettings", "ResampleSettings"}
    for built, cls, name in BUILT:
        assert built.default == cls.default(name), (cls.__name__, name)
    simulate = _commands()["simulate"]
    assert {p.name for p in simulate.params} >= set(SimSettings.names())


def test_no_default_is_restated_on_the_command_line():
    """Every option that has a default other than None takes it from the
    library, or is one of the few the command line owns (how it shows things)."""
    registered = {id(o) for o, _ in options.LIBRARY} | {id(o) for o in options.CLI_ONLY} | {id(o) for o, _, _ in BUILT}
    for command in _commands():
        for declared in _declared(command):
            default = getattr(declared, "default", None)
            if default not in (None, ..., []):
                assert id(declared) in registered, (command, declared.param_decls, default)
    assert sorted(o.param_decls[0] for o in options.CLI_ONLY) == \
        ["--absolute", "--all", "--date", "--format", "--json", "--limit", "--limit", "--metric", "--quiet",
         "--resample", "--resample", "--resume", "--solve/--no-solve", "--two-stage", "--version", "--wide"]


def test_options_are_declared_in_one_module():
    for path in CLI.glob("*.py"):
        if path.name not in ("options.py", "settings.py"):  # settings.py: the options of the settings classes
            source = path.read_text()
            assert "typer.Option(" not in source and "typer.Argument(" not in source, path.name
    longs = [o.param_decls[0] for o in vars(options).values() if type(o).__name__ == "OptionInfo"]
    # the same name for different things, each declared once: --exclude leaves jobs out
    # or leaves them unmeasured, --procs is optional for simulate and required for esp, ...
    assert longs.count("--json") == longs.count("--archive") == longs.count("--where") == 1


def test_flags_are_flags_and_every_command_takes_the_archive():
    for name, command in _commands().items():
        opts = {o for p in command.params for o in p.opts}
        assert {"--archive", "-a"} <= opts, name
        for p in command.params:
            if isinstance(getattr(p, "default", None), bool):
                assert p.is_flag, (name, p.name)
    help_text = run_wla("capacity", "--help").out
    assert "<bool>" not in help_text and re.search(r"^  --json +Print JSON", help_text, re.M)
    assert "[default: 0.05]" in help_text and "[default: 5000]" in help_text and "[default: 20000]" in help_text
    assert run_wla("ls", "--json", "true").status == 2  # a flag takes no value


def test_version():
    run = run_wla("--version")
    assert (run.status, run.out) == (0, f"wla {version('wla')}\n")
    assert wla.__version__ == version("wla")


def test_help_lists_the_commands_in_the_order_of_the_work():
    out = run_wla("--help").out
    listed = re.findall(r"^  ([a-z]+)  ", out.split("Commands:")[1], re.M)
    assert listed == ["ingest", "pull", "convert", "ls", "info", "set", "note", "sql", "export", "quality", "flurries",
                      "load", "capacity", "rules", "clean", "versions", "recipe", "diff", "why", "provenance",
                      "publish", "site", "simulate", "shake", "sweep", "compare", "users", "resample", "stats",
                      "sessions", "validate", "esp", "doctor"]


# What a command loads, in a fresh interpreter: which of the modules named
# (argv[1], comma-separated) are loaded once `wla ARGV[2:]...` has run.
_LOADED = ("import json, sys\nfrom wla.cli.main import main\n"
           "libraries, sys.argv = sys.argv[1].split(','), ['wla'] + sys.argv[2:]\n"
           "try:\n    main()\nexcept SystemExit:\n    pass\n"
           "print('loaded:', json.dumps(sorted(m for m in libraries if m in sys.modules)))")
HEAVY = ("pandas", "numpy", "pyarrow", "duckdb", "numba", "scipy", "sqlglot", "matplotlib", "rich", "pydantic")
# numba imports the scipy package itself (a version check); its linear algebra is what is heavy.
NUMERICAL = ("scipy.linalg", "scipy.optimize", "matplotlib", "pydantic")
TINY_SWF = ("; MaxProcs: 8\n1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
            "2 5 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n")


@pytest.fixture(scope="module")
def tiny_archive(tmp_path_factory):
    from wla.archive import open as open_archive
    from wla.archive.store.ingest import ingest

    folder = tmp_path_factory.mktemp("startup")
    (folder / "tiny.swf").write_text(TINY_SWF)
    with open_archive(folder / "a.duckdb", write=True) as a:
        ingest(a, [folder / "tiny.swf"])
    return folder / "a.duckdb"


def _loaded(libraries: tuple[str, ...], *args: str) -> list[str]:
    """The modules of `libraries` that `wla ARGS...` loaded, run in a new interpreter."""
    run = subprocess.run([sys.executable, "-c", _LOADED, ",".join(libraries), *args],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.splitlines()[-1].removeprefix("loaded: "))


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["ls", "--help"], ["simulate", "--help"]])
def test_help_and_version_load_none_of_the_heavy_libraries(args):
    """Start-up stays fast: the commands import what they use when they run,
    the options read the library's defaults without importing it, and their
    values are read without pydantic (typer below 0.29 reads them with click's types)."""
    assert _loaded(HEAVY, *args) == []


@pytest.mark.parametrize("args, unneeded", [
    # DuckDB alone: the catalog's kept figures, rendered in plain Python
    (["ls"], ("pandas", "numpy", "pyarrow", "numba", "scipy", "sqlglot", "matplotlib", "pydantic")),
    (["info", "tiny"], ("numba", "scipy", "matplotlib", "pydantic")),
    (["sql", "SELECT count(*) AS n FROM jobs"], ("numba", "scipy", "matplotlib", "pydantic")),
    # DuckDB, numpy and numba without its linear algebra: the log read as numpy columns
    (["simulate", "tiny"], ("pandas", "pyarrow", "sqlglot", *NUMERICAL)),
    (["simulate", "tiny", "--json"], ("pandas", "pyarrow", "sqlglot", *NUMERICAL)),
])
def test_a_command_loads_only_the_libraries_it_uses(tiny_archive, args, unneeded):
    assert _loaded(unneeded, "-a", str(tiny_archive), *args) == []
