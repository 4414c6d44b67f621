"""Conservative backfilling: the compiled core, the plain-Python reference
and a third implementation written as plainly as it can be
(`conservative_naive.py`) agree job by job; reservations never move later
unless an estimate grows; the check finds a job that starts late; and on
whole real logs the core gives the reference's schedule."""
from __future__ import annotations

import numpy as np
import pytest
from conservative_naive import naive_conservative
from hypothesis import given, settings
from hypothesis import strategies as st
from wla.archive.kernel.errors import ScheduleInvalid
from wla.sim import from_archive, simulate
from wla.sim.invariants import check, late_reservations, problems
from wla.sim.reference import OVERRUNS, PASSES, TIES, conservative_reference
from wla.sim.schedule import schedule

# (submit, run, procs, estimate offset from the run, user): estimates below
# the run overrun, equal ones end exactly when estimated
jobs_strategy = st.lists(
    st.tuples(st.integers(0, 40), st.integers(1, 25), st.integers(1, 8), st.integers(-6, 15), st.integers(0, 3)),
    min_size=1, max_size=30)


def _columns(jobs):
    submit, run, procs, extra, user = (np.array(c) for c in zip(*jobs))
    return submit, run, procs, np.maximum(1, run + extra), user


@settings(max_examples=250, deadline=None)
@given(jobs=jobs_strategy, overrun=st.sampled_from(OVERRUNS), last_k=st.sampled_from([0, 1, 2]),
       ties=st.sampled_from(TIES), passes=st.sampled_from(PASSES))
def test_core_reference_and_naive_agree(jobs, overrun, last_k, ties, passes):
    submit, run, procs, est, user = _columns(jobs)
    ref = conservative_reference(submit, run, procs, est, 8, overrun, user, last_k, ties, passes)
    fast = schedule(submit, run, procs, est, 8, "conservative", overrun, user, last_k, ties, passes)
    start, first, delayed = naive_conservative(submit, run, procs, est, 8, overrun, user, last_k, ties, passes)
    assert ref.start.tolist() == fast.start.tolist() == start
    assert ref.first_reservation.tolist() == fast.reservation.tolist() == first
    assert ref.delayed == fast.delayed == delayed
    assert problems(np.arange(len(submit)), submit, fast.start, fast.held, procs, 8) == []


@settings(max_examples=250, deadline=None)
@given(jobs=jobs_strategy, exact=st.booleans(), ties=st.sampled_from(TIES), passes=st.sampled_from(PASSES))
def test_no_job_starts_after_its_first_reservation(jobs, exact, ties, passes):
    """With exact or truncated estimates no estimate grows: a reservation
    only ever moves earlier."""
    submit, run, procs, est, user = _columns(jobs)
    if exact:
        est = run
    for result in (conservative_reference(submit, run, procs, est, 8, "truncate", ties=ties, passes=passes),
                   schedule(submit, run, procs, est, 8, "conservative", "truncate", ties=ties, passes=passes)):
        start = result.start
        first = result.first_reservation if hasattr(result, "first_reservation") else result.reservation
        assert (start <= first).all()
        assert result.delayed == 0


@pytest.mark.parametrize("jobs, P, overrun, starts, first, delayed", [
    # the hand-worked schedules of test_sim_reference.py, through the core
    ([(0, 10, 10, 100), (1, 20, 5, 20), (2, 20, 5, 20)], 10, "truncate", [0, 10, 10], [0, 100, 100], 0),
    ([(0, 10, 10, 100), (0, 20, 2, 20), (1, 30, 11, 30), (2, 30, 2, 30)], 12, "truncate",
     [0, 0, 50, 10], [0, 0, 100, 20], 0),
    ([(0, 10, 8, 100), (0, 50, 2, 50), (1, 50, 10, 50), (2, 20, 4, 20)], 10, "truncate",
     [0, 0, 50, 10], [0, 0, 100, 150], 0),
    ([(0, 20, 10, 10), (1, 10, 10, 10)], 10, "keep", [0, 20], [0, 10], 1),
])
def test_hand_worked_schedules_through_the_core(jobs, P, overrun, starts, first, delayed):
    submit, run, procs, est = zip(*jobs)
    fast = schedule(submit, run, procs, est, P, "conservative", overrun)
    assert fast.start.tolist() == starts and fast.reservation.tolist() == first and fast.delayed == delayed


