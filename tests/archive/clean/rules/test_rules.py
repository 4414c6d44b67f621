"""Rule files: header, sqlglot check, fingerprint, and the archive's record of them."""
from __future__ import annotations

from pathlib import Path

import pytest
from real_logs import ROOT
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe
from wla.archive.clean.rules import load_rules, parse_rule
from wla.archive.kernel.errors import RecipeError, RuleError
from wla.archive.store.ingest import ingest
from wla.archive.swf.fields import COLUMNS

BUILTIN = ROOT / "schema" / "rules"

GOOD = """\
-- name: mine
-- version: 1
-- rationale:
--   A rule of a test.
-- params:
--   limit (integer, default 5): jobs with more processors are dropped
SELECT *, CASE WHEN procs > $limit THEN 'over ' || $limit_text END AS _drop
FROM input
"""


def test_every_builtin_rule_loads_with_its_metadata():
    rules = load_rules()
    assert sorted(rules) == ["capacity", "dependencies", "filter", "normalize", "recover", "regime", "set", "status",
                             "timing", "trim"]
    for rule in rules.values():
        assert rule.version >= 1 and len(rule.rationale) > 100 and len(rule.fingerprint) == 64
        assert Path(rule.file).name == f"{rule.name}.sql"
    assert rules["normalize"].params["allowance"].default == 3900
    assert rules["filter"].params["where"].required
    # Column lineage: what each rule reads and may change.
    assert rules["recover"].writes == ("procs", "req_procs", "run")
    assert "cpu" in rules["recover"].reads
    assert rules["trim"].reads == ("submit",) and rules["trim"].writes == ()
    assert rules["timing"].writes == ("run", "submit", "wait")
    assert rules["timing"].params["fix"].default == "submit = start"
    assert rules["set"].writes == tuple(sorted(COLUMNS)) and rules["set"].computed == "set"
    # Its WITH parts are its own: they read input, and they are not lineage.
    assert rules["dependencies"].writes == ("prev_job", "think")
    assert rules["dependencies"].reads == ("job", "prev_job", "run", "submit", "think", "user_id", "wait")


def test_white_space_comments_and_case_do_not_change_the_fingerprint():
    a = parse_rule(GOOD, "mine.sql")
    b = parse_rule(GOOD.replace("SELECT *,", "select  *, -- all\n").replace("FROM input", "from\n\tINPUT /* x */"),
                   "mine.sql")
    c = parse_rule(GOOD.replace("procs > $limit", "procs >= $limit"), "mine.sql")
    assert a.fingerprint == b.fingerprint
    assert a.fingerprint != c.fingerprint


@pytest.mark.parametrize("sql, message", [
    ("SELECT *, CASE WHEN porcs > $limit THEN 'x' END AS _drop FROM input", "mine.sql: unknown column 'porcs'"),
    ("SELECT *, 'x' AS _drop FROM jobz", "mine.sql: unknown table 'jobz'"),
    ("SELECT job, 'x' AS _drop FROM input", "must return every job column; missing: line_no, submit"),
    ("SELECT *, 1 AS extra FROM input", "unexpected output columns extra"),
    ("SELECT *, $other AS _drop FROM input", "$other is not a parameter"),
    ("DELETE FROM input", "a rule is one SELECT"),
    ("WITH jobs AS (SELECT * FROM input) SELECT *, NULL AS _drop FROM jobs",
     "a WITH part is named 'jobs', as a table a rule reads"),
    ("WITH k AS (SELECT * FROM input) SELECT *, 'x' AS _drop FROM kk", "mine.sql: unknown table 'kk'"),
    ("SELECT * FROM input; SELECT * FROM input", "a rule is one SELECT"),
])
def test_a_broken_rule_is_refused_naming_file_and_problem(sql, message):
    text = GOOD.split("SELECT")[0] + sql + "\n"
    with pytest.raises(RuleError, match=None) as e:
        parse_rule(text, "mine.sql")
    assert message in str(e.value)


def test_a_rule_may_name_the_parts_of_its_query():
    text = GOOD.split("SELECT")[0] + ("WITH big AS (SELECT line_no FROM input WHERE procs > $limit)\n"
                                      "SELECT input.*, CASE WHEN big.line_no IS NOT NULL THEN 'big' END AS _drop\n"
                                      "FROM input LEFT JOIN big ON big.line_no = input.line_no\n")
    rule = parse_rule(text, "mine.sql")
    assert rule.reads == ("procs",) and rule.writes == ()


@pytest.mark.parametrize("header, message", [
    (GOOD.replace("-- name: mine\n", ""), "no 'name'"),
    (GOOD.replace("-- version: 1", "-- version: one"), "not an integer"),
    (GOOD.replace("(integer, default 5)", "(colour, default 5)"), "unknown parameter type 'colour'"),
    (GOOD.replace("(integer, default 5)", "(integer, default 'five')"), "is not of type integer"),
    (GOOD.replace("-- name: mine", "-- name: yours"), "the file must be yours.sql"),
])
def test_a_bad_header_is_refused(header, message):
    with pytest.raises(RuleError) as e:
        parse_rule(header, "mine.sql")
    assert message in str(e.value)


