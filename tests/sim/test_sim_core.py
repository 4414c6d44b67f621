"""The fast core against the plain-Python reference: identical start times on
generated workloads and on the real logs; invariants; predictors; metrics
worked out by hand."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wla.archive.kernel.errors import ScheduleInvalid, UsageError
from wla.sim import from_archive, simulate
from wla.sim.invariants import check, late_heads, problems
from wla.sim.metrics import job_metrics, measured, summarize
from wla.sim.predictors import parse_estimator, scheduler_estimates
from wla.sim.reference import OVERRUNS, PASSES, POLICIES, TIES, arrival_order, simulate_reference
from wla.sim.schedule import schedule

jobs_strategy = st.lists(
    st.tuples(st.integers(0, 60), st.integers(1, 30), st.integers(1, 8), st.integers(1, 40), st.integers(0, 3)),
    min_size=1, max_size=40)


@settings(max_examples=400, deadline=None)
@given(jobs=jobs_strategy, policy=st.sampled_from(POLICIES), overrun=st.sampled_from(OVERRUNS),
       last_k=st.sampled_from([0, 1, 2, 3]), ties=st.sampled_from(TIES), passes=st.sampled_from(PASSES))
def test_core_equals_reference_on_generated_workloads(jobs, policy, overrun, last_k, ties, passes):
    submit, run, procs, est, user = (np.array(c) for c in zip(*jobs))
    ref = simulate_reference(submit, run, procs, est, 8, policy, overrun, user, last_k, ties, passes)
    fast = schedule(submit, run, procs, est, 8, policy, overrun, user, last_k, ties, passes)
    assert np.array_equal(ref, fast.start)
    order = arrival_order(submit.astype(float), ties)
    assert problems(np.arange(len(submit)), submit, fast.start, fast.held, procs, 8) == []
    if policy == "easy" and passes == "instant":
        # exact estimates: the head is never delayed by a backfilled job
        exact = schedule(submit, run, procs, run, 8, policy, overrun, ties=ties)
        assert late_heads(np.arange(len(submit)), submit, exact.start, exact.held, procs, 8, order) == []


# Bursts of alike jobs (a search starts where an alike job placed before it in
# the pass fitted) and jobs that run exactly their estimate, or past it
# (reservations that fall due or pass between rebuilds).
bursts_strategy = st.lists(
    st.tuples(st.integers(0, 40), st.integers(1, 20), st.integers(1, 8), st.integers(-3, 6), st.integers(0, 3),
              st.integers(1, 4)),
    min_size=1, max_size=15)


@settings(max_examples=300, deadline=None)
@given(bursts=bursts_strategy, overrun=st.sampled_from(OVERRUNS), last_k=st.sampled_from([0, 1, 2]),
       ties=st.sampled_from(TIES), passes=st.sampled_from(PASSES))
def test_conservative_core_equals_reference_on_bursts(bursts, overrun, last_k, ties, passes):
    jobs = [(s, r, p, max(1, r + extra), u) for s, r, p, extra, u, copies in bursts for _ in range(copies)]
    submit, run, procs, est, user = (np.array(c) for c in zip(*jobs))
    ref = simulate_reference(submit, run, procs, est, 8, "conservative", overrun, user, last_k, ties, passes)
    fast = schedule(submit, run, procs, est, 8, "conservative", overrun, user, last_k, ties, passes)
    assert np.array_equal(ref, fast.start)
    assert problems(np.arange(len(submit)), submit, fast.start, fast.held, procs, 8) == []


def _arrays(archive, name, limit=None):
    w = from_archive(archive, name)
    cut = slice(None, limit)
    return (w.submit[cut], w.run[cut], w.procs[cut], w.estimate[cut], w.user[cut], w.P)


@pytest.mark.parametrize("name, policy, overrun, last_k, limit", [
    ("SDSC-SP2-1998-4.2-cln", "easy", "truncate", 0, None),
    ("SDSC-SP2-1998-4.2-cln", "fcfs", "truncate", 0, None),
    ("SDSC-SP2-1998-4.2-cln", "easy", "keep", 2, None),
    ("CTC-SP2-1996-3.1-cln", "easy", "truncate", 0, 25000),
    ("CTC-SP2-1996-3.1-cln", "easy", "extend", 2, 25000),
    ("KTH-SP2-1996-2.1-cln", "easy", "keep", 0, None),
    ("HPC2N-2002-2.2-cln", "easy", "truncate", 0, 30000),
    ("SDSC-BLUE-2000-4.2-cln", "easy", "truncate", 0, 30000),
    # conservative: test_sim_conservative.py
])
def test_core_equals_reference_on_real_logs(real_archive, name, policy, overrun, last_k, limit):
    submit, run, procs, est, user, P = _arrays(real_archive, name, limit)
    ref = simulate_reference(submit, run, procs, est, P, policy, overrun, user, last_k)
    fast = schedule(submit, run, procs, est, P, policy, overrun, user, last_k)
    assert np.array_equal(ref, fast.start)
    assert not np.isnan(fast.start).any()
    check(np.arange(len(submit)), submit, fast.start, fast.held, procs, P)


@pytest.mark.parametrize("name, overrun, last_k, passes, limit, procs", [
    ("HPC2N-2002-2.2-cln", "truncate", 0, "instant", 3000, None),
    ("SDSC-BLUE-2000-4.2-cln", "keep", 0, "event", 3000, None),
    ("CEA-Curie-2011-2.1-cln", "extend", 2, "instant", 5000, None),
    ("LLNL-Thunder-2007-1.1-cln", "truncate", 3, "event", 6000, None),
    ("KTH-SP2-1996-2.1-cln", "keep", 2, "instant", 2000, None),
    ("RICC-2010-2", "truncate", 0, "instant", 600, 8192),
])
def test_conservative_core_equals_reference_on_real_log_prefixes(real_archive, name, overrun, last_k, passes,
                                                                 limit, procs):
    w = from_archive(real_archive, name, procs=procs)
    cut = slice(None, limit)
    arrays = (w.submit[cut], w.run[cut], w.procs[cut], w.estimate[cut], w.P, "conservative", overrun, w.user[cut],
              last_k, "log", passes)
    fast = schedule(*arrays)
    assert np.array_equal(simulate_reference(*arrays), fast.start)
    check(np.arange(limit), w.submit[cut], fast.start, fast.held, w.procs[cut], w.P)


@pytest.mark.slow
@pytest.mark.parametrize("name, procs", [("CEA-Curie-2011-2.1-cln", None), ("RICC-2010-2", 8192)])
def test_conservative_finishes_whole_large_logs(real_archive, name, procs):
    result = simulate(from_archive(real_archive, name, procs=procs), policy="conservative", check=True)
    assert result.settings["checked"] and not np.isnan(result.start).any()


@pytest.mark.parametrize("name", ["SDSC-SP2-1998-4.2-cln", "CTC-SP2-1996-3.1-cln", "HPC2N-2002-2.2-cln",
                                  "SDSC-BLUE-2000-4.2-cln"])
def test_easy_keeps_its_reservations_on_real_logs(real_archive, name):
    result = simulate(from_archive(real_archive, name), estimate="exact", check=True)
    assert result.settings["checked"]


def test_the_checker_finds_broken_schedules():
    job = np.array([1, 2, 3])
    submit = np.array([0.0, 0.0, 5.0])
    held = np.array([10.0, 10.0, 10.0])
    procs = np.array([2, 2, 2])
    assert problems(job, submit, np.array([0.0, 0.0, 0.0]), held, procs, 4) == [
        "job 3 starts at 0, before its submit time 5", "6 processors in use at 0 on a machine of 4"]
    assert problems(job, submit, np.array([0.0, 0.0, 5.0]), held, procs, 4) == [
        "6 processors in use at 5 on a machine of 4"]
    # one ends exactly when the other starts: never more than 4
    assert problems(job, submit, np.array([0.0, 0.0, 10.0]), held, procs, 4) == []
    # Head 2 (needs 4) got the shadow 10 when it arrived; a backfilled job
    # 3 holding 2 processors until 15 delays it to 15.
    job, submit = np.array([1, 2, 3]), np.array([0.0, 1.0, 2.0])
    held, procs = np.array([10.0, 5.0, 13.0]), np.array([2, 4, 2])
    start = np.array([0.0, 15.0, 2.0])
    with pytest.raises(ScheduleInvalid, match="head job 2 started at 15, after its reservation at 10"):
        check(job, submit, start, held, procs, 4, np.arange(3))


# Predictions, worked by hand on 10 processors (submit, run, procs, estimate, user).
# A (user 1) runs 5. B (user 1) then predicts 5 (A's run) and starts at 10 on
# 6 processors; C (10 processors) waits as head with shadow 15 (B's predicted
# end), so D (ends 12 + 8 = 20 > 15, no extra) does not backfill at 12. At 15
# B outlives its prediction and gets its estimate back (end 60): D backfills
# at 15. At 20 B ends; C still needs D's 4 (D ends 23), and E (ends 25 > 23)
# stays. C starts at 23, E when C ends at 33. With user estimates, B's end is
# 60 from the start, D backfills at 12, C starts at 20 and E at 30.
PREDICTED = [(0, 5, 4, 50, 1), (10, 10, 6, 50, 1), (11, 10, 10, 10, 2), (12, 8, 4, 8, 3), (13, 5, 4, 5, 3)]


@pytest.mark.parametrize("last_k, starts, used", [
    (2, [0, 10, 23, 15, 33], [50, 5, 10, 8, 5]),
    (0, [0, 10, 20, 12, 30], [50, 50, 10, 8, 5]),
])
def test_last_k_prediction_and_its_correction(last_k, starts, used):
    submit, run, procs, est, user = zip(*PREDICTED)
    fast = schedule(submit, run, procs, est, 10, "easy", "truncate", user, last_k)
    assert fast.start.tolist() == starts
    assert fast.estimate.tolist() == used
    assert simulate_reference(submit, run, procs, est, 10, "easy", "truncate", user, last_k).tolist() == starts


def test_last_k_averages_the_last_k_completed_runs_capped_by_the_estimate():
    # One user, jobs one after another: no history -> own estimate 100; then
    # mean of [10] = 10, of [10, 20] = 15, of [20, 30] = 25; the last: mean
    # of [30, 40] = 35 capped by its estimate 12.
    jobs = [(0, 10, 100), (100, 20, 100), (200, 30, 100), (300, 40, 100), (400, 5, 12)]
    submit, run, est = zip(*jobs)
    fast = schedule(submit, run, [1] * 5, est, 10, "easy", "truncate", [7] * 5, 2)
    assert fast.estimate.tolist() == [100, 10, 15, 25, 12]
    assert fast.start.tolist() == list(submit)


def test_badness_draws_between_run_and_f_plus_one_times_run():
    run = np.arange(1.0, 1001.0)
    est = scheduler_estimates(parse_estimator("badness:2"), run, run * 50, seed=7)
    assert (est >= run).all() and (est <= 3 * run).all()
    assert np.array_equal(est, scheduler_estimates(parse_estimator("badness:2"), run, run * 50, seed=7))
    assert not np.array_equal(est, scheduler_estimates(parse_estimator("badness:2"), run, run * 50, seed=8))
    assert np.array_equal(scheduler_estimates(parse_estimator("badness:0"), run, run * 50, seed=7), run)
    # the spread is uniform: the mean excess ratio is about f / 2
    assert abs(((est - run) / run).mean() - 1.0) < 0.05


@pytest.mark.parametrize("text", ["last:0", "last:x", "badness:-1", "badness:", "guess", "exact:1"])
def test_bad_estimates_are_refused(text):
    with pytest.raises(UsageError):
        parse_estimator(text)


def test_metrics_by_hand():
    # P = 4. J1 (0, run 10, 4 procs) runs at once; J2 (2, run 5, 2 procs) and
    # J3 (3, run 1, 2 procs) wait for it and start together at 10.
    # wait 0, 8, 7; response 10, 13, 8; bounded slowdown (tau 10) 1, 1.3, 1.
    submit, run = np.array([0.0, 2.0, 3.0]), np.array([10.0, 5.0, 1.0])
    procs = np.array([4, 2, 2])
    sched = schedule(submit, run, procs, run, 4, "easy")
    assert sched.start.tolist() == [0, 10, 10]
    m = job_metrics(submit, sched.start, sched.held, 10.0)
    assert m.wait.tolist() == [0, 8, 7]
    assert m.response.tolist() == [10, 13, 8]
    assert m.bounded_slowdown.tolist() == [1, 1.3, 1]
    end = sched.start + sched.held
    order = np.arange(3)
    # measured to the end: interval [0, 15], busy 40 + 10 + 2 = 52 of 60
    to_end = measured(submit, end, order, np.zeros(3, bool), 0.0, False)
    s = summarize(m, to_end, sched.start, end, procs, submit, 4)
    assert s["wait"] == {"mean": 5.0, "median": 7.0, "p95": 7.9}
    assert s["utilization"] == pytest.approx(52 / 60, rel=1e-15)
    assert s["throughput_per_hour"] == pytest.approx(3 / 15 * 3600, rel=1e-15)
    assert s["makespan"] == 15
    # stopping at the last arrival (3): every job ends after it, none is
    # measured; over [0, 3] only J1 runs, on all 4 processors
    stop = measured(submit, end, order, np.zeros(3, bool), 0.0, True)
    assert stop.mask.sum() == 0 and stop.after_last_arrival == 3
    s = summarize(m, stop, sched.start, end, procs, submit, 4)
    assert s["utilization"] == 1.0 and s["wait"]["mean"] is None
    # warm-up 0.34 of 3 jobs leaves out floor(1.02) = 1, the first to arrive
    warm = measured(submit, end, order, np.array([False, False, True]), 0.34, False)
    assert warm.mask.tolist() == [False, True, False] and (warm.warmup, warm.excluded) == (1, 1)


def test_same_seed_same_result_bit_for_bit(real_archive):
    w = from_archive(real_archive, "SDSC-SP2-1998-4.2-cln")
    a = simulate(w, estimate="badness:1", seed=3)
    b = simulate(w, estimate="badness:1", seed=3)
    c = simulate(w, estimate="badness:1", seed=4)
    assert a.start.tobytes() == b.start.tobytes() and a.to_json() == b.to_json()
    assert a.start.tobytes() != c.start.tobytes()
