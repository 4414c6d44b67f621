"""Header entries: a Note wrapped over lines is one entry, as NASA iPSC's."""
from __future__ import annotations

import re

from wla.archive.analysis.diagnosis.header_notes import entries, matching

NASA = ["; MaxProcs: 128", "; Note: There is no information on wait times - the given submit",
        ";       times are actually start times", "; Note: group 1 is normal users", ";", "; Preemption: Yes"]


def test_a_wrapped_note_is_one_entry():
    assert entries(NASA) == [("MaxProcs", "128"),
                             ("Note", "There is no information on wait times - the given submit times are "
                                      "actually start times"),
                             ("Note", "group 1 is normal users"), ("Preemption", "Yes")]


def test_matching_finds_across_the_wrap_and_skips_keys():
    said = matching(NASA, re.compile(r"submit times are actually start"))
    assert said == "Note: There is no information on wait times - the given submit times are actually start times"
    assert matching(NASA, re.compile("Yes"), skip=("Preemption",)) is None
    assert matching([], re.compile("x")) is None
