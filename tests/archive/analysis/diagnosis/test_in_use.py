"""Processors in use: hand-made schedules whose over-capacity times are worked out by hand."""
from __future__ import annotations

import numpy as np
from wla.archive.analysis.diagnosis.in_use import in_use, written_schedule
from wla.archive.analysis.diagnosis.log_data import from_columns


def test_over_capacity_time_share_factor_and_per_job_time():
    # 4 processors: a (0-10, 3), b (5-15, 2) -> 5 in use from 5 to 10; c (15-20, 4) starts as b ends.
    use = in_use(np.array([0.0, 5, 15]), np.array([10.0, 15, 20]), np.array([3, 2, 4]), 4)
    assert use.span == 20 and use.over_share() == 5 / 20
    assert use.over_factor() == 5 / 4 and use.peak() == 5
    assert use.over_during(np.array([0.0, 5, 15, 7]), np.array([10.0, 15, 20, 8])).tolist() == [5, 5, 0, 1]


def test_a_job_ending_when_another_starts_frees_its_processors_first():
    use = in_use(np.array([0.0, 10]), np.array([10.0, 20]), np.array([4, 4]), 4)
    assert use.over_share() == 0 and use.peak() == 4


def test_the_schedule_as_written_with_or_without_unknown_waits():
    log = from_columns("t", {"submit": [0, 5, 9, -1], "wait": [2, -1, 0, 0], "run": [10, 5, 0, 3],
                             "procs": [1, 2, 3, 4]})
    ran, start, end, procs = written_schedule(log.jobs, known_waits=False)
    assert ran.tolist() == [True, True, False, False]
    assert start.tolist() == [2, 5] and end.tolist() == [12, 10] and procs.tolist() == [1, 2]
    assert written_schedule(log.jobs, known_waits=True)[0].tolist() == [True, False, False, False]
