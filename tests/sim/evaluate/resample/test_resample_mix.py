"""Users of several logs resampled together (sim/evaluate/resample/mix.py):
two hand-made logs whose clocks, classes and figures are worked out by
hand, and SDSC-SP2 mixed with CTC-SP2 set against the two logs read alone."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from wla.archive.kernel.clock import DAY, WEEK, LogClock
from wla.archive.kernel.errors import UsageError
from wla.archive.swf.fields import COLUMNS
from wla.sim.evaluate.resample.generate import plan
from wla.sim.evaluate.resample.mix import mix_sources, week_phase
from wla.sim.evaluate.resample.pools import LONG_TERM, TEMPORARY, user_pools
from wla.sim.evaluate.resample.settings import ResampleSettings
from wla.sim.evaluate.resample.store import mixed_source
from wla.sim.evaluate.resample.workload import SourceLog, resample_source

MONDAY = 883_958_400  # 1998-01-05 00:00 UTC, a Monday


def source(name: str, rows, clock: LogClock, P: int) -> SourceLog:
    frame = pd.DataFrame({c: -1 for c in COLUMNS}, index=range(len(rows)))
    frame["job"] = range(1, len(rows) + 1)
    frame["user_id"] = [u for u, _ in rows]
    frame["submit"] = [t for _, t in rows]
    frame["run"], frame["wait"], frame["procs"] = 60.0, 0.0, 1
    frame.insert(0, "line_no", range(1, len(rows) + 1))
    pools = user_pools(frame.submit.to_numpy(np.float64), frame.user_id.to_numpy(np.int64))
    return SourceLog(name, frame, P, clock, pools, {"machine_size": P})


def two_logs():
    # A starts Monday 00:00 UTC: user 1 long-term (weeks 0 to 20), user 2 temporary (weeks 8 to 9), 30 weeks
    a = source("A", [(1, 3600.0), (2, 8 * WEEK), (2, 9 * WEEK), (1, 20 * WEEK), (3, 30 * WEEK)],
               LogClock(MONDAY), 64)
    # B starts Wednesday 06:00 in New York (11:00 UTC): its users 1 (long-term, weeks 1 to 14) and 5
    # (temporary, week 6), 20 weeks
    b = source("B", [(1, WEEK), (5, 6 * WEEK), (1, 14 * WEEK), (7, 20 * WEEK)],
               LogClock(MONDAY + 2 * DAY + 11 * 3600, "America/New_York"), 128)
    return a, b


def test_a_log_s_week_phase_is_its_local_time_since_monday():
    a, b = two_logs()
    assert week_phase(a.clock) == 0 and week_phase(b.clock) == 2 * DAY + 6 * 3600
    assert week_phase(LogClock()) is None


def test_two_hand_made_logs_mixed():
    a, b = two_logs()
    m = mix_sources([a, b], 256)
    shift = 2 * DAY + 6 * 3600  # B's Wednesday 06:00 is Wednesday 06:00 of A's clock
    assert m.P == 256 and m.name == "A+B" and m.facts["weekday_kept"]
    assert [x["user_offset"] for x in m.facts["mix"]] == [0, 4]  # A's largest user is 3
    assert [x["shift_seconds"] for x in m.facts["mix"]] == [0.0, shift]
    assert m.jobs.user_id.tolist() == [1, 2, 2, 1, 3, 5, 9, 5, 11]
    assert m.jobs.submit.tolist()[5:] == [WEEK + shift, 6 * WEEK + shift, 14 * WEEK + shift, 20 * WEEK + shift]
    # classes as each log alone gives them; every pool user's jobs are its own log's
    kinds = dict(zip(m.pools.user.tolist(), m.pools.kind.tolist()))
    assert kinds[1] == LONG_TERM and kinds[2] == TEMPORARY and kinds[5] == LONG_TERM and kinds[9] == TEMPORARY
    for u in range(len(m.pools.user)):
        assert set(m.jobs.user_id.to_numpy()[m.pools.jobs_of(u)]) == {m.pools.user[u]}
    # the figures are the sums of the logs'; the spans each log's own
    assert m.pools.initial_temporary == pytest.approx(a.pools.initial_temporary + b.pools.initial_temporary)
    assert m.pools.arrival_rate == pytest.approx(a.pools.arrival_rate + b.pools.arrival_rate)
    spans = dict(zip(m.pools.user.tolist(), m.pools.spans().tolist()))
    assert spans[1] == 30 * WEEK - 3600 and spans[5] == 19 * WEEK


def test_a_mixed_long_term_user_restarts_after_its_own_log_s_length():
    """B's user 1 (m's 5): submits 13 weeks apart in a 19-week log: its
    next pass starts 6 weeks after the week of its last job, not 17 (A's
    30 weeks - 13)."""
    a, b = two_logs()
    m = mix_sources([a, b], 256)
    for seed in range(4):
        p = plan(m.pools, m.jobs.submit.to_numpy(np.float64),
                 ResampleSettings(seed=seed, weeks=60, temporary=0, arrival_rate=0))
        times = np.sort(p.submit[p.instance_user[p.instance] == 5])
        weeks = np.diff(times // WEEK)
        assert 6 in weeks.tolist() and 17 not in weeks.tolist()


def test_mixing_is_deterministic_and_names_its_logs():
    a, b = two_logs()
    m = mix_sources([a, b], 256)
    one = resample_source(m, ResampleSettings(seed=5, weeks=40))
    pd.testing.assert_frame_equal(one.jobs, resample_source(m, ResampleSettings(seed=5, weeks=40)).jobs)
    assert one.source == "A" and one.P == 256
    assert [x["log"] for x in one.parameters["mix"]["logs"]] == ["A", "B"]
    # job-level mixing draws as many jobs a week as the two logs together
    r = resample_source(m, ResampleSettings(unit="job", seed=5, weeks=40))
    assert r.parameters["figures"]["units_per_week"] == pytest.approx(5 / 30 + 4 / 19)


def test_refusals():
    a, b = two_logs()
    with pytest.raises(UsageError, match="two logs or more"):
        mix_sources([a], 64)
    with pytest.raises(UsageError, match="named twice"):
        mix_sources([a, a], 64)
    with pytest.raises(UsageError, match="procs"):
        mix_sources([a, b], 0)


def test_sdsc_with_ctc_holds_both_logs_users(real_archive):
    m = mixed_source(real_archive, "SDSC-SP2-1998-4.2-cln", None, mix=["CTC-SP2-1996-3.1-cln"], procs=512)
    with pytest.raises(UsageError, match="give its size"):
        mixed_source(real_archive, "SDSC-SP2-1998-4.2-cln", None, mix=["CTC-SP2-1996-3.1-cln"])
    sp2, ctc = m.pools.parts
    assert (m.pools.kind == LONG_TERM).sum() == (sp2.kind == LONG_TERM).sum() + (ctc.kind == LONG_TERM).sum()
    r = resample_source(m, ResampleSettings(seed=1))
    assert r.parameters["figures"]["long_term_users"] == (m.pools.kind == LONG_TERM).sum()
