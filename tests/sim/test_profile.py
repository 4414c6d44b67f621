"""Free processors from now on (sim/profile.py), compiled: steps kept
canonical as holds come and go, and where a job first fits."""
from __future__ import annotations

import numpy as np
from wla.sim import profile as pr


def _steps(pt, pf, st) -> list[tuple[float, int]]:
    return [(pt[i], int(pf[i])) for i in range(st[pr.LO], st[pr.HI])]


def _profile(now: float, free: int):
    pt, pf, st = np.zeros(32), np.zeros(32, np.int64), np.zeros(2, np.int64)
    pr.reset(pt, pf, st, now, free)
    return pt, pf, st


def test_holds_make_steps_and_giving_back_merges_them():
    pt, pf, st = _profile(0.0, 10)
    pr.hold(pt, pf, st, 10.0, 20.0, 4)
    assert _steps(pt, pf, st) == [(0.0, 10), (10.0, 6), (20.0, 10)]
    pr.hold(pt, pf, st, 15.0, 30.0, 6)
    assert _steps(pt, pf, st) == [(0.0, 10), (10.0, 6), (15.0, 0), (20.0, 4), (30.0, 10)]
    pr.hold(pt, pf, st, 10.0, 20.0, -4)
    pr.hold(pt, pf, st, 15.0, 30.0, -6)
    assert _steps(pt, pf, st) == [(0.0, 10)]


def test_where_a_job_first_fits():
    pt, pf, st = _profile(0.0, 10)
    pr.hold(pt, pf, st, 10.0, 20.0, 4)  # 10 free, 6 over [10, 20), then 10
    assert pt[pr.earliest(pt, pf, st, 8, 5.0)] == 0.0  # fits before 10
    assert pt[pr.earliest(pt, pf, st, 8, 15.0)] == 20.0  # would overlap the hold
    assert pt[pr.earliest(pt, pf, st, 6, 15.0)] == 0.0
    assert pr.earliest(pt, pf, st, 11, 1.0) == -1  # more than the machine
    assert pr.find(pt, st, 12.0) == st[pr.LO] + 2  # the first step at 12 or later: 20


def test_advance_forgets_the_past():
    pt, pf, st = _profile(0.0, 10)
    pr.hold(pt, pf, st, 10.0, 20.0, 4)
    pr.advance(pt, pf, st, 12.0)
    assert _steps(pt, pf, st) == [(12.0, 6), (20.0, 10)]
