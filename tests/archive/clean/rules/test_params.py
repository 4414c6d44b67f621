"""A rule's parameters (archive/clean/rules/params.py): ranges as a header
writes them, defaults, and the check every value passes."""
from __future__ import annotations

import pytest
from wla.archive.clean.rules.params import Bounds, check_value, parse_bounds, parse_default
from wla.archive.kernel.errors import RuleError


@pytest.mark.parametrize("text, bounds, inside, outside", [
    (">= 0", Bounds(low=0), [0, 5], [-1]),
    ("> 0", Bounds(low=0, low_open=True), [0.5], [0]),
    ("< 1", Bounds(high=1, high_open=True), [0.99], [1]),
    ("in [0, 1)", Bounds(0, 1, False, True), [0, 0.5], [1, -0.1]),
    ("in (1, 2.5]", Bounds(1, 2.5, True, False), [2.5], [1]),
])
def test_a_range_reads_back_as_written(text, bounds, inside, outside):
    got = parse_bounds(text, "number", "r.sql:4")
    assert got == bounds and str(got) == text
    assert all(got.admits(x) for x in inside) and not any(got.admits(x) for x in outside)


@pytest.mark.parametrize("text, ptype, says", [
    (">= 1", "text", "a range is for integer, number and integers parameters, not text"),
    ("in [2, 1]", "integer", "the range 'in [2, 1]' is empty"),
    ("> inf", "number", "has an end that is not finite"),
    ("about 3", "number", "is not a range"),
])
def test_a_range_that_cannot_be_is_refused_at_its_line(text, ptype, says):
    with pytest.raises(RuleError, match=r"^r\.sql:4: .*" + says.replace("[", r"\[").replace("]", r"\]")):
        parse_bounds(text, ptype, "r.sql:4")


def test_defaults_are_toml_checked_against_the_range():
    assert parse_default("5", "integer", "r.sql:4", Bounds(low=0)) == 5
    assert parse_default("none", "integer", "r.sql:4", None) is None
    assert parse_default("[1, 2]", "integers", "r.sql:4", None) == [1, 2]
    with pytest.raises(RuleError, match=r"^r\.sql:4: default: -1 is out of range: integer >= 0$"):
        parse_default("-1", "integer", "r.sql:4", Bounds(low=0))
    with pytest.raises(RuleError, match="is not a TOML value"):
        parse_default("five", "integer", "r.sql:4", None)


@pytest.mark.parametrize("value, ptype, says", [
    (True, "integer", "True is not of type integer"),
    (1.5, "integer", "1.5 is not of type integer"),
    (float("nan"), "number", "nan is not a finite number"),
    (2**63, "integer", "9223372036854775808 is outside the 64-bit range"),
    ([1, "2"], "integers", r"\[1, '2'\] is not of type integers"),
])
def test_values_of_the_wrong_kind_are_refused(value, ptype, says):
    with pytest.raises(RuleError, match="^step 1: " + says):
        check_value(value, ptype, "step 1")


def test_values_of_every_kind_are_taken_as_they_are():
    assert check_value("submit < '1998-06-01'", "predicate", "s") == "submit < '1998-06-01'"
    assert check_value("1998-06-01", "time", "s") == "1998-06-01"
    assert check_value(2**63 - 1, "integer", "s") == 2**63 - 1
    assert check_value(False, "boolean", "s") is False
