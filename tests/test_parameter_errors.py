"""The library's messages speak of the Python API: they name a parameter
(`runs`), never a flag, and the command line shows the parameter as the
running command's option (`--runs`). A message that named a flag would
tell a Python caller to give something no function takes."""
from __future__ import annotations

import ast
import gzip
import re
from pathlib import Path

import pandas as pd
import pytest
import wla
from cli_run import wla as run_wla
from real_logs import data_dir
from wla.archive import QueryError
from wla.archive import open as open_archive
from wla.archive.kernel import errors
from wla.archive.kernel.errors import LogExists, OptionError, ParameterError
from wla.archive.pull.catalog import load_catalog, select
from wla.archive.store.ingest import ingest
from wla.sim.evaluate.executors import executor
from wla.sim.evaluate.grid import parse_grid
from wla.sim.evaluate.shake import shake
from wla.sim.workload import from_frame

ROOT = Path(wla.__file__).resolve().parent
LOG = "HPC2N-2002-2.2-head3170"
FLAG = re.compile(r"--[A-Za-z]")
ERROR_CLASSES = {name for name, value in vars(errors).items()
                 if isinstance(value, type) and issubclass(value, BaseException)}
# Messages of the library that may name a flag: (file, message as scanned) ->
# the reason. None needs one today: even a message that says how to allow
# something names the parameter (read_files), which the command line spells.
ALLOWED: dict[tuple[str, str], str] = {}


def _strings(node: ast.AST, constants: dict[str, str]):
    """(line, text) for each string an expression writes: literals,
    f-strings (an interpolated constant of the module as its text, any other
    value as `X`, so that `--{which}` counts as a flag) and the module's
    string constants it refers to."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.lineno, node.value
    elif isinstance(node, ast.JoinedStr):
        yield node.lineno, "".join(_part(v, constants) for v in node.values)
    elif isinstance(node, ast.Name) and node.id in constants:
        yield node.lineno, constants[node.id]
    else:
        for child in ast.iter_child_nodes(node):
            yield from _strings(child, constants)


def _part(value: ast.AST, constants: dict[str, str]) -> str:
    if isinstance(value, ast.Constant):
        return str(value.value)
    inner = value.value if isinstance(value, ast.FormattedValue) else value
    return constants.get(inner.id, "X") if isinstance(inner, ast.Name) else "X"


def _is_error(call: ast.Call) -> bool:
    """A call that makes one of wla's errors: `UsageError(...)`, `OptionError(...)`,
    `LogExists.naming(...)`, `type(e).naming(...)`."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in ERROR_CLASSES
    return isinstance(func, ast.Attribute) and func.attr == "naming"


def flags_in_messages(source: str) -> list[tuple[int, str]]:
    """(line, text) of each message that names a flag: in a raise, or in
    an error made to be raised later (a journal's refusal, a query's error)."""
    tree = ast.parse(source)
    constants = {target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                 and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                 for target in node.targets if isinstance(target, ast.Name)}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None or isinstance(node, ast.Call) and _is_error(node):
            found |= {(line, text) for line, text in _strings(node, constants) if FLAG.search(text)}
    return sorted(found)


def test_no_message_of_the_library_names_a_flag():
    sources = sorted([*ROOT.joinpath("archive").rglob("*.py"), *ROOT.joinpath("sim").rglob("*.py")])
    assert len(sources) > 50
    found = [(str(path.relative_to(ROOT)), line, text) for path in sources
             for line, text in flags_in_messages(path.read_text(encoding="utf-8"))]
    assert [f"{file}:{line}: {text!r}" for file, line, text in found if (file, text) not in ALLOWED] == []


def test_the_scan_sees_a_flag_however_a_message_is_written():
    """A literal, an f-string's text or an interpolated option name, a module
    constant, an error made without a raise; not a dash that is no flag."""
    source = ('HINT = "run it again with --resume"\n'
              'def f(which, x):\n'
              '    if x == 1:\n        raise UsageError("give --runs")\n'
              '    if x == 2:\n        raise UsageError(f"--{which} takes KEY=VALUE")\n'
              '    if x == 3:\n        raise UsageError(f"cannot: {HINT}")\n'
              '    if x == 4:\n        raise UsageError("a -- b, --")\n'
              '    return QueryError(f"see {x} --read-files")\n')
    assert [line for line, _ in flags_in_messages(source)] == [4, 6, 8, 11]


# -- Python says the parameter, the command line the option ------------------------

@pytest.fixture(scope="module")
def archive_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("named") / "a.duckdb"
    with open_archive(path, write=True) as a:
        [r] = ingest(a, [data_dir() / f"{LOG}.swf.gz"])
    assert r.status == "ingested"
    return path


def _tiny():
    return from_frame(pd.DataFrame({"submit": [0.0, 10.0], "run": [5.0, 5.0], "procs": [1, 2]}), procs=4)


