"""The unit of each named figure and how the text shows it (cli/quantities.py)."""
from __future__ import annotations

from wla.cli import quantities
from wla.sim.evaluate.summary import METRIC_NAMES


def test_every_metric_has_its_unit():
    units = {name: quantities.unit(name) for name in METRIC_NAMES}
    assert units["wait_p95"] == units["makespan"] == "s" and units["utilization_measured"] == "%"
    assert units["throughput_per_hour"] == "jobs/h" and units["bounded_slowdown_mean"] == ""
    assert quantities.labelled("throughput_per_hour") == "throughput_per_hour (jobs/h)"
    assert quantities.labelled("hurst") == "hurst"


def test_seconds_say_days_when_large_and_fractions_are_percentages():
    assert quantities.said("first_arrival_mean", 8_597_585) == "8,597,585 s (99.5 d)"  # 8,597,585 / 86,400
    assert quantities.said("session_length_median", 2_094) == "2,094 s"  # under an hour: seconds alone
    assert quantities.said("weekend_share", 0.25) == "25.0%" and quantities.cell("utilization", 0.8246) == "82.5%"
    assert quantities.said("hurst", 0.8019) == "0.8019" and quantities.said("users", 13.0) == "13 users"
    assert quantities.said("hurst", None) == quantities.cell("wait_mean", float("nan")) == "-"


def test_a_small_percentage_keeps_two_significant_digits():
    from wla.cli.quantities import percent

    assert percent(0.8246) == "82.5%"
    assert percent(0.01) == "1.0%"
    assert percent(-0.005255) == "-0.53%"  # compare's utilization difference, B - A
    assert percent(5.437e-05) == "0.0054%"  # a spread of shaken utilizations
    assert percent(0.0) == "0.0%"
    assert percent(1e-9) == "0.0%"
