"""ESP's full-configuration priority (sim/esp_priority.py) on a schedule worked by hand."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from wla.archive.kernel.errors import ParameterError
from wla.sim import simulate
from wla.sim.esp import run_esp
from wla.sim.esp_priority import full_first_schedule

# P = 4; every estimate is the run time.
#   j0: submit 0, run 10, 2 procs
#   j1: submit 0, run 4,  2 procs
#   j2: submit 1, run 3,  1 proc
#   j3: submit 2, run 6,  2 procs
#   j4: submit 3, run 2,  4 procs  (full configuration)
#   j5: submit 3, run 2,  1 proc
SUBMIT = [0, 0, 1, 2, 3, 3]
RUN = [10, 4, 3, 6, 2, 2]
PROCS = [2, 2, 1, 2, 4, 1]
FULL = [False, False, False, False, True, False]

# Plain EASY (the queue in arrival order):
#  0: j0, j1 start (free 0).  4: j1 ends, free 2; j2 starts (free 1); the head
#  j3 needs 2: shadow 7 (j2 ends), extra 0; j5 ends at 6 <= 7: starts (free 0).
#  6: j5 ends; 7: j2 ends, j3 starts (ends 13); the head j4 needs 4: shadow 13.
#  10: j0 ends.  13: j4 starts.  The full job waits 10 s.
EASY = [0, 0, 4, 7, 13, 4]

# Full first, EASY: the queue is j4, then j2, j3, j5.
#  4: j1 ends, free 2; the head j4 needs 4: shadow 10 (j0 ends), extra 0.
#     j2 ends at 7 <= 10: starts (free 1); j3 does not fit; j5 ends at 6: starts.
#  6: j5 ends, free 1.  7: j2 ends, free 2: j3 fits but would end at 13 > 10
#     and 2 > extra 0: it may not start, it would delay j4.
#  10: j0 ends, free 4: j4 starts (ends 12).  12: j3 starts (ends 18).
#  j4 starts at 10, the end of j0, the job running when it arrived: as soon as
#  possible without preemption.
FULL_EASY = [0, 0, 4, 12, 10, 4]

# Full first, FCFS: nothing passes j4.  10: j4 starts; 12: j2, j3, j5 start.
FULL_FCFS = [0, 0, 12, 12, 10, 12]


def test_plain_easy_delays_the_full_job():
    jobs = pd.DataFrame({"job": range(1, 7), "submit": SUBMIT, "run": RUN, "procs": PROCS, "req_time": RUN})
    result = simulate(jobs, policy="easy", procs=4, warmup=0.0)
    assert result.start.tolist() == EASY


def test_full_first_under_easy_backfills_only_what_ends_before_the_full_job():
    assert full_first_schedule(SUBMIT, RUN, PROCS, 4, FULL, "easy").tolist() == FULL_EASY


def test_full_first_under_fcfs_lets_nothing_pass():
    assert full_first_schedule(SUBMIT, RUN, PROCS, 4, FULL, "fcfs").tolist() == FULL_FCFS


def test_with_no_full_job_it_is_the_simulators_easy_and_fcfs():
    jobs = pd.DataFrame({"job": range(1, 7), "submit": SUBMIT, "run": RUN, "procs": PROCS, "req_time": RUN})
    none = [False] * 6
    for policy in ("easy", "fcfs"):
        expected = simulate(jobs, policy=policy, procs=4, warmup=0.0).start
        assert full_first_schedule(SUBMIT, RUN, PROCS, 4, none, policy).tolist() == expected.tolist()


def test_conservative_is_refused():
    with pytest.raises(ParameterError, match="fcfs or easy"):
        full_first_schedule(SUBMIT, RUN, PROCS, 4, FULL, "conservative")


MIX = pd.DataFrame({"type": ["A", "B", "Z"], "fraction": [0.5, 0.25, 1.0], "run": [100.0, 300.0, 50.0],
                    "count": [4, 4, 1]})


def test_run_esp_with_full_first_never_delays_the_full_job():
    # On 8 processors, the full job arrives at 150 while the first batch runs.
    plain, _ = run_esp(MIX, 8, "easy", 3, [150.0])
    first, score = run_esp(MIX, 8, "easy", 3, [150.0], full_first=True)
    z = np.flatnonzero(first.procs == 8)[0]
    running = (first.start < 150) & (first.end > 150)
    # It starts when the jobs running at its arrival have ended, not later.
    assert first.start[z] == max(150.0, first.end[running].max())
    assert first.start[z] <= plain.start[z]
    assert first.settings["priority"].startswith("full-configuration")
    assert first.wait.tolist() == (first.start - first.submit).tolist()
    assert score.elapsed == first.end.max() - first.submit.min()
    # Same seed, same schedule; and a valid one (--check).
    again, _ = run_esp(MIX, 8, "easy", 3, [150.0], full_first=True, check=True)
    assert again.start.tolist() == first.start.tolist()
    # No job starts while the full job waits unless it ends by the full job's start.
    waiting = (first.submit[z] <= first.start) & (first.start < first.start[z])
    assert (first.end[waiting] <= first.start[z]).all()


@pytest.mark.parametrize("policy", ["easy", "fcfs"])
def test_on_the_published_mix_no_full_job_is_delayed(policy):
    from wla.sim.esp import PUBLISHED_MIX, read_mix

    mix = read_mix(PUBLISHED_MIX)
    for seed in range(3):
        r, _ = run_esp(mix, 512, policy, seed, [2400.0, 3600.0], full_first=True)
        zs = sorted(np.flatnonzero(r.procs == 512), key=lambda j: r.submit[j])
        for i, z in enumerate(zs):
            # Started as soon as the jobs running at its submission (and the
            # full job before it) have ended ...
            running = (r.start < r.submit[z]) & (r.end > r.submit[z])
            ready = max([r.submit[z], *r.end[running], *(r.end[zs[:i]])])
            assert r.start[z] == ready, (seed, z)
            # ... and what started while it waited ended by then (under FCFS,
            # nothing but the full job before it started).
            meanwhile = (r.start >= r.submit[z]) & (r.start < r.start[z])
            assert (r.end[meanwhile] <= r.start[z]).all()
            if policy == "fcfs":
                assert set(np.flatnonzero(meanwhile)) <= set(zs[:i])
