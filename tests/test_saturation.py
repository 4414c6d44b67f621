"""Saturation (resampling.md): weekly outstanding jobs, their suffix minimum,
the last 20% of weeks dropped, a least-squares slope above 1 job per week.
Counts and slopes worked out by hand."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from wla.archive.clock import DAY, WEEK
from wla.sim import from_frame, simulate
from wla.sim.saturation import backlog, saturation


def jobs_outstanding(counts: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Jobs that are outstanding at the start of week k and at no other
    week start: counts[k] of them (week 0's submitted at 0, the last week's
    exactly at its start, the others 10 s before it)."""
    submit, end = [], []
    last = len(counts) - 1
    for k, c in enumerate(counts):
        at = 0.0 if k == 0 else (k * WEEK if k == last else k * WEEK - 10)
        submit += [at] * c
        end += [k * WEEK + 10] * c
    return np.array(submit), np.array(end)


def test_backlog_counts_jobs_submitted_and_not_ended_at_each_week_start():
    submit, end = jobs_outstanding([5, 1, 4, 2, 6, 3, 7, 8, 9, 10])
    assert backlog(submit, end).tolist() == [5, 1, 4, 2, 6, 3, 7, 8, 9, 10]
    # a job ending exactly at a week's start is no longer outstanding then
    assert backlog(np.array([0.0, WEEK]), np.array([WEEK, 2 * WEEK])).tolist() == [1, 1]


def test_suffix_minimum_then_the_last_fifth_dropped_then_the_slope():
    # suffix minima 1 1 2 2 3 3 7 8 9 10; the last 2 of 10 weeks dropped: 1 1 2 2 3 3 7 8;
    # x = 0..7 (mean 3.5), y mean 27/8: sum of products 41.5, sum of squares 42
    s = saturation(*jobs_outstanding([5, 1, 4, 2, 6, 3, 7, 8, 9, 10]))
    assert s["weeks"] == 8 and s["slope"] == pytest.approx(41.5 / 42, rel=1e-12)
    assert s["saturated"] is False  # 0.988 jobs a week is not more than 1


def test_a_growing_backlog_saturates_and_a_passing_surge_does_not():
    growing = saturation(*jobs_outstanding([1 + 2 * k for k in range(10)]))
    assert growing == {"saturated": True, "slope": pytest.approx(2.0, rel=1e-12), "weeks": 8}
    surge = saturation(*jobs_outstanding([1, 0, 50, 60, 0, 0, 0, 0, 0, 1]))
    assert surge == {"saturated": False, "slope": 0.0, "weeks": 8}
    # exactly 1 job a week more is not saturated: the threshold is "above 1"
    assert saturation(*jobs_outstanding(list(range(10))))["saturated"] is False


def test_too_short_to_tell():
    assert saturation(*jobs_outstanding([3])) == {"saturated": False, "slope": None, "weeks": 1}
    assert saturation(np.zeros(0), np.zeros(0)) == {"saturated": False, "slope": None, "weeks": 0}


def test_every_simulation_reports_it():
    """One processor, a 2-day job every day for 60 days: the backlog grows by
    3.5 jobs a week. Half-day jobs leave it empty."""
    def run(length: float) -> dict:
        frame = pd.DataFrame({"submit": np.arange(60) * DAY, "run": np.full(60, length), "procs": 1})
        return simulate(from_frame(frame, procs=1)).metrics["saturation"]

    heavy = run(2 * DAY)
    assert heavy["saturated"] is True and heavy["slope"] == pytest.approx(3.5, abs=0.05)
    # week starts at days 0, 7, ..., 56 (9 of them), the last one dropped
    assert run(DAY / 2) == {"saturated": False, "slope": 0.0, "weeks": 8}
