"""Shaking a workload (shaking.md, wla.sim.evaluate.perturb): every shaken
value recomputed by hand from the draws the module documents (a fresh
generator from the same seed: U, then the signs, then the permutation that
picks the jobs when some but not all are shaken), literal values from a stub generator, properties over
random workloads, and the unshaken case replayed on a real log."""
from __future__ import annotations

import math
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wla.archive.kernel.errors import UsageError
from wla.sim import from_archive, from_frame, simulate
from wla.sim.evaluate import perturb, run_rng
from wla.sim.workload import REASONS, Workload

SDSC = "SDSC-SP2-1998-4.2-cln"
ATTRS = ("interarrival", "runtime", "estimate", "size")
FIELD = {"interarrival": "submit", "runtime": "run", "estimate": "estimate", "size": "procs"}
ARRAYS = ("job", "submit", "run", "procs", "estimate", "user", "excluded")
TOL = {"rel": 1e-12, "abs": 1e-9}


# -- helpers: workloads, the documented draws, the spec's formulas in plain Python ----------


def workload(submit, run=None, procs=None, estimate=None, P=64) -> Workload:
    """A workload built directly, every time column a double as from_frame makes it."""
    n = len(submit)
    return Workload(
        job=np.arange(1, n + 1, dtype=np.int64),
        submit=np.asarray(submit, dtype=np.float64),
        run=np.full(n, 100.0) if run is None else np.asarray(run, dtype=np.float64),
        procs=np.ones(n, dtype=np.int64) if procs is None else np.asarray(procs, dtype=np.int64),
        estimate=np.full(n, 200.0) if estimate is None else np.asarray(estimate, dtype=np.float64),
        user=np.full(n, -1, dtype=np.int64),
        excluded=np.zeros(n, dtype=bool),
        P=P, total=n, not_simulated={r: 0 for r in REASONS},
    )


# Eight jobs, not in arrival order, two arriving together, two near 0 (so
# absolute shaking floors arrivals), run times of 1 and 5 s (floored at 1),
# sizes 1 and P (clipped), and the spec's 21-processor job.
SMALL = pd.DataFrame({
    "submit": [30.0, 0.0, 45.0, 45.0, 400.0, 1000.0, 980.0, 5000.0],
    "run": [1.0, 5.0, 30.0, 120.0, 600.0, 3600.0, 20.0, 86400.0],
    "procs": [1, 2, 21, 64, 1, 3, 100, 128],
    "req_time": [60.0, 10.0, 30.0, 3600.0, 600.0, 7200.0, 60.0, 86400.0],
    "user_id": [1, 2, 1, 3, 2, 1, 4, 5],
})
SMALL_P = 128


def small() -> Workload:
    return from_frame(SMALL, procs=SMALL_P)


