"""SQL one way: no statement of the package is text with values pasted in.

Every statement holding anything from a user, a file or a rule is a sqlglot
tree (archive/kernel/statements.py) or constant text with bound parameters. This
test reads the package's source with `ast` and fails on SQL made by
formatting: an f-string, `+`, `%` or `.format` whose text reads as SQL, or
any f-string handed to execute/sql/df/query. A message that merely names a
keyword (`raise RuleError(f"{file}: a rule is one SELECT ...")`) is not SQL.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import duckdb
import numpy as np
import pytest
from wla.archive import open as open_archive
from wla.archive.clean.build import clean, step_view
from wla.archive.clean.recipe import parse_recipe
from wla.archive.store.ingest import ingest
from wla.sim.result import SimResult
from wla.sim.save import parquet_settings, save_parquet, save_table, saved_settings

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ("archive", "cli", "schema", "sim")  # the folders of the import package wla

# Where SQL is still made by formatting, and why it is safe. Empty: keep it so.
ALLOWED: dict[tuple[str, str], str] = {}

_KEYWORDS = re.compile(r"\b(SELECT|INSERT INTO|CREATE|DROP|DELETE FROM|UPDATE|COPY|COMMENT ON|ALTER|"
                       r"ATTACH|PRAGMA|FROM|WHERE|JOIN|UNION|VALUES|ORDER BY|GROUP BY|CASE WHEN)\b|\bCAST\(")
_STARTS = re.compile(r"^\s*\(?\s*((SELECT|INSERT|CREATE|DROP|DELETE|UPDATE|COPY|COMMENT|WITH|ALTER|"
                     r"ATTACH|PRAGMA|SET|FROM|WHERE|AND|OR|JOIN|VALUES)|"
                     r"(?i:select|insert|create|drop|delete|update|copy|alter|attach|pragma))\b")
_RUNNERS = {"execute", "executemany", "sql", "df", "query", "from_query", "_run"}


def _text(node: ast.AST) -> str:
    """The literal text of a string expression, `{}` where a value goes."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return ""


def _is_sql(text: str) -> bool:
    return bool(_KEYWORDS.search(text) or _STARTS.match(text))


def _messages(tree: ast.AST) -> set[int]:
    """ids of the nodes inside a raise: error messages, not statements."""
    return {id(n) for r in ast.walk(tree) if isinstance(r, ast.Raise) for n in ast.walk(r)}


def formatted_sql(source: str) -> list[tuple[int, str]]:
    """(line, code) of every piece of SQL made by formatting in `source`."""
    tree = ast.parse(source)
    skip = _messages(tree)
    found: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        hit = False
        if isinstance(node, ast.JoinedStr):
            hit = _is_sql(_text(node))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            sides = [node.left, node.right]
            hit = (any(_is_sql(_text(s)) for s in sides)
                   and not all(isinstance(s, ast.Constant) for s in sides))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "format":
                hit = _is_sql(_text(node.func.value))
            elif node.func.attr in _RUNNERS and node.args and isinstance(node.args[0], ast.JoinedStr):
                node, hit = node.args[0], True
        if hit:
            found[id(node)] = node
    return sorted((n.lineno, ast.get_source_segment(source, n) or "") for n in found.values())


def _package_files() -> list[Path]:
    files = [ROOT / "__init__.py"]
    for folder in PACKAGE:
        files += sorted((ROOT / folder).rglob("*.py"))
    return files


def test_no_sql_is_made_by_formatting():
    found = []
    for path in _package_files():
        rel = path.relative_to(ROOT).as_posix()
        for line, code in formatted_sql(path.read_text(encoding="utf-8")):
            if (rel, code) not in ALLOWED:
                found.append(f"{rel}:{line}: {code[:100]}")
    assert found == [], "SQL made by formatting; build it with sqlglot or bind its values:\n" + "\n".join(found)
    assert len(_package_files()) > 40  # the scan saw the package


