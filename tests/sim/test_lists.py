"""The compiled cores' lists (sim/lists.py): the running jobs sorted by
estimated end, a later equal after the earlier; the queue linked in
arrival order."""
from __future__ import annotations

import numpy as np
from wla.sim.lists import run_extend, run_insert, run_remove, running, unlink


def test_the_running_list_stays_sorted_by_estimated_end():
    r_end, r_procs, r_job = running(4)
    count = 0
    for end, procs, job in [(100.0, 4, 0), (50.0, 2, 1), (100.0, 1, 2)]:
        count = run_insert(r_end, r_procs, r_job, count, end, procs, job)
    assert (r_end[:count].tolist(), r_job[:count].tolist()) == ([50.0, 100.0, 100.0], [1, 0, 2])
    count = run_remove(r_end, r_procs, r_job, count, 100.0, 2)  # the second of two equal ends
    assert r_job[:count].tolist() == [1, 0] and r_procs[:count].tolist() == [2, 4]
    est_end = np.array([100.0, 50.0, 100.0])
    count = run_extend(r_end, r_procs, r_job, count, est_end, 1, 150.0, 2)  # job 1 runs past its estimate
    assert (r_end[:count].tolist(), r_job[:count].tolist(), est_end[1]) == ([100.0, 150.0], [0, 1], 150.0)


def test_unlink_takes_a_job_out_of_the_queue():
    nxt, prv = np.array([1, 2, -1]), np.array([-1, 0, 1])  # 0 -> 1 -> 2
    assert unlink(1, nxt, prv, 0, 2) == (0, 2) and (nxt[0], prv[2]) == (2, 0)
    assert unlink(0, nxt, prv, 0, 2) == (2, 2) and prv[2] == -1
    assert unlink(2, nxt, prv, 2, 2) == (-1, -1)