def rhu(x: float) -> int:
    """Round half up, exactly (a float's decimal expansion, not x + 0.5 in floating point)."""
    return int(Decimal(x).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def exact_k(jobs: float, n: int) -> int:
    """round-half-up(jobs% x n) in exact rational arithmetic."""
    return math.floor(Fraction(jobs) * n / 100 + Fraction(1, 2))


def draws(rng, n: int, k: int):
    """The documented draws of one run, made again: the jobs picked, U, the signs."""
    u = rng.random(n).tolist()
    sign = [1 if b == 1 else -1 for b in rng.integers(0, 2, n).tolist()]
    picked = set(range(n)) if k >= n else set(rng.permutation(n)[:k].tolist()) if k else set()
    return picked, u, sign


def arrival_order(submit) -> list[int]:
    """Jobs by arrival, ties in log order."""
    return sorted(range(len(submit)), key=lambda i: (submit[i], i))


def expected(w: Workload, attribute: str, degree: float, relative: float | None, picked, u, sign) -> list:
    """The shaken attribute by shaking.md's formulas, job by job."""
    def pert(orig):
        return degree if relative is None else min(degree, relative / 100 * abs(orig))

    if attribute == "interarrival":
        t = w.submit.tolist()
        out = list(t)
        order = arrival_order(t)
        for prev, i in zip(order, order[1:]):
            if i in picked:
                gap = t[i] - t[prev]
                out[i] = max(0.0, t[prev] + (gap + sign[i] * pert(gap) * u[i]))
        return out
    if attribute == "size":
        out = w.procs.tolist()
        for i in picked:
            p = rhu(pert(out[i]))
            out[i] = min(w.P, max(1, rhu(out[i] + sign[i] * p * u[i])))
        return out
    out = getattr(w, FIELD[attribute]).tolist()
    for i in picked:
        out[i] = max(1.0, out[i] + sign[i] * pert(out[i]) * u[i])
    return out


def snapshot(w: Workload) -> dict:
    return {a: getattr(w, a).copy() for a in ARRAYS}


def assert_same(w: Workload, arrays: dict) -> None:
    for a in ARRAYS:
        assert np.array_equal(getattr(w, a), arrays[a]), a


class Stub:
    """A generator whose draws are chosen by hand (perturb asks for U, then
    the bits of the signs, 1 is +, then a permutation if some jobs but not
    all are shaken)."""

    def __init__(self, perm, u, bits):
        self.perm, self.u, self.bits = perm, u, bits

    def permutation(self, n):
        assert n == len(self.perm)
        return np.array(self.perm)

    def random(self, n):
        assert n == len(self.u)
        return np.array(self.u, dtype=np.float64)

    def integers(self, low, high, n):
        assert (low, high, n) == (0, 2, len(self.bits))
        return np.array(self.bits)


# -- hand-computed from the documented draws -------------------------------------------------


@pytest.mark.parametrize("attribute", ATTRS)
@pytest.mark.parametrize("relative", [None, 10.0, 50.0])
@pytest.mark.parametrize("jobs", [100.0, 50.0, 37.5])
def test_shaken_values_follow_the_spec_formulas_from_the_documented_draws(attribute, relative, jobs):
    """Each attribute, absolute and relative, all or some jobs: the shaken
    values are what the spec's formulas give on the draws made again."""
    w = small()
    degree = 4.0 if attribute == "size" else 60.0
    k = exact_k(jobs, len(w))  # 8, 4, 3
    for seed in range(25):
        out = perturb(w, attribute, degree, relative=relative, jobs=jobs, rng=np.random.default_rng(seed))
        picked, u, sign = draws(np.random.default_rng(seed), len(w), k)
        want = expected(w, attribute, degree, relative, picked, u, sign)
        got = getattr(out, FIELD[attribute]).tolist()
        assert got == pytest.approx(want, **TOL), seed
        for other in set(FIELD.values()) - {FIELD[attribute]}:
            assert np.array_equal(getattr(out, other), getattr(w, other)), other


def test_interarrival_gaps_are_taken_in_arrival_order_not_log_order():
    """Log order 250, 0, 100: job 1's gap is from job 2 (100 - 0), job 2 is
    first and keeps its arrival, job 3's gap is from job 1 (250 - 100)."""
    w = workload([250.0, 0.0, 100.0])
    for seed in range(20):
        out = perturb(w, "interarrival", 60.0, relative=None, jobs=100, rng=np.random.default_rng(seed))
        _, u, sign = draws(np.random.default_rng(seed), 3, 3)
        assert out.submit[1] == 0.0
        assert out.submit[2] == pytest.approx(0.0 + 100.0 + sign[2] * 60.0 * u[2], **TOL)
        assert out.submit[0] == pytest.approx(100.0 + 150.0 + sign[0] * 60.0 * u[0], **TOL)


def test_spec_example_size_21_degree_5_relative_10_percent():
    """shaking.md: pert = min(5, 2.1) = 2.1, rounded to 2, so a 21-processor
    job becomes round-half-up(21 +/- 2U): 19 to 23, each of them occurring."""
    w = workload([0.0], procs=[21], P=32)
    seen = set()
    for seed in range(400):
        out = perturb(w, "size", 5.0, relative=10.0, jobs=100, rng=np.random.default_rng(seed))
        _, u, sign = draws(np.random.default_rng(seed), 1, 1)
        size = int(out.procs[0])
        assert size == rhu(21 + sign[0] * 2 * u[0]), seed
        seen.add(size)
    assert seen == {19, 20, 21, 22, 23}


# -- literal values from a stub generator ------------------------------------------------


def test_interarrival_literal_and_not_accumulated():
    """Arrivals 0, 100, 250 (gaps 100, 150), absolute 60, U = 0.5, signs +, -:
    0, 100 + 30, 100 + 150 - 30. The third arrival is measured from the
    ORIGINAL second arrival (100), not the shaken one (130)."""
    w = workload([0.0, 100.0, 250.0])
    out = perturb(w, "interarrival", 60.0, relative=None, jobs=100, rng=Stub([0, 1, 2], [0.5] * 3, [1, 1, 0]))
    assert out.submit.tolist() == [0.0, 130.0, 220.0]
    assert out.submit[2] - w.submit[1] == 150.0 - 30.0
    assert out.submit[2] - out.submit[1] != 150.0 - 30.0


def test_interarrival_literal_relative():
    """Relative 10%: pert = min(60, 10% x gap) = 10 and 15."""
    w = workload([0.0, 100.0, 250.0])
    out = perturb(w, "interarrival", 60.0, relative=10.0, jobs=100, rng=Stub([0, 1, 2], [0.5] * 3, [1, 1, 0]))
    assert out.submit.tolist() == [0.0, 105.0, 242.5]


def test_interarrival_literal_floor_swap_and_partial_pick():
    """Arrivals floored at 0; nearby jobs may swap (log order kept, the
    simulator sorts); jobs not picked keep their arrival."""
    w = workload([0.0, 20.0, 50.0])
    out = perturb(w, "interarrival", 60.0, relative=None, jobs=100, rng=Stub([2, 1, 0], [0.0, 0.5, 0.9], [0, 0, 0]))
    assert out.submit.tolist() == [0.0, 0.0, 0.0]  # 0 + 20 - 30 and 20 + 30 - 54, both below 0
    w = workload([0.0, 100.0, 110.0])
    out = perturb(w, "interarrival", 60.0, relative=None, jobs=100, rng=Stub([1, 2, 0], [0.0, 0.5, 0.5], [0, 1, 0]))
    assert out.submit.tolist() == [0.0, 130.0, 80.0]
    w = workload([0.0, 100.0, 250.0, 400.0])
    # 50% of 4: the first two of the permutation, jobs 4 and 2 (indices 3 and 1)
    out = perturb(w, "interarrival", 60.0, relative=None, jobs=50, rng=Stub([3, 1, 2, 0], [0.5] * 4, [1] * 4))
    assert out.submit.tolist() == [0.0, 130.0, 250.0, 430.0]


def test_runtime_literal():
    """Run times move (floored at 1 s), estimates do not."""
    w = workload([0.0, 1.0, 2.0], run=[100.0, 5.0, 1000.0], estimate=[200.0, 200.0, 2000.0])
    stub = Stub([0, 1, 2], [0.5, 0.5, 0.25], [1, 0, 0])
    out = perturb(w, "runtime", 60.0, relative=None, jobs=100, rng=stub)
    assert out.run.tolist() == [130.0, 1.0, 985.0]
    assert out.estimate.tolist() == [200.0, 200.0, 2000.0]
    out = perturb(w, "runtime", 60.0, relative=10.0, jobs=100, rng=stub)
    assert out.run.tolist() == [105.0, 4.75, 985.0]  # pert 10, 0.5, min(60, 100)


def test_estimate_literal():
    """Estimates move (floored at 1 s), run times do not."""
    w = workload([0.0, 1.0, 2.0], run=[50.0, 50.0, 50.0], estimate=[100.0, 5.0, 1000.0])
    stub = Stub([0, 1, 2], [0.5, 0.5, 0.25], [1, 0, 0])
    out = perturb(w, "estimate", 60.0, relative=None, jobs=100, rng=stub)
    assert out.estimate.tolist() == [130.0, 1.0, 985.0]
    assert out.run.tolist() == [50.0, 50.0, 50.0]
    out = perturb(w, "estimate", 60.0, relative=10.0, jobs=100, rng=stub)
    assert out.estimate.tolist() == [105.0, 4.75, 985.0]


def test_size_literal():
    """Sizes: pert rounded half up, the size rounded half up and kept in [1, P]."""
    w = workload([0.0] * 5, procs=[21, 1, 60, 4, 25], P=64)
    stub = Stub([0, 1, 2, 3, 4], [0.5, 0.5, 0.9, 0.25, 0.5], [1, 0, 1, 0, 1])
    out = perturb(w, "size", 5.0, relative=None, jobs=100, rng=stub)
    # 23.5 -> 24; -1.5 -> 1; 64.5 -> 65 -> 64; 2.75 -> 3; 27.5 -> 28
    assert out.procs.tolist() == [24, 1, 64, 3, 28]
    assert out.procs.dtype.kind == "i"
    out = perturb(w, "size", 5.0, relative=10.0, jobs=100, rng=stub)
    # pert 2.1 -> 2, 0.1 -> 0, min(5, 6) = 5, 0.4 -> 0, 2.5 -> 3 (half up); 25 + 1.5 = 26.5 -> 27
    assert out.procs.tolist() == [22, 1, 64, 4, 27]


@pytest.mark.parametrize("jobs, n, k", [
    (50, 5, 3), (50, 1, 1), (10, 25, 3), (12.5, 4, 1), (37.5, 4, 2),
    # 0.58 x 25 is 14.499999999999998 in doubles: the count is done exactly
    (58, 25, 15),
    (29, 50, 15),
    (35, 90, 32),
])
def test_number_of_shaken_jobs_rounds_exact_halves_up(jobs, n, k):
    """When jobs% x n is exactly a half, round half up shakes the larger number."""
    w = workload(np.arange(n) * 1000.0, run=np.full(n, 10_000.0))
    out = perturb(w, "runtime", 60.0, relative=None, jobs=jobs, rng=np.random.default_rng(7))
    assert int((out.run != w.run).sum()) == k


@pytest.mark.parametrize("relative, size, pert", [
    (10.0, 25, 3),
    (29.0, 50, 15),
])
def test_size_pert_rounds_exact_halves_up(relative, size, pert):
    """pct x size exactly a half (2.5, 14.5) rounds up: U close to 1 and sign +
    then reach size + pert."""
    w = workload([0.0], procs=[size], P=128)
    out = perturb(w, "size", 100.0, relative=relative, jobs=100, rng=Stub([0], [0.999999], [1]))
    assert int(out.procs[0]) == size + pert


def test_integer_arrivals_are_not_truncated():
    """A workload built directly with integer arrival times: the shaken
    arrivals are 0, 100 + 7.38, 100 + 150 - 7.38 (U = 0.123, pert 60)."""
    w = workload([0.0, 100.0, 250.0])
    w = replace(w, submit=np.array([0, 100, 250], dtype=np.int64))
    out = perturb(w, "interarrival", 60.0, relative=None, jobs=100, rng=Stub([0, 1, 2], [0.123] * 3, [1, 1, 0]))
    assert out.submit.tolist() == pytest.approx([0.0, 107.38, 242.62], **TOL)


# -- nothing shaken: the original, and its schedule --------------------------------------


@pytest.mark.parametrize("attribute", ATTRS)
@pytest.mark.parametrize("jobs, degree", [(0.0, 60.0), (100.0, 0.0)])
def test_no_shaking_gives_the_original_and_its_schedule(attribute, jobs, degree):
    """jobs = 0 or degree = 0: the same workload, and simulate() the same schedule."""
    w = small()
    out = perturb(w, attribute, degree, relative=None, jobs=jobs, rng=np.random.default_rng(3))
    assert_same(out, snapshot(w))
    a, b = simulate(w), simulate(out)
    assert np.array_equal(a.start, b.start) and np.array_equal(a.end, b.end)
    assert a.metrics == b.metrics


def test_no_shaking_on_a_real_log_replays_the_original_exactly(real_archive):
    """SDSC-SP2: unshaken copies (jobs 0 or degree 0) give the original
    start times and metrics bit for bit, for every attribute."""
    w = from_archive(real_archive, SDSC)
    before = snapshot(w)
    original = simulate(w)
    for attribute in ATTRS:
        for jobs, degree in ((0.0, 60.0), (100.0, 0.0)):
            out = perturb(w, attribute, degree, relative=10.0, jobs=jobs, rng=run_rng(1, 0))
            assert_same(out, before)
            result = simulate(out)
            assert np.array_equal(result.start, original.start), (attribute, jobs, degree)
            assert result.metrics == original.metrics
    assert_same(w, before)


def test_default_shaking_of_a_real_log_moves_each_arrival_within_its_own_gap(real_archive):
    """SDSC-SP2, the spec's defaults (interarrival, 60 s, 10%, all jobs): each
    arrival moves by at most min(60, 10% of its gap) from its original
    (no accumulation over 54,000 jobs), exactly the jobs with a gap move, and
    the shaken log simulates every job."""
    w = from_archive(real_archive, SDSC)
    out = perturb(w, "interarrival", 60.0, relative=10.0, jobs=100, rng=run_rng(2024, 5))
    order = np.lexsort((np.arange(len(w)), w.submit))  # by arrival, ties in log order
    t, shaken = w.submit[order], out.submit[order]
    gap = np.concatenate([[0.0], np.diff(t)])
    pert = np.minimum(60.0, 0.1 * gap)
    assert np.all(np.abs(shaken - t) <= pert * (1 + 1e-12))
    assert np.array_equal(shaken != t, gap > 0)
    result = simulate(out)
    assert result.counts["simulated"] == len(w)
    assert np.array_equal(np.sort(result.submit), np.sort(out.submit))


@pytest.mark.parametrize("attribute", ATTRS)
def test_the_original_is_not_modified(attribute):
    """perturb returns a copy: the workload it was given is as it was."""
    w = small()
    before = snapshot(w)
    out = perturb(w, attribute, 60.0, relative=None, jobs=100, rng=np.random.default_rng(11))
    assert not np.array_equal(getattr(out, FIELD[attribute]), before[FIELD[attribute]])
    assert_same(w, before)


@pytest.mark.parametrize("attribute", ATTRS)
def test_other_fields_are_carried_over(attribute):
    """Job numbers, users, exclusions, P and the counts of the original stay."""
    w = small()
    out = perturb(w, attribute, 60.0, relative=None, jobs=100, rng=np.random.default_rng(5))
    assert out.P == SMALL_P and out.total == len(SMALL) and out.not_simulated == w.not_simulated
    for a in ("job", "user", "excluded"):
        assert np.array_equal(getattr(out, a), getattr(w, a))


# -- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [
    {"attribute": "wait"},
    {"attribute": "Runtime"},
    {"degree": -1.0},
    {"degree": float("nan")},
    {"jobs": -0.1},
    {"jobs": 100.5},
    {"jobs": float("nan")},
    {"relative": -5.0},
])
def test_bad_settings_are_usage_errors(kwargs):
    """An unknown attribute, a negative degree, jobs outside [0, 100]."""
    settings_ = {"attribute": "interarrival", "degree": 60.0, "relative": 10.0, "jobs": 100.0, **kwargs}
    with pytest.raises(UsageError):
        perturb(small(), rng=np.random.default_rng(0), **settings_)


