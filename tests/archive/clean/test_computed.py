"""Rules whose drops Python computes (archive/clean/computed.py): the
registry, and the capacity rule's parameter taken from the log."""
from __future__ import annotations

import pytest
from wla.archive.clean.computed import COMPUTED, computed
from wla.archive.kernel.errors import UsageError, WlaError


def test_a_name_gives_its_pair_and_an_unknown_one_is_refused():
    assert computed("capacity") == COMPUTED["capacity"]
    with pytest.raises(WlaError, match=r"^no computation named 'spin' \(known: capacity\)$"):
        computed("spin")


def test_capacity_is_the_step_s_else_the_log_s_machine_size():
    fill, _ = computed("capacity")
    assert fill({"slack": 0}, {"name": "L", "machine_size": 128}) == {"slack": 0, "capacity": 128}
    assert fill({"capacity": 64}, {"name": "L", "machine_size": 128})["capacity"] == 64
    with pytest.raises(UsageError, match="L has no machine size: give capacity in the step"):
        fill({}, {"name": "L", "machine_size": None})
