"""Recipes and rule parameters a person may get wrong: numbers that are not
finite or beyond 64 bits or outside a rule's range, files that are not
UTF-8 or not TOML or not files. Each is one error naming file (and line, or
step and parameter), and nothing is written."""
from __future__ import annotations

import os

import pytest
from cli_run import wla
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe, read_recipe, step_params
from wla.archive.clean.rules import NUMERIC, Bounds, load_rules, parse_rule
from wla.archive.kernel.errors import RecipeError, RuleError
from wla.archive.store.ingest import ingest

TINY = "; MaxProcs: 16\n; UnixStartTime: 0\n" + "".join(
    f"{j} {j * 10} 0 100 {j} -1 -1 {j} -1 -1 1 1 1 -1 -1 -1 -1 -1\n" for j in range(1, 11))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """An archive of one small log; the tests that build keep to their own versions."""
    root = tmp_path_factory.mktemp("recipes")
    (root / "tiny.swf").write_text(TINY)
    path = root / "a.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [root / "tiny.swf"])
    return path


def _step(rule: str, extra: str) -> str:
    return f'log = "tiny"\nversion = "v"\n\n[[step]]\nrule = "{rule}"\n{extra}\n'


@pytest.mark.parametrize("rule, extra, says", [
    ("normalize", "allowance = nan", "allowance: nan is not a finite number"),
    ("normalize", "allowance = inf", "allowance: inf is not a finite number"),
    ("normalize", "allowance = -inf", "allowance: -inf is not a finite number"),
    ("normalize", "allowance = 1e999", "allowance: inf is not a finite number"),
    ("normalize", "allowance = 1e300", "allowance: 1e+300 is outside the 64-bit range"),
    ("normalize", "allowance = -1", "allowance: -1 is out of range: number >= 0"),
    ("status", "statuses = [1, 99999999999999999999]", "statuses: 99999999999999999999 is outside the 64-bit"),
    ("status", "statuses = [-9223372036854775809]", "statuses: -9223372036854775809 is outside the 64-bit"),
    ("capacity", f"capacity = {2**70}", f"capacity: {2**70} is outside the 64-bit range"),
    ("capacity", "capacity = 0", "capacity: 0 is out of range: integer in [1, 2147483647]"),
    ("capacity", f"capacity = {2**31}", "capacity: 2147483648 is out of range"),
    ("capacity", "threshold = 1.5", "threshold: 1.5 is out of range: number in [0, 1]"),
    ("capacity", "threshold = nan", "threshold: nan is not a finite number"),
    ("capacity", "slack = -0.5", "slack: -0.5 is out of range: number >= 0"),
    ("capacity", "size_limit = 0", "size_limit: 0 is out of range: integer in [1, 2147483647]"),
    ("capacity", "node_limit = 0", "node_limit: 0 is out of range"),
    ("trim", "before = nan", "before: nan is not a finite number"),
    ("trim", "before = 1e300", "before: 1e+300 is outside the 64-bit range"),
    ("trim", 'before = "1998-13-01"', "not a date: '1998-13-01'"),
    ("filter", 'where = "job > 1e999"', "out of range"),
    ("filter", f'where = "{"(" * 100}job=1{")" * 100}"', "levels deep"),
])
def test_a_bad_value_names_file_step_and_parameter(tiny, rule, extra, says):
    with open_archive(tiny, write=True) as a:
        with pytest.raises(RecipeError) as e:
            clean(a, parse_recipe(_step(rule, extra).replace('version = "v"', 'version = "bad"'), "r.toml"))
        assert a.df("SELECT count(*) AS n FROM logs WHERE name = 'tiny@bad'").n[0] == 0
        assert a.df("SELECT count(*) AS n FROM decisions WHERE version = 'tiny@bad'").n[0] == 0
    assert str(e.value).startswith(f"r.toml: step 1 ({rule}): ") and says in str(e.value), str(e.value)


