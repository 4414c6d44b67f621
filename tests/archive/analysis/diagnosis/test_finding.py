"""A finding's line and the report's shares."""
from __future__ import annotations

from wla.archive.analysis.diagnosis.finding import Finding, share


def test_line_reads_what_where_how_much_then_what_to_do():
    f = Finding("d", "capacity grew", "from 1998-09-01", "128 to 202 processors", "Keep one regime.", {"n": 1})
    assert f.line() == "capacity grew: from 1998-09-01; 128 to 202 processors. Keep one regime."
    assert f.as_dict()["data"] == {"n": 1}


def test_share_never_rounds_a_few_to_zero():
    assert share(3, 312_826) == "<0.01%"
    assert share(0, 10) == "0.00%"
    assert share(1, 8) == "12.50%"
    assert share(1, 0) == "-"
