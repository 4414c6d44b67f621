"""One errors module for the whole package, and decisions made by what a
failure is, never by reading its message."""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import wla
from wla.archive import open as open_archive
from wla.archive.clean.rules import parse_rule
from wla.archive.kernel import errors
from wla.archive.kernel.errors import ArchiveLocked, RuleError, WlaError
from wla.archive.store.lock import lock_holder

ROOT = Path(wla.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent
ERRORS = {name for name, value in vars(errors).items()
          if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == errors.__name__}


def _modules() -> list[str]:
    """Every module of the package."""
    return [info.name for info in pkgutil.walk_packages(wla.__path__, "wla.")]


def test_every_exception_class_of_the_package_is_defined_in_archive_errors():
    defined = {}
    for name in _modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name:
                defined[f"{name}.{value.__name__}"] = value
    assert defined and all(k.startswith("wla.archive.kernel.errors.") for k in defined), sorted(defined)
    assert {"PredicateError", "RecipeError", "RuleError", "LineError", "ScheduleInvalid", "Escaped"} <= ERRORS


def _sources() -> list[Path]:
    return sorted([*ROOT.joinpath("archive").rglob("*.py"), *ROOT.joinpath("sim").rglob("*.py"),
                   *ROOT.joinpath("cli").rglob("*.py"), *TESTS.rglob("*.py"), *ROOT.joinpath("bench").glob("*.py")])


def test_error_classes_are_imported_from_archive_errors_only():
    """Code and tests name the module that defines them (or the archive's
    public face, `wla.archive`), never a module that happens to use them."""
    wrong = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = "." * node.level + (node.module or "")
            allowed = source in ("wla.archive.kernel.errors", "wla.archive", ".errors",
                                 ".kernel.errors", "..kernel.errors", "...kernel.errors")
            for alias in node.names:
                if alias.name in ERRORS and not allowed:
                    wrong.append(f"{path.relative_to(ROOT.parent)}: {alias.name} from {source}")
    assert wrong == []


# -- a lock is found by asking the system, not by reading DuckDB's message --------

HOLD = """
    import sys, time
    from wla.archive import open
    a = open(sys.argv[1], write=True)
    print("holding", flush=True)
    time.sleep(60)
"""


def test_a_locked_archive_names_the_process_that_holds_it(tmp_path):
    path = tmp_path / "a.duckdb"
    open_archive(path, write=True).close()
    assert lock_holder(str(path), write=True) is None
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(HOLD), str(path)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        assert lock_holder(str(path), write=True) == holder.pid
        assert lock_holder(str(path), write=False) == holder.pid  # a writer keeps readers out too
        with pytest.raises(ArchiveLocked, match=rf"locked by another process \(PID {holder.pid}\)"):
            open_archive(path)
    finally:
        holder.kill()
        holder.wait()
    assert lock_holder(str(path), write=True) is None


def test_a_file_that_is_no_archive_is_not_called_locked(tmp_path):
    path = tmp_path / "not.duckdb"
    path.write_bytes(b"lock " * 2000)  # DuckDB's message may say anything; the file is simply not a database
    with pytest.raises(WlaError) as e:
        open_archive(path)
    assert not isinstance(e.value, ArchiveLocked)
    assert str(e.value).startswith(f"cannot open archive {path}")


# -- an unknown column is found in the query's tree ---------------------------------

HEADER = "-- name: mine\n-- version: 1\n-- rationale:\n--   a test\n"


@pytest.mark.parametrize("sql, message", [
    ("SELECT *, CASE WHEN porcs > 1 THEN 'x' END AS _drop FROM input", "unknown column 'porcs'"),
    ("SELECT *, q.nope AS _drop FROM input", "unknown column 'q.nope'"),
    ("SELECT * FROM input ORDER BY nope", "unknown column 'nope'"),
    ("SELECT input.*, CAST(job AS VARCHAR) AS _drop FROM input, jobs", "ambiguous column 'job' (in input, jobs)"),
])
def test_a_column_no_table_has_or_two_tables_have_is_named(sql, message):
    with pytest.raises(RuleError) as e:
        parse_rule(HEADER + sql + "\n", "mine.sql")
    assert str(e.value).startswith(f"mine.sql: {message}; input has line_no, job, ")
