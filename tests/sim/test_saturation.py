"""Saturation (resampling.md): weekly waiting jobs (or, as the paper counts,
outstanding ones), their suffix minimum, the last 20% of weeks dropped, a
least-squares slope above 1 job per week. Counts and slopes worked out by
hand; on every shared log, no false alarm."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from wla.archive.kernel.clock import DAY, WEEK
from wla.archive.kernel.errors import UsageError
from wla.sim import from_archive, from_frame, simulate
from wla.sim.saturation import backlog, saturation


def outstanding(submit: np.ndarray, end: np.ndarray) -> dict:
    """Saturation of jobs counted until they end, whichever count is asked
    for: with no start before the end, waiting and outstanding agree."""
    out = saturation(submit, end, end, count="outstanding")
    assert saturation(submit, end, end) == {**out, "backlog": "waiting"}
    return out


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
    s = outstanding(*jobs_outstanding([5, 1, 4, 2, 6, 3, 7, 8, 9, 10]))
    assert s["weeks"] == 8 and s["slope"] == pytest.approx(41.5 / 42, rel=1e-12)
    assert s["saturated"] is False  # 0.988 jobs a week is not more than 1


def test_a_growing_backlog_saturates_and_a_passing_surge_does_not():
    growing = outstanding(*jobs_outstanding([1 + 2 * k for k in range(10)]))
    assert growing == {"saturated": True, "slope": pytest.approx(2.0, rel=1e-12), "weeks": 8, "backlog": "outstanding"}
    surge = outstanding(*jobs_outstanding([1, 0, 50, 60, 0, 0, 0, 0, 0, 1]))
    assert surge == {"saturated": False, "slope": 0.0, "weeks": 8, "backlog": "outstanding"}
    # exactly 1 job a week more is not saturated: the threshold is "above 1"
    assert outstanding(*jobs_outstanding(list(range(10))))["saturated"] is False


def test_too_short_to_tell():
    assert outstanding(*jobs_outstanding([3])) == {"saturated": False, "slope": None, "weeks": 1,
                                                    "backlog": "outstanding"}
    assert outstanding(np.zeros(0), np.zeros(0))["slope"] is None
    with pytest.raises(UsageError, match="unknown backlog 'queued'; one of waiting, outstanding"):
        saturation(np.zeros(0), np.zeros(0), np.zeros(0), count="queued")


def test_running_jobs_that_pile_up_are_not_a_backlog():
    """A machine of 10,000 processors: every day ten week-long jobs start at
    once and nothing waits. The running count grows by 70 a week while the
    machine fills, so the paper's count calls it saturated; no job waits."""
    days = np.arange(60) * DAY
    submit = np.repeat(days, 10)
    start, end = submit, submit + 7 * DAY + np.repeat(np.arange(60) * DAY / 2, 10)
    assert saturation(submit, start, end, count="outstanding")["saturated"] is True
    assert saturation(submit, start, end) == {"saturated": False, "slope": 0.0, "weeks": 8, "backlog": "waiting"}


def test_every_simulation_reports_it():
    """One processor, a 2-day job every day for 60 days: the backlog grows by
    3.5 jobs a week. Half-day jobs leave it empty."""
    def run(length: float) -> dict:
        frame = pd.DataFrame({"submit": np.arange(60) * DAY, "run": np.full(60, length), "procs": 1})
        return simulate(from_frame(frame, procs=1)).metrics["saturation"]

    heavy = run(2 * DAY)
    assert heavy["saturated"] is True and heavy["slope"] == pytest.approx(3.5, abs=0.05)
    # week starts at days 0, 7, ..., 56 (9 of them), the last one dropped
    assert run(DAY / 2) == {"saturated": False, "slope": 0.0, "weeks": 8, "backlog": "waiting"}


SIZES = {"RICC-2010-2": 8192, "lublin_256": 256}  # no machine size in their headers


@pytest.mark.slow
def test_no_log_whose_waits_are_short_is_called_saturated(real_archive):
    """EASY at load 1 on every shared log: a log whose 95th-percentile wait
    is under an hour never saturates; FCFS on SDSC-SP2 does. The paper's
    count, running jobs included, called LLNL-Atlas (95th percentile 0 s)
    saturated."""
    query = "SELECT name FROM logs WHERE kind = 'log' ORDER BY name"
    names = [r[0] for r in real_archive.con.execute(query).fetchall()]
    assert len(names) >= 15
    for name in names:
        w = from_archive(real_archive, name, procs=SIZES.get(name))
        m = simulate(w).metrics
        if m["wait"]["p95"] is not None and m["wait"]["p95"] < 3600:
            assert not m["saturation"]["saturated"], name
    sp2 = from_archive(real_archive, "SDSC-SP2-1998-4.2-cln")
    fcfs = simulate(sp2, policy="fcfs").metrics["saturation"]
    assert fcfs["saturated"] and fcfs["slope"] > 20
    atlas = from_archive(real_archive, "LLNL-Atlas-2006-2.1-cln")
    assert simulate(atlas, backlog="outstanding").metrics["saturation"]["saturated"]
    assert not simulate(atlas).metrics["saturation"]["saturated"]
