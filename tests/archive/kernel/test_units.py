"""Durations in human units: the largest unit a duration reaches, one decimal."""
import math

import pytest
from wla.archive.kernel.units import human, seconds


@pytest.mark.parametrize("value, text", [
    (0, "0 s"), (12, "12 s"), (59.4, "59 s"), (95, "1.6 min"), (3600, "1.0 h"), (5400, "1.5 h"),
    (138_240, "1.6 d"),  # 1.6 x 86,400
    (8_597_585, "99.5 d"),  # 8,597,585 / 86,400 = 99.509
    (40_000_000, "1.3 y"),  # / 31,536,000 = 1.268
    (-7200, "-2.0 h"), (math.nan, "-"), (None, "-"),
])
def test_human(value, text):
    assert human(value) == text


def test_seconds_say_human_units_from_an_hour():
    assert seconds(3599) == "3,599 s"
    assert seconds(3600) == "3,600 s (1.0 h)"
    assert seconds(8_597_585) == "8,597,585 s (99.5 d)"


def test_a_count_s_noun_agrees_with_it():
    from wla.archive.kernel.units import count

    assert [count(n, "version") for n in (0, 1, 2)] == ["0 versions", "1 version", "2 versions"]
    assert count(12_345, "job") == "12,345 jobs" and count(1, "match", "matches") == "1 match"
    assert count(3, "match", "matches") == "3 matches"
