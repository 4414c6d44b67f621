"""The last-k predictor's memory (sim/lastk.py): the mean of a user's last k
run times, never more than the job's own estimate, which stands alone
without history."""
from __future__ import annotations

from wla.sim.lastk import memory, predict, remember


def test_the_mean_of_the_last_k_capped_by_the_own_estimate():
    hist, hcount, hpos = memory(2, 3)
    assert predict(hist, hcount, hpos, 0, 3, 500.0) == 500.0  # no history yet
    for run in (10.0, 20.0, 30.0, 40.0):  # the ring keeps 20, 30, 40
        remember(hist, hcount, hpos, 0, 3, run)
    assert hcount[0] == 3 and predict(hist, hcount, hpos, 0, 3, 500.0) == 30.0
    assert predict(hist, hcount, hpos, 0, 3, 25.0) == 25.0
    assert predict(hist, hcount, hpos, 1, 3, 7.0) == 7.0  # another user's history is not user 1's