def _archive_with_log(tmp_path):
    log = tmp_path / "tiny.swf"
    log.write_text("; MaxProcs: 16\n" + "\n".join(
        f"{j} {j * 10} 0 100 {j} -1 -1 {j} -1 -1 1 1 1 -1 -1 -1 -1 -1" for j in range(1, 11)) + "\n")
    a = open_archive(tmp_path / "a.duckdb", write=True)
    ingest(a, [log])
    return a


def _recipe(rule: str, version: str = "v", extra: str = "") -> str:
    return f'log = "tiny"\nversion = "{version}"\n\n[[step]]\nrule = "{rule}"\n{extra}'


def test_changed_sql_under_the_same_version_is_refused(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "mine.sql").write_text(GOOD)
    with _archive_with_log(tmp_path) as a:
        clean(a, parse_recipe(_recipe("mine")), [rules])
        assert a.df("SELECT count(*) AS n FROM jobs WHERE log_id = 2").n[0] == 5  # procs 1..5 kept
        recorded = a.df("SELECT * FROM rules WHERE name = 'mine'")
        assert recorded.version.tolist() == [1] and recorded.sql[0] == GOOD
        assert recorded.sqlglot_version[0] == __import__("sqlglot").__version__
        # A comment or layout change is the same rule.
        (rules / "mine.sql").write_text(GOOD.replace("FROM input", "-- the jobs\nFROM   input"))
        clean(a, parse_recipe(_recipe("mine")), [rules])
        # A change of meaning without a new version is refused, and nothing is built.
        (rules / "mine.sql").write_text(GOOD.replace("procs > $limit", "procs >= $limit"))
        with pytest.raises(RuleError, match="changed but its version is still 1"):
            clean(a, parse_recipe(_recipe("mine", "v2")), [rules])
        assert a.df("SELECT count(*) AS n FROM logs WHERE name = 'tiny@v2'").n[0] == 0
        # With a new version it goes in, and the old version can still be used.
        (rules / "mine.sql").write_text(GOOD.replace("procs > $limit", "procs >= $limit")
                                        .replace("-- version: 1", "-- version: 2"))
        clean(a, parse_recipe(_recipe("mine", "v2")), [rules])
        clean(a, parse_recipe(_recipe("mine", "v3", "rule_version = 1\n")), [rules])
        kept = a.df("SELECT l.name, count(*) AS n FROM jobs j JOIN logs l USING (log_id) "
                      "GROUP BY l.name ORDER BY l.name")
        assert kept.n.tolist() == [10, 5, 4, 5]  # tiny, @v, @v2 (>= 5 dropped too), @v3 (version 1)


@pytest.mark.parametrize("extra, message", [
    ('where = "user = 1; DROP TABLE jobs"', "statements"),
    ('where = "usr = 1"', "unknown field 'usr'"),
    ('wher = "user = 1"', "has no parameter wher"),
    ("where = 5", "is not of type predicate"),
    ("", "needs where"),
])
def test_bad_steps_are_refused_naming_the_step(tmp_path, extra, message):
    with _archive_with_log(tmp_path) as a:
        with pytest.raises(Exception) as e:
            clean(a, parse_recipe(_recipe("filter", extra=extra + "\n"), "r.toml"))
        assert message in str(e.value)
        assert a.df("SELECT count(*) AS n FROM logs").n[0] == 1
        assert a.df("SELECT count(*) AS n FROM decisions").n[0] == 0


def test_text_parameters_cannot_break_out_of_their_literal(tmp_path):
    with _archive_with_log(tmp_path) as a:
        reason = "it's a flurry'); DROP TABLE jobs; --"
        clean(a, parse_recipe(_recipe("filter", extra=f'where = "user=1"\nreason = "{reason}"\n')))
        assert set(a.df("SELECT reason FROM decisions").reason) == {reason}
        assert a.df("SELECT count(*) AS n FROM jobs").n[0] == 10


@pytest.mark.parametrize("text, message", [
    ('version = "v"\n[[step]]\nrule = "normalize"', "log = \"...\" is missing"),
    ('log = "x"\nversion = "a b"\n[[step]]\nrule = "normalize"', "must be letters"),
    ('log = "x"\nversion = "v"', "at least one [[step]]"),
    ('log = "x"\nversion = "v"\ncolour = 1\n[[step]]\nrule = "normalize"', "unknown keys colour"),
    ('log = "x"\nversion = "v"\n[[step]]\nwhere = "user=1"', "step 1 has no rule"),
])
def test_bad_recipes_are_refused(text, message):
    with pytest.raises(RecipeError) as e:
        parse_recipe(text, "r.toml")
    assert message in str(e.value)