def test_a_generator_is_required():
    """Without a generator a run would not be reproducible."""
    with pytest.raises(UsageError):
        perturb(small(), "runtime", 60.0, relative=None, jobs=100)


# -- run_rng --------------------------------------------------------------------------------


def test_run_rng_depends_on_seed_and_run_alone():
    """The same (seed, run) gives the same stream in any order; another run
    or another seed gives another stream."""
    later = run_rng(42, 3).random(8)
    first = run_rng(42, 0).random(8)
    assert np.array_equal(run_rng(42, 0).random(8), first)
    assert np.array_equal(run_rng(42, 3).random(8), later)
    assert not np.array_equal(first, later)
    assert not np.array_equal(run_rng(43, 0).random(8), first)
    streams = {tuple(run_rng(7, r).random(4)) for r in range(50)}
    assert len(streams) == 50


# -- properties ------------------------------------------------------------------------------

PROPS = settings(max_examples=150, deadline=None)


@st.composite
def shakings(draw, attributes=ATTRS):
    """A small workload (ties and log order not arrival order likely) and settings."""
    n = draw(st.integers(1, 30))
    P = draw(st.integers(1, 512))
    times = st.one_of(st.integers(0, 3000).map(float), st.floats(0, 1e6, allow_subnormal=False))
    submit = draw(st.lists(times, min_size=n, max_size=n))
    run = draw(st.lists(st.integers(1, 100_000).map(float), min_size=n, max_size=n))
    estimate = draw(st.lists(st.integers(1, 200_000).map(float), min_size=n, max_size=n))
    procs = draw(st.lists(st.integers(1, P), min_size=n, max_size=n))
    attribute = draw(st.sampled_from(attributes))
    degree = draw(st.one_of(st.sampled_from([0.0, 0.5, 1.0, 5.0, 60.0]), st.floats(0, 1000)))
    relative = draw(st.one_of(st.none(), st.sampled_from([1.0, 10.0, 100.0]), st.floats(0, 200)))
    jobs = draw(st.one_of(st.integers(0, 100).map(float), st.floats(0, 100)))
    seed = draw(st.integers(0, 2**32 - 1))
    w = workload(submit, run=run, procs=procs, estimate=estimate, P=P)
    return w, attribute, degree, relative, jobs, seed


