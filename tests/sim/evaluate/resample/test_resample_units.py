"""Session- and job-level resampling (sim/evaluate/resample/units.py): the
units of a hand-made log cut by hand, the draws checked against a second
computation from the same random stream, and determinism on SDSC-SP2."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from wla.archive import open as open_archive
from wla.archive.kernel.clock import WEEK, LogClock
from wla.archive.kernel.errors import OptionError, UsageError
from wla.archive.swf.fields import COLUMNS
from wla.sim.evaluate.resample.pools import user_pools
from wla.sim.evaluate.resample.settings import ResampleSettings
from wla.sim.evaluate.resample.units import unit_plan, units
from wla.sim.evaluate.resample.workload import SourceLog, read_source, resample_source

LOG = "SDSC-SP2-1998-4.2-cln"
H = 3600.0

# user 1 (long-term): a session of two jobs in week 0 (the second 10 min after the first ends), a job
# 30 min after, alone (gap > 20 min), and a session in week 20; user 2 (temporary): one session of three
# jobs in week 8 whose middle job ends after the third is submitted; user 3: rare-behavior, never drawn.
ROWS = [  # job, user, submit, run
    (1, 1, 1 * H, 600.0), (2, 1, 1 * H + 1200, 600.0), (3, 1, 1 * H + 1800 + 1800 + 1, 60.0),
    (4, 2, 8 * WEEK + 5 * H, 60.0), (5, 2, 8 * WEEK + 5 * H + 100, 7200.0), (6, 2, 8 * WEEK + 7 * H, 60.0),
    (7, 1, 20 * WEEK + 2 * H, 60.0), (8, 3, 10 * WEEK, 60.0), (9, 2, 9 * WEEK, 60.0), (10, 1, 21 * WEEK, 5.0)]


def hand_log() -> pd.DataFrame:
    frame = pd.DataFrame({c: -1 for c in COLUMNS}, index=range(len(ROWS)))
    frame["job"] = [r[0] for r in ROWS]
    frame["user_id"] = [r[1] for r in ROWS]
    frame["submit"] = [r[2] for r in ROWS]
    frame["run"] = [r[3] for r in ROWS]
    frame["wait"], frame["procs"] = 0.0, 1
    frame.insert(0, "line_no", range(1, len(ROWS) + 1))
    return frame


def pools_of(jobs):
    from wla.sim.evaluate.resample.pools import Triple

    return user_pools(jobs.submit.to_numpy(), jobs.user_id.to_numpy(), [Triple(3, 0, 1e12)])


def ends(jobs):
    return (jobs.submit + jobs.run).to_numpy(np.float64)


def test_sessions_and_jobs_of_a_hand_made_log():
    jobs = hand_log()
    pools = pools_of(jobs)
    members, offsets, owner = units(pools, jobs.submit.to_numpy(np.float64), ends(jobs), "session")
    cut = [jobs.job.to_numpy()[members[offsets[k]:offsets[k + 1]]].tolist() for k in range(len(owner))]
    # job 3 comes 30 min + 1 s after job 2 ends: a session of its own; job 6 comes 2 h after job 4 but
    # before job 5 ends; job 9 a week later; user 3's job is rare-behavior and never a unit
    assert cut == [[1, 2], [3], [7], [10], [4, 5, 6], [9]]
    assert pools.user[owner].tolist() == [1, 1, 1, 1, 2, 2]
    members, offsets, owner = units(pools, jobs.submit.to_numpy(np.float64), ends(jobs), "job")
    assert sorted(jobs.job.to_numpy()[members].tolist()) == [1, 2, 3, 4, 5, 6, 7, 9, 10]
    assert np.diff(offsets).tolist() == [1] * 9


@pytest.mark.parametrize("unit", ["session", "job"])
@pytest.mark.parametrize("seed", range(4))
def test_the_draws_are_the_stream_s_units_moved_to_the_stream_s_weeks(unit, seed):
    """The same draws made again by hand from the seed's stream: the count
    is load x units x weeks / the log's weeks, each unit's jobs move by whole
    weeks so its first job lands in the drawn week."""
    jobs = hand_log()
    pools = pools_of(jobs)
    submit = jobs.submit.to_numpy(np.float64)
    members, offsets, owner = units(pools, submit, ends(jobs), unit)
    log_weeks = 21  # first submit 1 h, last 21 weeks: 21.0 weeks
    p = unit_plan(pools, submit, ends(jobs), ResampleSettings(unit=unit, seed=seed, weeks=30, load=2.0))
    drawn = round(2.0 * len(owner) * 30 / log_weeks)
    assert p.figures["units_drawn"] == drawn and p.figures["units_in_log"] == len(owner)
    rng = np.random.Generator(np.random.PCG64(seed))
    which, week = rng.integers(len(owner), size=drawn), rng.integers(30, size=drawn)
    expected = []
    for k, w in zip(which, week):
        unit_jobs = members[offsets[k]:offsets[k + 1]]
        shift = (w - submit[unit_jobs[0]] // WEEK) * WEEK
        expected += [(submit[j] + shift, int(j)) for j in unit_jobs if submit[j] + shift < 30 * WEEK]
    expected.sort()
    assert list(zip(p.submit.tolist(), p.source.tolist())) == expected
    # identity: the source user
    assert p.instance_user[p.instance].tolist() == jobs.user_id.to_numpy()[p.source].tolist()


def test_refusals_name_the_setting():
    jobs = hand_log()
    pools, submit = pools_of(jobs), jobs.submit.to_numpy(np.float64)
    for bad in ({"long_term": 3}, {"temporary": 1.0}, {"arrival_rate": 1.0}, {"rb_npw": 0.5},
                {"phase": "cycle"}):
        with pytest.raises(OptionError, match=f"^{next(iter(bad))} "):
            unit_plan(pools, submit, ends(jobs), ResampleSettings(unit="job", **bad))
    with pytest.raises(UsageError, match="unknown unit 'week'"):
        unit_plan(pools, submit, ends(jobs), ResampleSettings(unit="week"))


def test_a_stored_workload_says_its_unit():
    jobs = hand_log()
    src = SourceLog("hand", jobs, 4, LogClock(), pools_of(jobs))
    r = resample_source(src, ResampleSettings(unit="session", seed=1))
    assert r.parameters["settings"]["unit"] == "session" and r.parameters["figures"]["unit"] == "session"
    from wla.sim.evaluate.resample.store import notes

    assert "session-level resampling" in notes(r)[0] and "single sessions" in notes(r)[0]


@pytest.fixture(scope="module")
def sp2(sp2_archive_file):
    with open_archive(sp2_archive_file) as a:
        return read_source(a, LOG)


def test_job_level_on_sdsc_sp2_is_deterministic_and_keeps_every_field(sp2):
    one = resample_source(sp2, ResampleSettings(unit="job", seed=3))
    again = resample_source(sp2, ResampleSettings(unit="job", seed=3))
    pd.testing.assert_frame_equal(one.jobs, again.jobs)
    src = sp2.jobs.set_index("line_no").loc[one.source_line].reset_index(drop=True)
    assert np.all((one.jobs.submit - src.submit) % WEEK == 0)
    for c in ("run", "procs", "req_time"):
        assert np.array_equal(one.jobs[c].to_numpy(), src[c].to_numpy())
    # as many jobs as the log's users hold (a job moved to a week of the workload stays in it)
    held = int(np.diff(sp2.pools.offsets).sum())
    assert one.parameters["figures"]["units_drawn"] == held == len(one.jobs)