def test_values_at_the_ends_of_the_ranges_are_taken(tiny):
    with open_archive(tiny, write=True) as a:
        for rule, extra in [("normalize", "allowance = 0"),
                            ("status", "statuses = [-9223372036854775808, 9223372036854775807]"),
                            ("capacity", "threshold = 0\nslack = 0\ncapacity = 2147483647\nnode_limit = 1"),
                            ("trim", "before = -9223372036854775808")]:
            result = clean(a, parse_recipe(_step(rule, extra), "r.toml"))
            assert result.jobs == 10, (rule, extra)
        # Up to 55 processors in use on 16: with every deletion allowed, some go.
        assert 0 < clean(a, parse_recipe(_step("capacity", "threshold = 1"), "r.toml")).jobs < 10


# The parameters a rule cannot go without (no default), given so that only the number is wrong.
NEEDED = {"set": 'where = "job=1"\nfield = "run"'}


def test_every_numeric_parameter_of_every_rule_refuses_what_is_no_number():
    """Whatever its range: not finite, or beyond 64 bits, is refused."""
    checked = 0
    for rule in load_rules().values():
        for p in rule.params.values():
            if p.type not in NUMERIC:
                continue
            for bad in (float("nan"), float("inf"), -float("inf"), 2**63, -(2**63) - 1, 1e19):
                value = [bad] if p.type == "integers" else bad
                if p.type == "integer" and isinstance(bad, float):
                    continue  # a float is not of type integer: refused as such
                step = parse_recipe(_step(rule.name, NEEDED.get(rule.name, "")), "r.toml").steps[0]
                step.params[p.name] = value
                with pytest.raises(RecipeError, match=f"r.toml: {p.name}: "):
                    step_params(rule, step, "r.toml")
                checked += 1
    assert checked >= 30


HEAD = "-- name: mine\n-- version: 1\n-- rationale:\n--   A rule of a test.\n-- params:\n"
BODY = "SELECT *, CASE WHEN procs > $limit THEN 'big' END AS _drop FROM input\n"


@pytest.mark.parametrize("param, says", [
    ("--   limit (number in [0, 1], default 2): x", "default: 2 is out of range: number in [0, 1]"),
    ("--   limit (number >= x): x", "'x' in the range is not a number"),
    ("--   limit (number in [2, 1]): x", "is empty"),
    ("--   limit (number >= inf): x", "not finite"),
    ("--   limit (number between 1 and 2): x", "is not a range"),
    ("--   limit (text >= 0): x", "a range is for integer, number and integers"),
    ("--   limit (integer, default 99999999999999999999): x", "outside the 64-bit range"),
    ("--   limit (number, default nan): x", "not a finite number"),
])
def test_a_rule_states_its_ranges_or_is_refused(param, says):
    with pytest.raises(RuleError) as e:
        parse_rule(HEAD + param + "\n" + BODY, "mine.sql")
    assert str(e.value).startswith("mine.sql:6: ") and says in str(e.value), str(e.value)


def test_ranges_read_as_written():
    rule = parse_rule(HEAD + "--   limit (number in (0, 1]): x\n" + BODY, "mine.sql")
    b = rule.params["limit"].bounds
    assert b == Bounds(0, 1, low_open=True, high_open=False) and str(b) == "in (0, 1]"
    assert [b.admits(x) for x in (0, 1e-9, 1, 1.0000001)] == [False, True, True, False]
    rules = load_rules()
    assert str(rules["capacity"].params["threshold"].bounds) == "in [0, 1]"
    assert str(rules["normalize"].params["allowance"].bounds) == ">= 0"


