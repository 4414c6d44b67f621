"""Each rule on small hand-made logs, in the style of sqlglot's fixtures.

tests/fixtures/rules/<rule>.txt holds cases separated by blank lines: a
comment saying what the case shows, optional `header:` lines (the log's SWF
header) and `params: name = value` lines (TOML values), optionally the
version's `machine size:` (its logs row, and the source of it), then the
`input:` jobs, the `output:` jobs the version keeps, and optionally the
`decisions:`.
Tables are `|`-separated with a row of column names; a field not given is -1.
Every case goes the whole way: SWF file, ingest, recipe, clean.
"""
from __future__ import annotations

import tomllib

import pandas as pd
import pytest
from real_logs import TESTS
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe
from wla.archive.store.ingest import ingest
from wla.archive.swf.fields import COLUMNS

FIXTURES = TESTS / "fixtures" / "rules"


def _table(lines: list[str]) -> pd.DataFrame:
    head = [c.strip() for c in lines[0].split("|")]
    rows = [[c.strip() for c in ln.split("|")] for ln in lines[1:]]
    return pd.DataFrame(rows, columns=head)


def _cases() -> list:
    out = []
    for f in sorted(FIXTURES.glob("*.txt")):
        for k, block in enumerate(f.read_text().strip().split("\n\n")):
            lines = block.splitlines()
            title = next(ln[1:].strip() for ln in lines if ln.startswith("#"))
            out.append(pytest.param(f.stem, block, id=f"{f.stem}-{k + 1}: {title[:50]}"))
    return out


def _parse(block: str) -> dict:
    case: dict = {"header": [], "params": {}, "input": [], "output": [], "decisions": [], "size": None}
    section = None
    for line in block.splitlines():
        if line.startswith("#"):
            continue
        if line.startswith("header:"):
            case["header"].append(line[len("header:"):].strip())
        elif line.startswith("machine size:"):
            case["size"] = line[len("machine size:"):].strip()
        elif line.startswith("params:"):
            case["params"].update(tomllib.loads(line[len("params:"):].strip()))
        elif line.rstrip(":") in ("input", "output", "decisions") and line.endswith(":"):
            section = line[:-1]
        else:
            case[section].append(line)
    return case


def _swf(header: list[str], jobs: pd.DataFrame) -> str:
    lines = list(header)
    for row in jobs.to_dict("records"):
        lines.append(" ".join(str(row.get(c, -1)) for c in COLUMNS))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("rule, block", _cases())
def test_rule_fixture(tmp_path, rule, block):
    case = _parse(block)
    (tmp_path / "case.swf").write_text(_swf(case["header"], _table(case["input"])))
    step = "\n".join(f"{k} = {_toml(v)}" for k, v in case["params"].items())
    recipe = parse_recipe(f'log = "case"\nversion = "t"\n\n[[step]]\nrule = "{rule}"\n{step}\n')
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        assert ingest(a, [tmp_path / "case.swf"])[0].status == "ingested"
        clean(a, recipe)
        want = _table(case["output"])
        got = a.df(f"SELECT {', '.join(want.columns)} FROM jobs WHERE log_id = "
                    "(SELECT log_id FROM logs WHERE name = 'case@t') ORDER BY line_no")
        assert got.astype(float).values.tolist() == want.astype(float).values.tolist()
        if case["size"] is not None:
            size, source = a.con.execute("SELECT machine_size, machine_size_source FROM logs "
                                         "WHERE name = 'case@t'").fetchall()[0]
            assert f"{size} ({source})" == case["size"]
        decided = a.df("SELECT job, action, coalesce(field, '') AS field, old_value AS old, "
                        "new_value AS new, reason FROM decisions ORDER BY job, field")
    want = _table(case["decisions"]) if case["decisions"] else pd.DataFrame(columns=["job", "action"])
    assert decided["job"].tolist() == want["job"].astype(int).tolist()
    assert decided["action"].tolist() == want["action"].tolist()
    for col in ("field", "reason"):
        if col in want:
            assert decided[col].tolist() == want[col].tolist()
    for col in ("old", "new"):
        if col in want:
            expected = [float(v) if v else None for v in want[col]]
            assert [None if pd.isna(v) else v for v in decided[col]] == expected


def _toml(value) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)
