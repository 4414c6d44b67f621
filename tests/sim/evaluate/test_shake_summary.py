"""What shaken runs of one metric say against the original (shaking.md,
wla.sim.evaluate.summary): every summary worked out by hand, with the
Student t quantiles written as literals."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from wla.sim import from_frame, simulate
from wla.sim.evaluate.summary import METRIC_NAMES, RANGES, RUN_COLUMNS, metric_values, summarize, t_quantile

# Student's t, 97.5th percentile, solved to 50 digits from the closed-form
# CDFs (tables give 3.182446305284263, within 2e-13 of it)
T_975_3 = 3.1824463052837096  # 3 degrees of freedom
T_975_1 = 12.706204736174705  # 1 degree of freedom: tan(0.475 pi)
Z_975 = 1.959963984540054  # the normal's, the limit for many runs
REL = 1e-12


def approx(x):
    return pytest.approx(x, rel=REL, abs=1e-12)


def test_four_runs_around_ten():
    """9, 10, 11, 12 against 10: mean 10.5, std sqrt(5/3) (squares 2.25 + 0.25
    + 0.25 + 2.25 over 3), CI t x std / 2, p5 = 9 + 0.15 and p95 = 11 + 0.85
    (positions 0.15 and 2.85), span 91.5% to 118.5%, distance 5%, and only
    10 within 1% of 10."""
    s = summarize(np.array([9.0, 10.0, 11.0, 12.0]), 10.0)
    half = T_975_3 * math.sqrt(5 / 3) / 2
    assert s["original"] == 10.0 and s["runs"] == 4
    assert s["mean"] == approx(10.5)
    assert s["std"] == approx(math.sqrt(5 / 3))
    assert s["ci_low"] == approx(10.5 - half) and s["ci_high"] == approx(10.5 + half)
    assert s["p5"] == approx(9.15) and s["p95"] == approx(11.85)
    assert s["span_low"] == approx(0.915) and s["span_high"] == approx(1.185)
    assert s["distance"] == approx(0.05)
    assert s["concentration"] == 0.25


def test_order_of_runs_does_not_matter():
    """The runs come back from workers in any order: the same numbers."""
    s = summarize([12.0, 9.0, 11.0, 10.0], 10.0)
    assert (s["mean"], s["p5"], s["p95"], s["concentration"]) == (approx(10.5), approx(9.15), approx(11.85), 0.25)


def test_two_runs_use_one_degree_of_freedom():
    """1 and 3 against 2: std sqrt(2), CI half-width t_{0.975,1} x sqrt(2) /
    sqrt(2), p5 1.1, p95 2.9 (55% and 145% of 2), distance 0, none within 1%."""
    s = summarize(np.array([1.0, 3.0]), 2.0)
    assert s["std"] == approx(math.sqrt(2))
    assert s["ci_low"] == approx(2 - T_975_1) and s["ci_high"] == approx(2 + T_975_1)
    assert s["p5"] == approx(1.1) and s["p95"] == approx(2.9)
    assert s["span_low"] == approx(0.55) and s["span_high"] == approx(1.45)
    assert s["distance"] == 0.0 and s["concentration"] == 0.0


def test_concentration_counts_runs_within_one_percent_inclusive():
    """Against 200, within 1% is within 2: 198, 200 and 202 are, 197.9 and 202.1 are not."""
    s = summarize(np.array([198.0, 202.0, 197.9, 202.1, 200.0]), 200.0)
    assert s["concentration"] == 3 / 5


def test_original_zero_has_no_percentages():
    """O = 0: span and distance as percent of 0 do not exist; concentration
    is the share of runs exactly 0 (within 1% of 0)."""
    s = summarize(np.array([0.0, 0.0, 1.0, -1.0]), 0.0)
    assert s["original"] == 0.0 and s["runs"] == 4
    assert s["mean"] == 0.0
    assert s["std"] == approx(math.sqrt(2 / 3))
    assert s["span_low"] is None and s["span_high"] is None and s["distance"] is None
    assert s["concentration"] == 0.5
    assert s["p5"] == approx(-1 + 0.15 * 1) and s["p95"] == approx(0 + 0.85 * 1)  # positions 0.15, 2.85


def test_a_single_run_has_no_spread():
    """One run: no standard deviation or interval; its percentiles are itself."""
    s = summarize(np.array([7.0]), 5.0)
    assert s["runs"] == 1 and s["mean"] == 7.0
    assert s["std"] is None and s["ci_low"] is None and s["ci_high"] is None
    assert s["p5"] == 7.0 and s["p95"] == 7.0
    assert s["span_low"] == approx(1.4) and s["span_high"] == approx(1.4)
    assert s["distance"] == approx(0.4)
    assert s["concentration"] == 0.0


def test_nan_runs_are_left_out():
    """Runs with no value (NaN) count neither in N nor in any statistic."""
    s = summarize(np.array([np.nan, 9.0, 10.0, np.nan, 11.0, 12.0]), 10.0)
    assert s["runs"] == 4
    assert s["mean"] == approx(10.5) and s["std"] == approx(math.sqrt(5 / 3))
    assert s["p5"] == approx(9.15) and s["concentration"] == 0.25


def test_no_runs_at_all():
    """All runs NaN: nothing to say, but the original is still reported."""
    s = summarize(np.array([np.nan, np.nan]), 3.0)
    assert s["runs"] == 0 and s["original"] == 3.0
    for key in ("mean", "std", "ci_low", "ci_high", "p5", "p95", "span_low", "span_high",
                "distance", "concentration"):
        assert s[key] is None, key


def test_unknown_original():
    """O is NaN (the unshaken run had no value): no comparison with it."""
    s = summarize(np.array([9.0, 10.0, 11.0, 12.0]), math.nan)
    assert s["original"] is None and s["mean"] == approx(10.5)
    assert s["span_low"] is None and s["distance"] is None and s["concentration"] is None


def test_t_quantiles():
    """The interval's t: the table values for 1 and 3 degrees of freedom, the normal's for many."""
    assert t_quantile(3) == pytest.approx(T_975_3, rel=1e-11)
    assert t_quantile(1) == pytest.approx(T_975_1, rel=1e-11)
    assert t_quantile(10**7) == pytest.approx(Z_975, rel=1e-6)


METRICS = {
    "wait": {"mean": 1.0, "median": 2.0, "p95": 3.0},
    "response": {"mean": 4.0, "median": 40.0, "p95": 41.0},
    "bounded_slowdown": {"mean": 5.0, "median": 6.0, "p95": None},
    "utilization": 0.75,
    "utilization_measured": 0.5,
    "throughput_per_hour": None,
    "makespan": 8.0,
    "measured_jobs": 7,
    "interval": [0.0, 1.0],
    "saturation": {"saturated": True, "slope": 2.5, "weeks": 9},
}


def test_metric_values_reads_a_metrics_dict():
    """The study's columns, in RUN_COLUMNS order (the metrics, then whether
    the run saturated and its slope); None becomes NaN."""
    assert METRIC_NAMES == ("wait_mean", "wait_median", "wait_p95", "response_mean", "bounded_slowdown_mean",
                            "bounded_slowdown_median", "bounded_slowdown_p95", "utilization",
                            "utilization_measured", "throughput_per_hour", "makespan", "measured_jobs")
    assert RUN_COLUMNS == METRIC_NAMES + ("saturated", "saturation_slope")
    got = metric_values(METRICS)
    want = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, math.nan, 0.75, 0.5, math.nan, 8.0, 7.0, 1.0, 2.5)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert (math.isnan(g) and math.isnan(w)) or g == w


def test_metric_values_of_a_simulation():
    """Two jobs on one processor (0 + 100 s, then 10 + 50 s, waiting 90 s),
    all measured: the values worked out by hand. With the default settings
    no job is measured (both end after the last arrival): their statistics
    are NaN."""
    w = from_frame(pd.DataFrame({"submit": [0.0, 10.0], "run": [100.0, 50.0], "procs": [1, 1],
                                 "req_time": [100.0, 50.0], "user_id": [1, 2]}), procs=1)
    got = metric_values(simulate(w, warmup=0, stop_at_last_arrival=False).metrics)
    # waits 0, 90; responses 100, 140; bounded slowdowns 1, 2.8; busy all of [0, 150]; 2 jobs in 150 s
    # one week from the first arrival to the last: too short to tell, not saturated, no slope
    want = (45.0, 45.0, 85.5, 120.0, 1.9, 1.9, 1 + 0.95 * 1.8, 1.0, 1.0, 2 / 150 * 3600, 150.0, 2.0, 0.0)
    assert got[:13] == pytest.approx(want, rel=REL) and math.isnan(got[13])
    got = metric_values(simulate(w).metrics)
    assert all(math.isnan(x) for x in got[:7])
    # measured until the last arrival, [0, 10]: the processor busy throughout, no job ending in it
    assert got[7:13] == (1.0, 1.0, 0.0, 150.0, 0.0, 0.0)


def test_an_interval_past_the_range_is_cut_there():
    """Waits 0, 0 and 1000: mean 1000/3, std sqrt(1000^2/3) = 577.35, half
    width t_{0.975,2} = 4.302652729749464 x 577.35 / sqrt(3) = 1434.2, so
    the t-interval runs from -1100.9: a mean wait is never below 0, and the
    interval is cut there, its high side kept."""
    t2 = 4.302652729749464
    half = t2 * math.sqrt(1000.0**2 / 3) / math.sqrt(3)
    s = summarize(np.array([0.0, 0.0, 1000.0]), 10.0, RANGES["wait_mean"])
    assert s["ci_low"] == 0.0 and s["ci_high"] == approx(1000 / 3 + half) and s["ci_cut"] == "low"
    uncut = summarize(np.array([0.0, 0.0, 1000.0]), 10.0)
    assert uncut["ci_low"] == approx(1000 / 3 - half) and uncut["ci_cut"] is None


def test_bounded_slowdown_is_cut_at_one_and_utilization_at_both_ends():
    """Bounded slowdowns 1, 1, 4: mean 2, std sqrt(3), half 4.3027 x sqrt(3) /
    sqrt(3) = 4.3027, low -2.3 cut to 1. Utilizations 0.02 and 0.98 (one
    degree of freedom, half 12.706 x 0.6788 / sqrt(2) = 6.1): both sides cut."""
    s = summarize(np.array([1.0, 1.0, 4.0]), 1.0, RANGES["bounded_slowdown_mean"])
    assert (s["ci_low"], s["ci_cut"]) == (1.0, "low") and s["ci_high"] == approx(2 + 4.302652729749464)
    u = summarize(np.array([0.02, 0.98]), 0.5, RANGES["utilization"])
    assert (u["ci_low"], u["ci_high"], u["ci_cut"]) == (0.0, 1.0, "both")
    inside = summarize(np.array([9.0, 10.0, 11.0, 12.0]), 10.0, RANGES["wait_mean"])
    assert inside["ci_cut"] is None and inside["ci_low"] == approx(10.5 - T_975_3 * math.sqrt(5 / 3) / 2)


def test_every_study_metric_has_its_range():
    """A new metric cannot be summarized without saying where its values lie."""
    assert set(RANGES) == set(METRIC_NAMES)
    assert all(lo < hi for lo, hi in RANGES.values())
