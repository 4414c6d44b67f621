"""The plain-Python policies on hand-worked schedules, and their invariants."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wla.archive.kernel.errors import UsageError
from wla.sim.reference import OVERRUNS, POLICIES, conservative_reference, simulate_reference


def _run(jobs, P, policy, overrun="truncate"):
    submit, run, procs, est = (list(c) for c in zip(*jobs))
    return simulate_reference(submit, run, procs, est, P, policy, overrun).tolist()


# (submit, run, procs, estimate) on 10 processors.
# A holds 6 until 10; B needs 6 and must wait for A; C (4 processors, ends at
# 7) fits beside A. FCFS keeps C behind B; EASY backfills it: B's shadow time
# is 10 and C ends before it.
BACKFILL = [(0, 10, 6, 10), (1, 10, 6, 10), (2, 5, 4, 5)]


def test_fcfs_keeps_arrival_order_and_easy_backfills():
    assert _run(BACKFILL, 10, "fcfs") == [0, 10, 10]
    assert _run(BACKFILL, 10, "easy") == [0, 10, 2]


def test_easy_extra_processors_are_consumed():
    # B needs 8: shadow 10, free then 10, extra 2. C (2 processors, ends at
    # 22, after the shadow) takes the extra; D (the same) finds none left and
    # starts when B ends at 20 (C still holds 2 of the 10).
    jobs = [(0, 10, 6, 10), (1, 10, 8, 10), (2, 20, 2, 20), (3, 20, 2, 20)]
    assert _run(jobs, 10, "easy") == [0, 10, 2, 20]


@pytest.mark.parametrize("run, start", [(8, 2), (9, 20)])
def test_easy_a_job_ending_exactly_at_the_shadow_time_backfills(run, start):
    # Shadow of B is 10 with 2 extra. C (4 processors) ending at 2 + 8 = 10
    # backfills (<=); ending at 11 it needs more than the extra, so it waits
    # until B ends at 20.
    jobs = [(0, 10, 6, 10), (1, 10, 8, 10), (2, run, 4, run)]
    assert _run(jobs, 10, "easy") == [0, 10, start]


def test_simultaneous_arrivals_keep_log_order():
    # B and C arrive together at 5; each needs 6, so one waits for the other.
    jobs = [(0, 10, 10, 10), (5, 5, 6, 5), (5, 5, 6, 5)]
    for policy in POLICIES:
        assert _run(jobs, 10, policy) == [0, 10, 15], policy
    assert _run([jobs[0], jobs[2], jobs[1]], 10, "easy") == [0, 10, 15]


@pytest.mark.parametrize("overrun, starts", [
    # A runs 20 on an estimate of 10. truncate: A is killed at 10, B starts
    # then, C (arriving at 12) waits for B's end at 20. extend: A's estimate
    # becomes 20, B's shadow is 20 with 2 extra, and C (ends 17 <= 20)
    # backfills at 12. keep: at 12 A is past its estimate, so its end counts
    # as now: shadow 12, extra 2, C ends after it and needs 4, so it waits
    # until B (started at 20, when A really ends) ends at 30.
    ("truncate", [0, 10, 20]),
    ("extend", [0, 20, 12]),
    ("keep", [0, 20, 30]),
])
def test_overrun_modes(overrun, starts):
    jobs = [(0, 20, 6, 10), (1, 10, 8, 10), (12, 5, 4, 5)]
    assert _run(jobs, 10, "easy", overrun) == starts


def test_conservative_protects_every_reservation():
    # R holds 8 until 10. H (6) and Q (4) wait; X (2 processors for 30 s)
    # fits now. EASY: H's shadow is 10 with 4 extra, X takes 2 of them and
    # starts at 3, so Q finds only 2 free at 10 and waits until 20.
    # Conservative: H and Q are both reserved at 10, X would overlap them,
    # so X goes after them at 20 and Q starts at 10.
    jobs = [(0, 10, 8, 10), (1, 10, 6, 10), (2, 10, 4, 10), (3, 30, 2, 30)]
    assert _run(jobs, 10, "easy") == [0, 10, 20, 3]
    assert _run(jobs, 10, "conservative") == [0, 10, 10, 20]


def _conservative(jobs, P, overrun="truncate"):
    """Start times, first reservations and reservations moved later."""
    submit, run, procs, est = (list(c) for c in zip(*jobs))
    r = conservative_reference(submit, run, procs, est, P, overrun)
    return r.start.tolist(), r.first_reservation.tolist(), r.delayed


def test_conservative_compression_moves_two_jobs():
    # (submit, run, procs, estimate) on 10 processors. A holds all 10 until
    # its estimated end at 100, so B and C (5 each) are both reserved at
    # 100. A ends at 10: the rest of its hold is given back, and the queue,
    # compressed in order, brings B and then C forward to 10.
    jobs = [(0, 10, 10, 100), (1, 20, 5, 20), (2, 20, 5, 20)]
    assert _conservative(jobs, 10) == ([0, 10, 10], [0, 100, 100], 0)


def test_conservative_a_later_reservation_keeps_a_job_out_of_a_hole():
    # 12 processors. A (10 procs, estimate 100) and B (2 procs, 20) start at
    # 0. X (11 procs, 30 s) arrives at 1 and is reserved at 100, after A. Y
    # (2 procs, 30 s) arrives at 2 and is reserved at 20, in the 2 processors
    # B leaves. A ends at 10. In the compression X comes first: from 20 to 50
    # only 10 processors are free beside Y's reservation, so X cannot use that
    # hole and goes to 50, where 12 are free. Y then moves to 10 (10 free
    # beside B). The queue is compressed once: X is not looked at again,
    # though Y has left the hole, and with no other early end it starts at 50.
    jobs = [(0, 10, 10, 100), (0, 20, 2, 20), (1, 30, 11, 30), (2, 30, 2, 30)]
    assert _conservative(jobs, 12) == ([0, 0, 50, 10], [0, 0, 100, 20], 0)


def test_conservative_an_early_end_lets_a_small_later_job_go_ahead():
    # 10 processors. A (8 procs, estimate 100) and B (2 procs, 50) run. L (all
    # 10, 50 s) is reserved at 100; S (4 procs, 20 s) finds only 2 free
    # before 100 and is reserved after L, at 150. A ends at 10: L needs B's 2
    # and goes to 50, while S fits at once in the 8 A gave back: S, which
    # arrived after L, starts 40 s before it.
    jobs = [(0, 10, 8, 100), (0, 50, 2, 50), (1, 50, 10, 50), (2, 20, 4, 20)]
    assert _conservative(jobs, 10) == ([0, 0, 50, 10], [0, 0, 100, 150], 0)


def test_conservative_keep_overrun_places_the_queue_again_and_counts_the_delay():
    # keep: A (all 10 procs) is estimated to end at 10 but runs until 20. B
    # (all 10) is reserved at 10; at 10 its processors are not really free,
    # so it waits. At 20 A has held them past its estimate: its hold grew,
    # the queue is placed again and B's reservation moves from 10 to 20, the
    # one delayed reservation.
    jobs = [(0, 20, 10, 10), (1, 10, 10, 10)]
    assert _conservative(jobs, 10, "keep") == ([0, 20], [0, 10], 1)
    # truncate kills A at 10: B starts on its reservation, nothing delayed
    assert _conservative(jobs, 10, "truncate") == ([0, 10], [0, 10], 0)


def test_unknown_policy_or_mode_is_refused():
    with pytest.raises(UsageError, match="unknown policy"):
        simulate_reference([0], [1], [1], [1], 1, "sjf")
    with pytest.raises(UsageError, match="unknown overrun"):
        simulate_reference([0], [1], [1], [1], 1, "easy", "stretch")


jobs_strategy = st.lists(
    st.tuples(st.integers(0, 50), st.integers(1, 30), st.integers(1, 8), st.integers(1, 40)),
    min_size=1, max_size=25)


@settings(max_examples=150, deadline=None)
@given(jobs=jobs_strategy, policy=st.sampled_from(POLICIES), overrun=st.sampled_from(OVERRUNS))
def test_schedules_are_valid(jobs, policy, overrun):
    """No job starts before it arrives; never more than P processors in use;
    every job starts (all fit the machine); FCFS starts in arrival order."""
    P = 8
    submit, run, procs, est = (np.array(c, dtype=float) for c in zip(*jobs))
    start = simulate_reference(submit, run, procs, est, P, policy, overrun)
    assert not np.isnan(start).any()
    assert (start >= submit).all()
    held = np.minimum(run, est) if overrun == "truncate" else run
    end = start + held
    for t in np.unique(start):
        assert procs[(start <= t) & (end > t)].sum() <= P
    if policy == "fcfs":
        order = np.lexsort((np.arange(len(submit)), submit))
        assert (np.diff(start[order]) >= 0).all()
