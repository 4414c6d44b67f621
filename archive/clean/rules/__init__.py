"""Cleaning rules: SQL files with a header, checked and fingerprinted with sqlglot.

A rule is a SELECT over the relation `input` (the columns line_no and the 18
fields) that returns the same columns, with new values where it changes
them, plus optional columns the engine reads:

- `_drop`: why the job is dropped (NULL keeps it);
- `_why_<field>`: why that field changed (read only where it did).

Parameters are written `$name` and become literals through sqlglot's tree;
each is also available as `$name_text`, its value as text. `$version_id` and
`$step` name the step being built. A rule whose header says `computed: X`
reads `computed_drops`, which Python fills before the view is made.

One job per module: `params.py` (parameter types, ranges, the value
check), `header.py` (a file's header and its one query), `fingerprints.py`,
`checks.py` (the query against the schema, lineage), `rule.py` (`Rule`,
`parse_rule`), `registry.py` (rule files, loading, the archive's `rules`
table). The names below are the package's face; import them from here.
"""
from __future__ import annotations

from .checks import JOB_COLUMNS, table_schema
from .fingerprints import canonical, fingerprint, fingerprint_v1, rule_fingerprint
from .header import ACTIONS
from .params import INT64, NUMERIC, PARAM_TYPES, Bounds, Param, check_value
from .registry import load_rules, record, recorded, rule_files
from .rule import BUILTINS, Rule, parse_rule

__all__ = [
    "ACTIONS", "BUILTINS", "INT64", "JOB_COLUMNS", "NUMERIC", "PARAM_TYPES", "Bounds", "Param", "Rule",
    "canonical", "check_value", "fingerprint", "fingerprint_v1", "load_rules", "parse_rule", "record",
    "recorded", "rule_files", "rule_fingerprint", "table_schema",
]
