"""Rules whose drops Python computes (archive/clean/computed.py): the
registry, and the capacity rule's parameter taken from the log."""
from __future__ import annotations

import pytest
from wla.archive.clean.computed import COMPUTED, computed
from wla.archive.kernel.errors import UsageError, WlaError


def test_a_name_gives_its_pair_and_an_unknown_one_is_refused():
    assert computed("capacity") == COMPUTED["capacity"]
    with pytest.raises(WlaError, match=r"^no computation named 'spin' \(known: capacity, regime, set\)$"):
        computed("spin")


def test_capacity_is_the_step_s_else_the_log_s_machine_size():
    fill, _ = computed("capacity")
    assert fill({"slack": 0}, {"name": "L", "machine_size": 128}) == {"slack": 0, "capacity": 128}
    assert fill({"capacity": 64}, {"name": "L", "machine_size": 128})["capacity"] == 64
    with pytest.raises(UsageError, match="L has no machine size: give capacity in the step"):
        fill({}, {"name": "L", "machine_size": None})


def test_regime_takes_a_number_or_dates_and_the_dates_are_checked_first():
    from wla.archive.kernel.errors import PredicateError

    fill, _ = computed("regime")
    facts = {"name": "L", "unix_start_time": 946684800, "tz": "UTC"}
    assert fill({"regime": 2, "since": None, "until": None}, facts)["regime"] == 2
    assert fill({"regime": None, "since": "2000-01-02", "until": None}, facts)["since"] == "2000-01-02"
    with pytest.raises(UsageError, match="give regime, or since and/or until, in the step"):
        fill({"regime": None, "since": None, "until": None}, facts)
    with pytest.raises(UsageError, match="give regime or since and until in the step, not both"):
        fill({"regime": 1, "since": 0, "until": 10}, facts)
    with pytest.raises(PredicateError):
        fill({"regime": None, "since": "not a date", "until": None}, facts)