SAMPLE = '''\
con.execute(f"DELETE FROM {table} WHERE log_id = ?", [1])
query = f"SELECT {cols} FROM jobs"
con.sql(f"{x}")
con.execute("COMMENT ON TABLE t IS '" + text + "'")
sql = "SELECT * FROM jobs WHERE log_id = %d" % log_id
sql = "UPDATE logs SET {} = ?".format(column)
where = f"select job from {table}"
con.execute("SELECT * FROM jobs WHERE log_id = ?", [1])
con.execute(text(exp.select("*").from_("jobs")))
message = f"{name} has {n} jobs"
label = "SELECT " + "1"
note = f" with {params}" + f" (and {n} more)"
raise RuleError(f"{file}: a rule is one SELECT over input")
'''


def test_the_scan_finds_each_way_of_pasting_and_nothing_else():
    lines = [line for line, _ in formatted_sql(SAMPLE)]
    assert lines == [1, 2, 3, 4, 5, 6, 7]


# -- names and values that would break pasted SQL, through the builders --

def test_names_with_quotes_make_views_that_read_back(tmp_path):
    """A log name may hold quotes: its versions' views are quoted identifiers,
    and a reason with quotes is a value, not SQL."""
    name, reason = 'it\'s a "log"', 'user one\'s "jobs" \\ é'
    log = tmp_path / "l.swf"
    log.write_text("; MaxProcs: 8\n" + "".join(
        f"{j} {j * 10} 0 100 {j % 4 + 1} -1 -1 -1 -1 -1 1 {j % 3} 1 -1 -1 -1 -1 -1\n" for j in range(1, 13)))
    recipe = (f'log = {json.dumps(name)}\nversion = "v1"\n[[step]]\nrule = "filter"\n'
              f'where = "user = 1"\nreason = {json.dumps(reason)}\n')
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [log], name=name)
        res = clean(a, parse_recipe(recipe, "r.toml"))
        view = step_view(res.name, 1, "filter")
        assert view == 'it\'s a "log"@v1/1-filter'
        for relation in (view, res.name):  # quoted here by hand, the SQL standard's way
            quoted = '"' + relation.replace('"', '""') + '"'
            kept = a.con.execute("SELECT job FROM " + quoted + " ORDER BY job").fetchall()
            assert [j for (j,) in kept] == [j for j in range(1, 13) if j % 3 != 1]
        assert a.con.execute("SELECT DISTINCT reason FROM decisions").fetchall() == [(reason,)]


def _result(source: dict) -> SimResult:
    n = np.arange(3)
    return SimResult(settings={"policy": "easy"}, source=source, counts={"jobs": 3}, metrics={},
                     job=n + 1, submit=n * 1.0, start=n * 1.0, end=n + 1.0, run=np.ones(3),
                     procs=np.ones(3, dtype=np.int64), estimate=np.ones(3), wait=np.zeros(3),
                     response=np.ones(3), bounded_slowdown=np.ones(3), measured=np.ones(3, dtype=bool))


SOURCE = {"query": "SELECT 'it''s' AS a, '\\\\' AS b -- \"quoted\" é ✓", "note": "back\\slash ' \" \u2028"}


def test_saved_settings_keep_quotes_backslashes_and_non_ascii(tmp_path):
    result = _result(SOURCE)
    path = tmp_path / "it's \"a\" é.parquet"
    save_parquet(result, path)
    assert parquet_settings(path) == result.summary()
    assert duckdb.execute("SELECT count(*) FROM read_parquet(?)", [str(path)]).fetchone()[0] == 3
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        save_table(result, a, "run_1")
        assert saved_settings(a, "run_1") == result.summary()
        assert saved_settings(a, "run_1")["source"]["note"] == "back\\slash ' \" \u2028"


@pytest.mark.parametrize("name", ["x'); DROP TABLE logs; --", 'a"b'])
def test_a_table_name_that_would_break_out_is_refused(tmp_path, name):
    from wla.archive.kernel.errors import UsageError
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        with pytest.raises(UsageError, match="letters, digits and _"):
            save_table(_result({}), a, name)
        assert a.con.execute("SELECT count(*) FROM logs").fetchone()[0] == 0