def test_the_check_finds_a_job_that_starts_after_its_reservation():
    job, start = np.array([1, 2, 3]), np.array([0.0, 10.0, 20.0])
    held, estimate = np.array([10.0, 10.0, 5.0]), np.array([10.0, 10.0, 5.0])
    promised = np.array([0.0, 10.0, 15.0])
    assert late_reservations(job, start, held, estimate, promised, 0) == [
        "job 3 started at 20, after its reservation at 15"]
    assert late_reservations(job, start, held, estimate, np.array([0.0, 10.0, 20.0]), 2) == [
        "2 reservations moved later though no estimate grew"]
    # a job that outlived its estimate may delay the others: nothing to hold against them
    assert late_reservations(job, start, held, np.array([10.0, 5.0, 5.0]), promised, 1) == []
    with pytest.raises(ScheduleInvalid, match="job 3 started at 20, after its reservation at 15"):
        check(job, np.zeros(3), start, held, np.array([1, 1, 1]), 4, None, promised, estimate, 0)


def test_results_count_delayed_reservations(sp2_workload):
    keep = simulate(sp2_workload, policy="conservative", overrun="keep", check=True)
    truncate = simulate(sp2_workload, policy="conservative", check=True)
    assert truncate.counts["reservations_delayed"] == 0
    assert (truncate.start <= truncate.reservation).all()
    # under keep, jobs run past their estimates and the queue is placed again
    assert keep.counts["reservations_delayed"] > 0
    assert simulate(sp2_workload).counts["reservations_delayed"] is None  # EASY has no reservations to keep
    assert list(truncate.schedule().columns)[-1] == "reservation"


def _arrays(archive, name, limit=None):
    w = from_archive(archive, name)
    cut = slice(None, limit)
    return w.submit[cut], w.run[cut], w.procs[cut], w.estimate[cut], w.user[cut], w.P


def _same_as_reference(archive, name, overrun, last_k=0, passes="instant", limit=None):
    submit, run, procs, est, user, P = _arrays(archive, name, limit)
    ref = conservative_reference(submit, run, procs, est, P, overrun, user, last_k, passes=passes)
    fast = schedule(submit, run, procs, est, P, "conservative", overrun, user, last_k, passes=passes)
    assert np.array_equal(ref.start, fast.start)
    assert np.array_equal(ref.first_reservation, fast.reservation)
    assert ref.delayed == fast.delayed
    assert not np.isnan(fast.start).any()
    check(np.arange(len(submit)), submit, fast.start, fast.held, procs, P, None, fast.reservation,
          fast.estimate, fast.delayed)


@pytest.mark.parametrize("name, overrun, last_k, passes, limit", [
    ("SDSC-SP2-1998-4.2-cln", "truncate", 0, "instant", 6000),
    ("KTH-SP2-1996-2.1-cln", "extend", 0, "instant", None),
    ("CTC-SP2-1996-3.1-cln", "keep", 2, "instant", 1500),
    ("HPC2N-2002-2.2-cln", "truncate", 2, "event", 3000),
    ("SDSC-BLUE-2000-4.2-cln", "keep", 0, "event", 3000),
    ("LLNL-Thunder-2007-1.1-cln", "truncate", 3, "event", 5000),
])
def test_core_equals_reference_on_real_logs(real_archive, name, overrun, last_k, passes, limit):
    _same_as_reference(real_archive, name, overrun, last_k, passes, limit)


@pytest.mark.slow
@pytest.mark.parametrize("name, overrun", [
    ("SDSC-SP2-1998-4.2-cln", "truncate"), ("SDSC-SP2-1998-4.2-cln", "extend"),
    ("KTH-SP2-1996-2.1-cln", "truncate"),
    ("CTC-SP2-1996-3.1-cln", "truncate"), ("CTC-SP2-1996-3.1-cln", "extend"),
    ("HPC2N-2002-2.2-cln", "truncate"), ("SDSC-BLUE-2000-4.2-cln", "truncate"),
])
def test_core_equals_reference_on_whole_real_logs(real_archive, name, overrun):
    _same_as_reference(real_archive, name, overrun)