def perts(w: Workload, attribute: str, degree: float, relative: float | None) -> np.ndarray:
    """Each job's bound, per shaking.md (interarrival: of its gap in arrival order; size: rounded)."""
    if attribute == "interarrival":
        t = w.submit.tolist()
        orig = [0.0] * len(t)
        order = arrival_order(t)
        for prev, i in zip(order, order[1:]):
            orig[i] = t[i] - t[prev]
    else:
        orig = getattr(w, FIELD[attribute]).tolist()
    out = [degree if relative is None else min(degree, relative / 100 * o) for o in orig]
    return np.array([rhu(p) for p in out] if attribute == "size" else out)


@PROPS
@given(shakings())
def test_property_bounds_and_untouched_jobs(case):
    """(a) no accumulation: every arrival stays within its own pert of its
    original; (b) every value moves by at most its pert, arrivals >= 0, run
    times and estimates >= 1 s; (c) sizes whole in [1, P]; (d) jobs outside
    the documented pick keep their values exactly, the first arrival too."""
    w, attribute, degree, relative, jobs, seed = case
    before = snapshot(w)
    out = perturb(w, attribute, degree, relative=relative, jobs=jobs, rng=np.random.default_rng(seed))
    assert_same(w, before)
    field = FIELD[attribute]
    orig, new = before[field], getattr(out, field)
    pert = perts(w, attribute, degree, relative)
    assert np.all(np.abs(new - orig) <= pert * (1 + 1e-12) + 1e-9 * np.maximum(np.abs(orig), 1))
    picked, _, _ = draws(np.random.default_rng(seed), len(w), exact_k(jobs, len(w)))
    unpicked = np.array([i not in picked for i in range(len(w))], dtype=bool)
    assert np.array_equal(new[unpicked], orig[unpicked])
    if attribute == "interarrival":
        assert np.all(new >= 0)
        first = arrival_order(w.submit.tolist())[0]
        assert new[first] == orig[first]
    elif attribute == "size":
        assert new.dtype.kind == "i" and np.all((new >= 1) & (new <= w.P))
    else:
        assert np.all(new >= 1.0)
    for other in set(FIELD.values()) - {field}:
        assert np.array_equal(getattr(out, other), before[other])


