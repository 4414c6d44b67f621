"""Batch means (sim/evaluate/batch_means.py) against a plain numpy and scipy
computation, the cuts worked by hand, the refusals, and the command."""
import json

import numpy as np
import pandas as pd
import pytest
from cli_run import wla
from scipy import stats
from wla.archive.kernel.errors import OptionError, ParameterError
from wla.sim import simulate
from wla.sim.evaluate.batch_means import batch_means, cut, lag1, result_batch_means


def _plain(values, arrival, k):
    """Law and Kelton's batch means, written out: sort, drop the n mod k
    first, reshape, the t-interval and the lag-1 autocorrelation by a loop."""
    order = sorted(range(len(values)), key=lambda i: (arrival[i], i))
    v = np.array([values[i] for i in order])
    v = v[len(v) % k:]
    means = v.reshape(k, -1).mean(axis=1)
    m = means.mean()
    half = stats.t.ppf(0.975, k - 1) * means.std(ddof=1) / np.sqrt(k)
    num = sum((means[i] - m) * (means[i + 1] - m) for i in range(k - 1))
    den = sum((x - m) ** 2 for x in means)
    return means, m, m - half, m + half, num / den


def test_batch_means_are_a_plain_computation():
    rng = np.random.default_rng(7)
    values, arrival = rng.exponential(100, 1003), rng.integers(0, 500, 1003).astype(float)  # ties in arrival
    b = batch_means(values, arrival, 20)
    means, m, lo, hi, r1 = _plain(values, arrival, 20)
    np.testing.assert_allclose(b.means, means, rtol=1e-12)
    assert (b.mean, b.ci_low, b.ci_high, b.lag1) == pytest.approx((m, lo, hi, r1), rel=1e-10)
    assert b.left_out == 3 and b.sizes.tolist() == [50] * 20


def test_the_earliest_jobs_are_the_ones_left_out():
    values = np.arange(7.0)
    parts, skip = cut(values, np.array([6, 5, 4, 3, 2, 1, 0.0]), 3)  # arrival order is the reverse
    assert skip == 1 and [p.tolist() for p in parts] == [[5, 4], [3, 2], [1, 0]]


def test_batches_of_time_split_the_span_into_equal_parts():
    values = np.array([1.0, 2, 3, 4, 5, 6])
    arrival = np.array([0.0, 1, 2, 3, 9, 10])  # edges 0, 5, 10: the first four, then the last two
    parts, skip = cut(values, arrival, 2, "time")
    assert skip == 0 and [p.tolist() for p in parts] == [[1, 2, 3, 4], [5, 6]]
    assert batch_means(values, arrival, 2, "time").means.tolist() == [2.5, 5.5]
    with pytest.raises(ParameterError, match="batch 2 of 3 has no measured job"):
        cut(values, arrival, 3, "time")  # edges 0, 3.33, 6.67, 10: nothing in the middle


def test_lag1_of_alternating_and_constant_series():
    assert lag1(np.array([1.0, -1, 1, -1])) == pytest.approx(-0.75)
    assert lag1(np.array([2.0, 2, 2])) is None


def test_refusals():
    v = np.arange(5.0)
    with pytest.raises(ParameterError, match="6 batches of 5 measured jobs"):
        cut(v, v, 6)
    with pytest.raises(OptionError, match="batches"):
        cut(v, v, 1)
    with pytest.raises(ParameterError, match="by"):
        cut(v, v, 2, "weeks")


def test_a_simulation_s_measured_jobs_are_batched():
    jobs = pd.DataFrame({"job": np.arange(1, 41), "submit": np.arange(40) * 10.0, "run": 15.0 + np.arange(40) % 3,
                         "procs": 1, "req_time": 30.0})
    r = simulate(jobs, procs=1, warmup=0.1)  # 4 warm-up jobs not measured; the last may end after the last arrival
    [wait] = result_batch_means(r, 4, metrics=("wait",))
    m = r.measured
    means, mean, lo, hi, _ = _plain(r.wait[m].tolist(), r.submit[m].tolist(), 4)
    assert wait.mean == pytest.approx(mean) and (wait.ci_low, wait.ci_high) == pytest.approx((lo, hi))
    assert wait.sizes.sum() + wait.left_out == m.sum() < 40


def test_the_command_prints_the_interval_and_refuses_in_one_line(real_archive, tmp_path):
    path = real_archive.path
    query = "SELECT * FROM typed_jobs WHERE log = 'KTH-SP2-1996-2.1-cln' AND job <= 2000"
    run = wla("simulate", "--query", query, "--procs", "100", "--batch-means", "5", "--json", archive=path)
    assert run.status == 0, run.err
    rows = json.loads(run.out)["batch_means"]
    assert [r["metric"] for r in rows] == ["wait", "response", "bounded_slowdown"]
    assert rows[0]["batches"] == 5 and rows[0]["ci_low"] <= rows[0]["mean"] <= rows[0]["ci_high"]
    text = wla("simulate", "--query", query, "--procs", "100", "--batch-means", "5", archive=path).out
    assert "batch means: 5 batches by jobs" in text and "lag-1 r" in text
    line = wla("simulate", "--query", query, "--procs", "100", "--batch-means", "1", archive=path).one_error_line()
    assert "--batch-means" in line
    line = wla("simulate", "--query", query, "--procs", "100", "--batch-means", "5000",
               archive=path).one_error_line()
    assert line.startswith("wla: 5,000 --batch-means of") and "measured jobs" in line
