"""A rule's fingerprint covers the whole rule: its SQL, normalized, and its
parameters' names, types, defaults and ranges; a change to any of them
under the same version is refused like a change of the SQL."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe
from wla.archive.clean.rules import load_rules, parse_rule
from wla.archive.kernel.errors import RuleError
from wla.archive.store.ingest import ingest

RULE = """\
-- name: mine
-- version: 1
-- rationale:
--   A rule of a test.
-- params:
--   limit (integer >= 0, default 5): jobs with more processors are dropped
--   share (number, default 0.5): a number nothing reads
SELECT *, CASE WHEN procs > $limit THEN 'over ' || $limit_text END AS _drop
FROM input
"""


def test_the_fingerprint_is_the_sha256_of_the_rule_written_canonically():
    # Written out by hand: the SQL as sqlglot normalizes it, then each
    # parameter by name as [name, type, required, default, range].
    canon = ('{"action":"modify","computed":null,"params":[["limit","integer",false,5,">= 0"],'
             '["share","number",false,0.5,null]],"sql":"SELECT *, CASE WHEN procs > $limit THEN '
             '\'over \' || $limit_text END AS _drop FROM input"}')
    assert parse_rule(RULE, "mine.sql").fingerprint == hashlib.sha256(canon.encode()).hexdigest()


@pytest.mark.parametrize("old, new", [
    ("default 5)", "default 6)"),                       # a default
    ("(integer >= 0, default 5)", "(number >= 0, default 5)"),  # a type
    ("--   limit (", "--   most ("),                      # a name (the SQL says $limit still)
    ("(integer >= 0, default 5)", "(integer >= 1, default 5)"),  # a range
    ("(integer >= 0, default 5)", "(integer, default 5)"),      # a range taken away
    ("(integer >= 0, default 5)", "(integer >= 0)"),            # required now
    ("-- version: 1\n", "-- version: 1\n-- action: recover\n"),  # what a change is
    ("procs > $limit", "procs >= $limit"),                # the SQL
])
def test_every_part_of_the_rule_changes_the_fingerprint(old, new):
    assert RULE.count(old) == 1
    changed = RULE.replace(old, new)
    if old == "--   limit (":
        changed = changed.replace("$limit", "$most")
    assert parse_rule(changed, "mine.sql").fingerprint != parse_rule(RULE, "mine.sql").fingerprint


@pytest.mark.parametrize("old, new", [
    ("SELECT *,", "select  *, -- all\n"),                 # case, layout, comments
    ("FROM input", "from\n\tINPUT /* x */"),
    ("A rule of a test.", "A rule of a test, said at more length."),  # the rationale
    ("are dropped", "are dropped, as before"),            # a parameter's description
    ("default 0.5)", "default 0.50)"),                    # the same number
    ("--   share (number, default 0.5): a number nothing reads\n", ""),  # order of parameters:
])
def test_what_does_not_change_the_rule_does_not_change_the_fingerprint(old, new):
    changed = RULE.replace(old, new)
    if old.startswith("--   share"):  # ... the same two parameters the other way round
        changed = changed.replace("-- params:\n", "-- params:\n" + old)
        assert changed.index("share (") < changed.index("limit (")
    assert parse_rule(changed, "mine.sql").fingerprint == parse_rule(RULE, "mine.sql").fingerprint


def test_a_number_default_written_whole_is_the_same_default():
    five = RULE.replace("default 0.5)", "default 5)")
    assert parse_rule(five, "mine.sql").fingerprint == \
        parse_rule(RULE.replace("default 0.5)", "default 5.0)"), "mine.sql").fingerprint


def test_an_unknown_action_is_refused():
    with pytest.raises(RuleError, match="mine.sql: action 'change' is not one of: modify, recover"):
        parse_rule(RULE.replace("-- version: 1\n", "-- version: 1\n-- action: change\n"), "mine.sql")


def test_capacity_is_version_3_with_the_defaults_it_has_now():
    """Version 3: no clock limit; nodes and size bound the solver's work."""
    capacity = load_rules()["capacity"]
    assert capacity.version == 3
    assert list(capacity.params) == ["capacity", "slack", "threshold", "node_limit", "size_limit"]
    assert capacity.params["node_limit"].default == 5000 and capacity.params["size_limit"].default == 20000


def _archive(tmp_path):
    log = tmp_path / "tiny.swf"
    log.write_text("; MaxProcs: 16\n" + "".join(
        f"{j} {j * 10} 0 100 {j} -1 -1 {j} -1 -1 1 1 1 -1 -1 -1 -1 -1\n" for j in range(1, 11)))
    a = open_archive(tmp_path / "a.duckdb", write=True)
    ingest(a, [log])
    return a


def _recipe(version: str) -> str:
    return f'log = "tiny"\nversion = "{version}"\n\n[[step]]\nrule = "mine"\n'


@pytest.mark.slow
def test_a_changed_default_under_the_same_version_is_refused(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "mine.sql").write_text(RULE)
    with _archive(tmp_path) as a:
        clean(a, parse_recipe(_recipe("v1")), [rules])
        (rules / "mine.sql").write_text(RULE.replace("default 5)", "default 6)")
                                        .replace("(number, default 0.5)", "(number >= 0, default 0.5)"))
        with pytest.raises(RuleError) as e:
            clean(a, parse_recipe(_recipe("v2")), [rules])
        assert str(e.value).startswith(
            f"{rules / 'mine.sql'}: the parameters (limit: default 5 -> 6; share: range none -> >= 0) "
            "of rule mine changed but its version is still 1 (the archive has fingerprint ")
        assert str(e.value).endswith("; give the rule a new version")
        assert a.con.execute("SELECT count(*) FROM logs WHERE name = 'tiny@v2'").fetchone()[0] == 0
        # A new parameter, and the SQL too, said together.
        (rules / "mine.sql").write_text(RULE.replace("procs > $limit", "procs >= $limit").replace(
            "-- params:\n", "-- params:\n--   extra (text, default 'x'): more\n"))
        with pytest.raises(RuleError, match=r"the SQL and the parameters \(extra added\) of rule mine"):
            clean(a, parse_recipe(_recipe("v2")), [rules])
        # With a new version it goes in, beside the first.
        (rules / "mine.sql").write_text(RULE.replace("default 5)", "default 6)")
                                        .replace("-- version: 1", "-- version: 2"))
        clean(a, parse_recipe(_recipe("v2")), [rules])
        kept = a.con.execute("SELECT version, params FROM rules WHERE name = 'mine' ORDER BY version").fetchall()
        assert [(v, json.loads(p)["limit"]["default"]) for v, p in kept] == [(1, 5), (2, 6)]
        jobs = a.con.execute("SELECT l.name, count(*) FROM jobs JOIN logs l USING (log_id) "
                             "GROUP BY ALL ORDER BY ALL").fetchall()
        assert jobs == [("tiny", 10), ("tiny@v1", 5), ("tiny@v2", 6)]  # procs 1..5, then 1..6 kept


def test_the_fingerprint_in_notes_is_the_rules(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "mine.sql").write_text(RULE)
    with _archive(tmp_path) as a:
        res = clean(a, parse_recipe(_recipe("v1")), [rules])
        fp = parse_rule(RULE, str(Path(rules / "mine.sql"))).fingerprint
        assert res.steps[0].fingerprint == fp
        notes = [t for (t,) in a.con.execute("SELECT text FROM header_lines h JOIN logs l USING (log_id) "
                                             "WHERE l.name = 'tiny@v1' AND label = 'Note'").fetchall()]
        assert any(f"rule mine version 1 (fingerprint {fp})" in n for n in notes)