@PROPS
@given(n=st.integers(1, 60), jobs=st.one_of(st.integers(0, 100).map(float), st.floats(0, 100)),
       attribute=st.sampled_from(["interarrival", "runtime", "estimate"]),
       degree=st.floats(1, 600), seed=st.integers(0, 2**32 - 1))
def test_property_exactly_round_half_up_of_jobs_percent_move(n, jobs, attribute, degree, seed):
    """(d) With every pick sure to move (absolute shaking, values far from the
    floors), exactly round-half-up(jobs% x n) jobs change (for interarrival,
    less the first arrival if picked)."""
    spaced = 2000.0 + np.arange(n) * 2000.0  # arrivals >= degree, gaps > degree: no floor at 0
    w = workload(spaced, run=spaced, estimate=spaced)
    out = perturb(w, attribute, degree, relative=None, jobs=jobs, rng=np.random.default_rng(seed))
    field = FIELD[attribute]
    changed = int((getattr(out, field) != getattr(w, field)).sum())
    k = exact_k(jobs, n)
    if attribute == "interarrival":
        picked, _, _ = draws(np.random.default_rng(seed), n, k)
        k -= 0 in picked
    assert changed == k


@PROPS
@given(n=st.integers(5, 30), attribute=st.sampled_from(ATTRS), degree=st.floats(2, 16),
       seed=st.integers(0, 2**32 - 1), run=st.integers(0, 10_000), other=st.integers(1, 10_000))
def test_property_reproducible_per_seed_and_run(n, attribute, degree, seed, run, other):
    """(e) The same (seed, run) shakes identically; another run differently."""
    spaced = 100.0 + np.arange(n) * 100.0  # no floors, no clipping: every draw shows
    w = workload(spaced, run=spaced, estimate=spaced, procs=np.full(n, 50), P=128)
    a = perturb(w, attribute, degree, relative=None, jobs=100, rng=run_rng(seed, run))
    b = perturb(w, attribute, degree, relative=None, jobs=100, rng=run_rng(seed, run))
    c = perturb(w, attribute, degree, relative=None, jobs=100, rng=run_rng(seed, run + other))
    field = FIELD[attribute]
    assert_same(a, snapshot(b))
    assert not np.array_equal(getattr(a, field), getattr(c, field))