@pytest.mark.parametrize("data, says", [
    (b'log = "tiny"\nversion = "v"\ncolour = "r\xe9d"\n', "r.toml:3: not UTF-8: byte 0xe9 at column 12"),
    (b'\xff\n', "r.toml:1: not UTF-8: byte 0xff at column 1"),
    (b'log = "tiny"\nversion = "v"\n\n[[step]]\nrule = normalize\n',
     "r.toml:5: not TOML: Invalid value (column 8)"),
    (b'log = "tiny"\nversion = "v"\nstep = [\n', "r.toml:3: not TOML"),
    (b'log = "tiny"\nversion = "v"\nversion = "w"\n', "r.toml:3: not TOML"),
    (b'log = "tiny"\nversion = "v"\nstep = [1, 2]\n', "r.toml: step 1 is not a table"),
])
def test_a_recipe_that_cannot_be_read_names_the_line(tmp_path, data, says):
    path = tmp_path / "r.toml"
    path.write_bytes(data)
    with pytest.raises(RecipeError) as e:
        read_recipe(path)
    assert str(e.value).startswith(f"{tmp_path}/{says}"), str(e.value)


def test_a_utf8_recipe_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "r.toml"
    path.write_bytes(b"\xef\xbb\xbf" + _step("normalize", "").encode())
    assert read_recipe(path).log == "tiny"


def test_a_recipe_that_is_not_a_file_is_one_line(tmp_path, tiny, never_waits, monkeypatch):
    os.mkfifo(tmp_path / "fifo.toml")
    (tmp_path / "folder.toml").mkdir()
    for name, says in [("missing.toml", "no such file"), ("folder.toml", "is a folder"),
                       ("fifo.toml", "is a FIFO")]:
        with pytest.raises(RecipeError, match=says):
            read_recipe(tmp_path / name)
        line = wla("clean", tmp_path / name, archive=tiny).one_error_line()
        assert f"{tmp_path / name}: " in line and says in line
    # Unreadable (as root nothing is, so the refusal is made to happen).
    (tmp_path / "locked.toml").write_text(_step("normalize", ""))
    real_open = os.open

    def refuse(path, *args, **kw):
        if str(path).endswith("locked.toml"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kw)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(RecipeError, match="locked.toml: cannot read file .Permission denied."):
        read_recipe(tmp_path / "locked.toml")


def test_the_command_line_says_one_line(tmp_path, tiny):
    (tmp_path / "bad.toml").write_bytes(b'log = "tiny"\nversion = "v"\n# caf\xe9\n')
    (tmp_path / "nan.toml").write_text(_step("normalize", "allowance = nan"))
    (tmp_path / "deep.toml").write_text(_step("filter", f'where = "{"(" * 3000}job=1{")" * 3000}"'))
    assert "bad.toml:3: not UTF-8" in wla("clean", tmp_path / "bad.toml", archive=tiny).one_error_line()
    line = wla("clean", tmp_path / "nan.toml", archive=tiny).one_error_line()
    assert "step 1 (normalize): allowance: nan" in line
    assert "step 1 (filter): a predicate nested 3000 levels deep" in \
        wla("clean", tmp_path / "deep.toml", archive=tiny).one_error_line()


def test_a_rule_that_fails_as_it_runs_names_the_step(tmp_path, tiny):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "boom.sql").write_text(
        "-- name: boom\n-- version: 1\n-- rationale:\n--   Casts text that is no number.\n"
        "SELECT * REPLACE (CAST('x' || job AS BIGINT) AS job) FROM input\n")
    recipe = _step("normalize", "").replace('version = "v"', 'version = "boom"') + '\n[[step]]\nrule = "boom"\n'
    with open_archive(tiny, write=True) as a:
        with pytest.raises(RecipeError, match=r"^r.toml: step 2 \(boom\): Conversion Error"):
            clean(a, parse_recipe(recipe, "r.toml"), [tmp_path / "rules"])
        assert a.df("SELECT count(*) AS n FROM logs WHERE name = 'tiny@boom'").n[0] == 0
        assert a.df("SELECT count(*) AS n FROM duckdb_views() WHERE view_name LIKE 'tiny@boom%'").n[0] == 0
