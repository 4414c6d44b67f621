"""The compiled arrivals under feedback, step by step, on a hand-made set:
jobs 0..4 in trace order, 1 and 3 waiting for job 0, 4 for job 2."""
from __future__ import annotations

import numpy as np
from wla.sim.arrivals import next_arrival, release, skip_dependent
from wla.sim.heap import empty

SUBMIT = np.array([0.0, 1.0, 2.0, 3.0, 9.0])
DEPENDENT = np.array([False, True, False, True, True])
CHILD = np.array([1, -1, 4, -1, -1])  # job 0 releases 1 then 3; job 2 releases 4
SIBLING = np.array([-1, 3, -1, -1, -1])
THINK = np.array([0.0, 5.0, 0.0, 0.0, 2.0])


def test_the_pointer_skips_the_jobs_that_wait_for_another():
    assert skip_dependent(DEPENDENT, 0, 5) == 0
    assert skip_dependent(DEPENDENT, 1, 5) == 2
    assert skip_dependent(DEPENDENT, 3, 5) == 5


def test_a_job_ending_releases_its_jobs_at_its_end_plus_think_never_before_their_submit():
    t, k, j = empty(6)
    size = release(0, 4.0, SUBMIT, CHILD, SIBLING, THINK, t, k, j, 0)
    # job 1: 4 + 5 = 9; job 3: 4 + 0, but not before its submit time 3: 4
    assert size == 2
    assert (t[0], j[0]) == (4.0, 3)
    size = release(2, 5.0, SUBMIT, CHILD, SIBLING, THINK, t, k, j, size)
    # job 4: 5 + 2 = 7, but its submit time is 9
    assert size == 3
    got = []
    while size:
        got.append((t[0], int(j[0])))
        a, _, size = next_arrival(t[0], SUBMIT, DEPENDENT, 5, 5, t, k, j, size)
        assert a == got[-1][1]
    # at 9, job 1 (released) comes before job 4 (released): trace order
    assert got == [(4.0, 3), (9.0, 1), (9.0, 4)]


def test_one_instant_merges_the_trace_and_the_released_jobs_in_trace_order():
    submit = np.array([0.0, 4.0, 4.0, 4.0])
    dependent = np.array([False, True, False, False])
    t, k, j = empty(5)
    size = release(0, 4.0, submit, np.array([1, -1, -1, -1]), np.full(4, -1), np.zeros(4), t, k, j, 0)
    pointer = 2  # the next trace arrival: job 2, also at 4
    order = []
    while True:
        a, pointer, size = next_arrival(4.0, submit, dependent, pointer, 4, t, k, j, size)
        if a < 0:
            break
        order.append(int(a))
    assert order == [1, 2, 3]  # job 1 is first in trace order, though it came through the heap
    assert pointer == 4 and size == 0
