"""Feedback: jobs that wait for another (fields 17/18) arrive at its
simulated end plus their think time, never before their own submit time.
Hand-worked schedules for each policy, the core against the reference on
generated workloads with chains, batches and zero think times, and the
property that on a machine where nothing waits, nothing arrives late."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wla.archive.kernel.errors import ScheduleInvalid
from wla.sim import from_frame, simulate
from wla.sim.invariants import check_feedback, late_arrivals
from wla.sim.reference import OVERRUNS, PASSES, POLICIES, TIES, reference_schedule
from wla.sim.schedule import schedule
from wla.sim.workload import DEPENDENCY_LOST, Columns, dependencies, kept_dependencies

# Five jobs on 2 processors, in log order A B C D E (exact estimates):
#   A submit 0, run 10, 2 procs
#   B submit 5, run 5, 2 procs, waits for A, think 3
#   C submit 1, run 4, 1 proc
#   D submit 12, run 2, 1 proc, waits for C, think 0
#   E submit 13, run 1, 1 proc
# A ends at 10, so B arrives at max(5, 10 + 3) = 13. C starts when A ends (10)
# and ends at 14, so D arrives at max(12, 14 + 0) = 14. At 13, B (first in
# trace order among 13's arrivals) cannot start: C holds 1 processor.
#   FCFS: E waits behind B; at 14 B starts; at 19 E and D start.
#   EASY: B's shadow is C's end, 14; E ends by it (13 + 1) and backfills.
#   conservative: B is reserved at 14, E at 13 (free until C ends), D at 19.
SUBMIT = np.array([0.0, 5, 1, 12, 13])
RUN = np.array([10.0, 5, 4, 2, 1])
PROCS = np.array([2, 2, 1, 1, 1])
PRED = np.array([-1, 0, -1, 2, -1])
THINK = np.array([0.0, 3, 0, 0, 0])
ARRIVE = [0, 13, 1, 14, 13]
STARTS = {"fcfs": [0, 14, 10, 19, 19], "easy": [0, 14, 10, 19, 13], "conservative": [0, 14, 10, 19, 13]}


@pytest.mark.parametrize("policy", POLICIES)
def test_hand_worked_schedule_for_each_policy(policy):
    ref_start, ref_arrive = reference_schedule(SUBMIT, RUN, PROCS, RUN, 2, policy, pred=PRED, think=THINK)
    fast = schedule(SUBMIT, RUN, PROCS, RUN, 2, policy, pred=PRED, think=THINK)
    assert ref_start.tolist() == STARTS[policy] == fast.start.tolist()
    assert ref_arrive.tolist() == ARRIVE == fast.arrive.tolist()
    # the order of arrival: A 0, C 1, B 13, E 13 (B first in trace order), D 14
    assert fast.order.tolist() == [0, 2, 1, 4, 3]


def test_without_feedback_every_job_arrives_at_its_submit_time():
    plain = schedule(SUBMIT, RUN, PROCS, RUN, 2, "fcfs")
    assert plain.arrive.tolist() == SUBMIT.tolist()
    # B at 5 queues behind C (1); at 10 C starts, B cannot; C ends at 14
    assert plain.start.tolist() == [0, 14, 10, 19, 19]


def _jobs(draw_jobs, links):
    submit, run, procs, est, user = (np.array(c) for c in zip(*draw_jobs))
    n = len(submit)
    pred = np.full(n, -1)
    think = np.zeros(n)
    for j, (back, gap) in enumerate(links[:n]):
        if 0 < back <= j:
            pred[j] = j - back  # an earlier job in log order: no cycle
            think[j] = gap
    return submit, run, procs, est, user, pred, think


jobs_strategy = st.lists(
    st.tuples(st.integers(0, 60), st.integers(1, 30), st.integers(1, 8), st.integers(1, 40), st.integers(0, 3)),
    min_size=1, max_size=40)
# each job: how far back its preceding job is (0: none; 1: the job before,
# which makes chains and, on equal submits, batches) and the think time
links_strategy = st.lists(st.tuples(st.integers(0, 3), st.sampled_from([0, 0, 1, 5, 30])), min_size=40, max_size=40)


@settings(max_examples=400, deadline=None)
@given(jobs=jobs_strategy, links=links_strategy, policy=st.sampled_from(POLICIES),
       overrun=st.sampled_from(OVERRUNS), last_k=st.sampled_from([0, 1, 2]), ties=st.sampled_from(TIES),
       passes=st.sampled_from(PASSES))
def test_core_equals_reference_with_feedback(jobs, links, policy, overrun, last_k, ties, passes):
    submit, run, procs, est, user, pred, think = _jobs(jobs, links)
    ref_start, ref_arrive = reference_schedule(submit, run, procs, est, 8, policy, overrun, user, last_k, ties,
                                               passes, pred, think)
    fast = schedule(submit, run, procs, est, 8, policy, overrun, user, last_k, ties, passes, pred, think)
    assert np.array_equal(ref_start, fast.start)
    assert np.array_equal(ref_arrive, fast.arrive)
    end = fast.start + fast.held
    assert late_arrivals(np.arange(len(submit)), submit.astype(float), fast.arrive, end, pred, think) == []
    assert (fast.start >= fast.arrive).all()


@settings(max_examples=200, deadline=None)
@given(jobs=st.lists(st.tuples(st.integers(0, 500), st.integers(0, 50), st.integers(1, 30), st.integers(1, 8),
                               st.integers(0, 3)), min_size=1, max_size=40),
       policy=st.sampled_from(POLICIES))
def test_where_nothing_waits_every_job_arrives_at_its_submit_time(jobs, policy):
    """Dependencies made from a trace with waits, as the rule makes them: on a
    machine wide enough for every job at once, a preceding job ends no later
    than it did in the trace, so no job is held past its submit time."""
    submit, wait, run, procs, user = (np.array(c, dtype=float) for c in zip(*jobs))
    order = np.lexsort((np.arange(len(submit)), submit))
    end = submit + wait + run
    prev_job = np.full(len(submit), -1)
    think = np.full(len(submit), -1.0)
    for k, j in enumerate(order):  # the user's job that ended last before j's submit
        done = [i for i in order[:k] if user[i] == user[j] and end[i] <= submit[j]]
        if done:
            i = max(done, key=lambda i: end[i])
            prev_job[j], think[j] = i + 1, submit[j] - end[i]
    frame = Columns({"job": np.arange(1, len(submit) + 1), "submit": submit, "run": run, "procs": procs.astype(int),
                     "req_time": run, "user_id": user.astype(int), "prev_job": prev_job, "think": think})
    w = from_frame(frame, procs=int(procs.sum()))
    r = simulate(w, policy=policy, feedback=True, check=True, estimate="exact")
    assert np.array_equal(r.submit, r.trace_submit)
    assert (r.wait == 0).all()
    assert r.counts["arrived_late"] == 0


def test_a_workload_resolves_job_numbers_and_refuses_what_would_loop():
    # jobs 7, 8, 7 (a number written twice), 9, 10 and 11
    job = np.array([7, 8, 7, 9, 10, 11])
    submit = np.array([0.0, 10, 20, 30, 40, 15])
    prev_job = np.array([-1, 7, 8, 7, 12, 10])
    think = np.array([-1.0, 4, np.nan, 2, 1, 3])
    pred, gap, counts = dependencies(job, submit, prev_job, think)
    # job 8 waits for the 7 before it; the second 7 for 8; 9 (at 30) for the
    # latest 7 to arrive before it, the second; 10 names a job not here; 11
    # (at 15) names 10, which arrives after it (40): none, or the two would loop
    assert pred.tolist() == [-1, 0, 1, 2, -1, -1]
    assert gap.tolist() == [0, 4, 0, 2, 0, 0]  # an unknown think time is none
    assert counts == {"with a preceding job": 3, DEPENDENCY_LOST: 2}


def test_a_preceding_job_not_simulated_counts_as_none():
    frame = Columns({"job": np.array([1, 2, 3]), "submit": np.array([0.0, 5, 9]), "run": np.array([4.0, -1, 3]),
                     "procs": np.array([1, 1, 1]), "prev_job": np.array([-1, 1, 2]), "think": np.array([-1.0, 1, 2])})
    w = from_frame(frame, procs=4)
    assert w.job.tolist() == [1, 3]  # job 2 has no run time
    assert w.prev.tolist() == [-1, -1]
    assert w.dependencies == {"with a preceding job": 0, DEPENDENCY_LOST: 1}


def test_dropping_jobs_renumbers_the_dependencies():
    frame = Columns({"job": np.array([1, 2, 3, 4]), "submit": np.array([0.0, 5, 9, 12]),
                     "run": np.array([4.0, 1, 3, 2]), "procs": np.array([1, 8, 1, 1]),
                     "prev_job": np.array([-1, 1, 1, 2]), "think": np.array([-1.0, 1, 5, 2])})
    w = from_frame(frame, procs=8)
    assert w.prev.tolist() == [-1, 0, 0, 1]
    kept = kept_dependencies(w, w.procs <= 4)  # a machine of 4 leaves job 2 out
    assert kept["prev"].tolist() == [-1, 0, -1]
    assert kept["think"].tolist() == [0, 5, 0]
    assert kept["dependencies"] == {"with a preceding job": 1, DEPENDENCY_LOST: 1}


def _frame():
    return Columns({"job": np.arange(1, 6), "submit": SUBMIT, "run": RUN, "procs": PROCS, "req_time": RUN,
                    "user_id": np.array([1, 1, 2, 2, 3]), "prev_job": np.where(PRED >= 0, PRED + 1, -1),
                    "think": np.where(PRED >= 0, THINK, -1)})


def test_simulate_records_the_setting_and_keeps_both_submit_times():
    w = from_frame(_frame(), procs=2)
    plain = simulate(w, policy="fcfs", estimate="exact", warmup=0)
    fed = simulate(w, policy="fcfs", estimate="exact", warmup=0, feedback=True, check=True)
    assert plain.settings["feedback"] is False and fed.settings["feedback"] is True
    assert fed.submit.tolist() == ARRIVE and fed.trace_submit.tolist() == SUBMIT.tolist()
    assert fed.start.tolist() == STARTS["fcfs"]
    # waits from the simulated submit: B 14 - 13, D 19 - 14, E 19 - 13
    assert fed.wait.tolist() == [0, 1, 9, 5, 6]
    assert fed.counts["arrived_late"] == 2
    assert fed.counts["dependencies"] == {"with a preceding job": 2, DEPENDENCY_LOST: 0}
    table = fed.schedule()
    assert table["trace_submit"].tolist() == SUBMIT.tolist() and table["submit"].tolist() == ARRIVE
    assert "trace_submit" not in plain.schedule().columns
    assert np.array_equal(plain.submit, plain.trace_submit)


def test_load_factor_moves_the_independent_submits_and_the_floors():
    """With a load factor of 2, submit times are 0, 2.5, 0.5, 6, 6.5: B
    arrives at A's end plus its think time (13), D at C's end (C starts at 10
    behind A: 14), E at its own, scaled, submit time."""
    w = from_frame(_frame(), procs=2)
    r = simulate(w, policy="fcfs", estimate="exact", load_factor=2.0, feedback=True, check=True)
    assert r.trace_submit.tolist() == [0, 2.5, 0.5, 6, 6.5]
    assert r.submit.tolist() == [0, 13, 0.5, 14, 6.5]


def test_the_check_finds_a_job_arriving_at_the_wrong_time():
    job, trace = np.arange(1, 6), SUBMIT
    end = np.array(STARTS["fcfs"], float) + RUN
    check_feedback(job, trace, np.array(ARRIVE, float), end, PRED, THINK)
    early = np.array(ARRIVE, float)
    early[1] = 12  # B before A's end plus its think time
    with pytest.raises(ScheduleInvalid, match="job 2 arrived at 12, not at 13"):
        check_feedback(job, trace, early, end, PRED, THINK)
    late = np.array(ARRIVE, float)
    late[4] = 14  # E waits for nothing
    with pytest.raises(ScheduleInvalid, match="job 5 arrived at 14, not at 13"):
        check_feedback(job, trace, late, end, PRED, THINK)


def test_feedback_on_a_workload_without_dependencies_is_the_plain_replay():
    frame = Columns({k: v for k, v in _frame().arrays.items() if k not in ("prev_job", "think")})
    w = from_frame(frame, procs=2)
    a, b = simulate(w, feedback=True), simulate(w)
    assert np.array_equal(a.start, b.start) and a.metrics == b.metrics
    assert a.counts["dependencies"] == {"with a preceding job": 0, DEPENDENCY_LOST: 0}
