"""The numbers docs/pages/reproductions/baselines.md gives for SDSC-SP2:
session similarity of a session-level workload (fast), and the validation
of eight workloads of each unit (slow)."""
from __future__ import annotations

import pytest
from wla.archive.analysis.stats.sessions import session_report
from wla.sim.evaluate.resample.settings import ResampleSettings
from wla.sim.evaluate.resample.workload import read_source, resample_source
from wla.sim.evaluate.validate import validate

LOG = "SDSC-SP2-1998-4.2-cln"


@pytest.fixture(scope="module")
def sp2(real_archive):
    return read_source(real_archive, LOG)


def test_a_session_level_workload_loses_the_similarity_between_neighbouring_sessions(sp2):
    """The page's `wla sessions sp2-sessions`: in the log 0.668 of the users
    are more alike one session apart than two (processors); in the
    session-level workload 0.410, while within a session nothing changed."""
    log = session_report(sp2.jobs, ("procs",), distances=2, repeats=0).attributes[0].table
    r = resample_source(sp2, ResampleSettings(unit="session", seed=1))
    assert len(r.jobs) == 58_412 and r.parameters["figures"]["units_drawn"] == 14_079
    drawn = session_report(r.jobs, ("procs",), distances=2, repeats=0).attributes[0].table
    assert round(log["1 vs 2"]["shorter"], 3) == 0.668
    assert round(drawn["1 vs 2"]["shorter"], 3) == 0.410 and round(drawn["0 vs 1"]["shorter"], 3) == 0.740


@pytest.mark.slow  # 24 resampled workloads simulated: half a minute
def test_the_table_of_the_three_units(sp2):
    """The page's table: the means over eight workloads of each unit."""
    documented = {  # unit: stack depth run/req_time/procs, bins median run, Hurst, sessions per user mean
        "user": (25.25, 4.019, 2.975, 0.2137, 0.7023, 32.71, 2.079),
        "session": (27.77, 5.005, 3.438, 0.1967, 0.6992, 32.49, 0.8793),
        "job": (39.51, 10.80, 6.660, 0.1206, 0.6877, 106.8, 0.9016)}
    names = ("stack_depth_run", "stack_depth_req_time", "stack_depth_procs", "bins_median_run", "hurst",
             "sessions_per_user_mean", "weekly_variance_ratio")
    for unit, numbers in documented.items():
        stats = validate(sp2, runs=8, seed=0, settings=ResampleSettings(unit=unit)).statistics
        assert stats["stack_depth_run"]["original"] == pytest.approx(25.21, abs=0.005)
        for name, value in zip(names, numbers):
            assert stats[name]["mean"] == pytest.approx(value, rel=2e-3), (unit, name)