def test_a_range_check_names_the_parameter_in_python_and_the_option_on_the_command_line(archive_file):
    with pytest.raises(OptionError) as e:
        shake(_tiny(), runs=0)
    assert e.value.name == "runs" and str(e.value) == "runs is at least 1, not 0"
    assert run_wla("shake", LOG, "--runs", "0", archive=archive_file).one_error_line() == \
        "wla: --runs is at least 1, not 0"


def test_a_message_may_name_several_parameters(archive_file):
    with pytest.raises(ParameterError) as e:
        executor(1, "tcp://127.0.0.1:9")
    assert str(e.value) == "give workers or dask, not both (a cluster has its own workers)"
    assert run_wla("shake", LOG, "--workers", "1", "--dask", "tcp://127.0.0.1:9",
                   archive=archive_file).one_error_line() == \
        "wla: give --workers or --dask, not both (a cluster has its own workers)"


def test_a_grid_is_named_as_the_sweep_takes_it(archive_file):
    with pytest.raises(OptionError) as e:
        parse_grid("load=abc")
    assert str(e.value) == "grid load=abc: 'abc' is not a number"
    assert run_wla("sweep", LOG, "--grid", "load=abc", archive=archive_file).one_error_line() == \
        "wla: --grid load=abc: 'abc' is not a number"


def test_an_option_that_feeds_a_parameter_of_another_name_is_named(archive_file, tmp_path):
    """The sweep's --metric feeds check_metric's `shown_metric`: the error names --metric."""
    r = run_wla("sweep", LOG, "--grid", "load=0.5", "--runs", "0", "--plot", tmp_path / "s.png", "--metric", "nope",
                archive=archive_file)
    assert r.one_error_line().startswith("wla: --metric is one of wait_mean, ")


def test_a_parameter_only_one_command_gives_is_named_with_its_command(archive_file, tmp_path):
    groups = tmp_path / "g.csv"
    groups.write_text("a\n1\n")
    query = f"SELECT * FROM read_csv('{groups}')"
    with open_archive(archive_file) as a, pytest.raises(QueryError) as e:
        a.sql(query)
    assert str(e.value).startswith("queries do not reach files unless allowed (read_files): ")
    for args in (("sql", query), ("simulate", "--query", query, "--procs", "4")):
        assert run_wla(*args, archive=archive_file).one_error_line().startswith(
            "wla: queries do not reach files unless allowed (wla sql --read-files): ")


def test_an_ingest_result_names_the_parameters_and_the_command_the_options(archive_file, tmp_path):
    other = tmp_path / "other.swf"  # the log held, but for its header: another log of the same name
    other.write_bytes(gzip.open(data_dir() / f"{LOG}.swf.gz").read().replace(b"; MaxProcs: 240",
                                                                              b"; MaxProcs: 241"))
    copy = tmp_path / "a.duckdb"
    copy.write_bytes(Path(archive_file).read_bytes())
    with open_archive(copy, write=True) as a:
        [r] = ingest(a, [other], name=LOG)
    assert r.status == "failed" and isinstance(r.error, LogExists)
    assert r.message.endswith("; use replace to replace it, or name to ingest it under another name")
    line = run_wla("ingest", other, "--name", LOG, archive=copy).err.splitlines()[0]
    assert line.endswith("; use --replace to replace it, or --name to ingest it under another name")


def test_pull_names_all_and_the_command_line_points_at_its_help(tmp_path):
    catalog = load_catalog()
    with pytest.raises(ParameterError) as e:
        select(catalog, [], False)
    assert str(e.value) == "name the logs to pull, or give all"
    with pytest.raises(ParameterError) as e:
        select(catalog, ["x"], True)
    assert str(e.value) == "name logs or give all, not both"
    where = tmp_path / "a.duckdb"
    assert run_wla("pull", archive=where).one_error_line() == \
        "wla: name the logs to pull, or give --all (`wla pull --help`)"
    assert run_wla("pull", "x", "--all", archive=where).one_error_line() == "wla: name logs or give --all, not both"
    assert not where.exists()


def test_a_name_that_is_no_identifier_is_written_as_it_is(archive_file, tmp_path):
    """`max-procs` is a fact of `wla set`, not a parameter: no braces, no
    dashes added; a resampling setting is its option."""
    copy = tmp_path / "a.duckdb"
    copy.write_bytes(Path(archive_file).read_bytes())
    assert run_wla("set", LOG, "max-procs", "0", archive=copy).one_error_line() == \
        "wla: max-procs must be a whole number from 1 to 2,147,483,647, not 0"
    assert run_wla("resample", LOG, "--long-term", "-1", archive=copy).one_error_line() == \
        "wla: --long-term must be a whole number from 0 to 10,000,000, not -1"
