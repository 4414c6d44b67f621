"""Resampling biased toward a class of users (sim/evaluate/resample/favor.py):
the class of a hand-made log picked by hand, the draws' shares against
their expectation, determinism and the refusals."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from wla.archive import open as open_archive
from wla.archive.kernel.clock import WEEK, LogClock
from wla.archive.kernel.errors import UsageError
from wla.archive.swf.fields import COLUMNS
from wla.sim.evaluate.resample.favor import favored, user_figures, user_weights
from wla.sim.evaluate.resample.generate import plan
from wla.sim.evaluate.resample.pools import user_pools
from wla.sim.evaluate.resample.settings import ResampleSettings
from wla.sim.evaluate.resample.workload import SourceLog, read_source, resample_source

# user: (jobs as (run, procs)) -- processor-seconds: 1: 2x(100x4) = 800, 2: 1000x8 + 0x8 = 8000,
# 3: 4x(10x1) = 40, 4: 2x(500x2) + one of unknown run = 2000
USERS = {1: [(100, 4), (100, 4)], 2: [(1000, 8), (0, 8)], 3: [(10, 1)] * 4, 4: [(500, 2), (500, 2), (-1, 64)]}


def hand_log(weeks: int = 30) -> pd.DataFrame:
    rows = []
    for u, jobs in USERS.items():
        for k, (run, procs) in enumerate(jobs):  # every user long-term: first job week 0, last week 20
            rows.append((u, (20 * WEEK if k == len(jobs) - 1 and k else 0) + 3600 * u + k, run, procs))
    rows.append((9, weeks * WEEK, 1, 1))  # sets the log's end
    frame = pd.DataFrame({c: -1 for c in COLUMNS}, index=range(len(rows)))
    frame["job"] = range(1, len(rows) + 1)
    for i, name in enumerate(("user_id", "submit", "run", "procs")):
        frame[name] = [r[i] for r in rows]
    frame["wait"] = 0.0
    frame = frame.sort_values("submit", kind="stable").reset_index(drop=True)
    frame.insert(0, "line_no", range(1, len(rows) + 1))
    return frame


def source() -> SourceLog:
    jobs = hand_log()
    pools = user_pools(jobs.submit.to_numpy(np.float64), jobs.user_id.to_numpy(np.int64))
    return SourceLog("hand", jobs, 64, LogClock(), pools, {})


def test_each_figure_and_the_top_share_by_hand():
    src = source()
    def by_user(f):
        return dict(zip(src.pools.user.tolist(), user_figures(src.pools, src.jobs, f).tolist()))
    assert by_user("processor-seconds") == {1: 800, 2: 8000, 3: 40, 4: 2000, 9: 1}
    assert by_user("jobs") == {1: 2, 2: 2, 3: 4, 4: 3, 9: 1}
    assert by_user("run-time") == {1: 100, 2: 500, 3: 10, 4: 500, 9: 1}
    assert by_user("processors") == {1: 4, 2: 8, 3: 1, 4: pytest.approx(68 / 3), 9: 1}  # 4: (2 + 2 + 64) / 3
    def pick(f, top):
        return sorted(src.pools.user[favored(src.pools, src.jobs, f, top)].tolist())
    assert pick("processor-seconds", 0.25) == [2, 4]  # ceil(0.25 x 5) = 2 users: 8000 and 2000
    assert pick("processor-seconds", 0.2) == [2]
    assert pick("jobs", 0.4) == [3, 4] and pick("processors", 1.0) == [1, 2, 3, 4, 9]


def test_a_weight_draws_the_favored_users_as_often_as_expected():
    """Users 2 and 4 favored at weight 4 (top 40% by processor-seconds).
    Long-term users (1 to 4) are then drawn independently by weight: each
    of the 4 draws is favored with probability 8/10. Job-level draws: the
    favored users' 5 jobs weigh 4 each, the other 7 jobs 1 each: 20/27.
    Over many seeds each share is within 4 standard errors."""
    src = source()
    s = ResampleSettings(favor="processor-seconds", favor_top=0.4, favor_weight=4.0, weeks=30, temporary=0,
                         arrival_rate=0)
    weights, info = user_weights(src.pools, src.jobs, s)
    assert info["favored_users"] == [2, 4] and info["threshold"] == 2000
    assert dict(zip(src.pools.user.tolist(), weights.tolist())) == {1: 1, 2: 4, 3: 1, 4: 4, 9: 1}
    submit = src.jobs.submit.to_numpy(np.float64)
    drawn = np.concatenate([plan(src.pools, submit, s.edit(seed=k), weights).instance_user for k in range(300)])
    assert len(drawn) == 1200 and set(drawn.tolist()) <= {1, 2, 3, 4}
    share = np.isin(drawn, [2, 4]).mean()
    assert abs(share - 0.8) < 4 * np.sqrt(0.8 * 0.2 / len(drawn)), share
    jobs = np.concatenate([resample_source(src, ResampleSettings(
        unit="job", favor="processor-seconds", favor_top=0.4, favor_weight=4.0, seed=k)).source_user
        for k in range(100)])
    p = 20 / 27
    share = np.isin(jobs, [2, 4]).mean()
    assert abs(share - p) < 4 * np.sqrt(p * (1 - p) / len(jobs)), (share, p)


def test_no_bias_without_a_weight_and_the_refusal():
    src = source()
    plain = resample_source(src, ResampleSettings(seed=3, temporary=0, arrival_rate=0))
    marked = resample_source(src, ResampleSettings(seed=3, temporary=0, arrival_rate=0, favor="jobs"))
    pd.testing.assert_frame_equal(plain.jobs, marked.jobs)  # weight 1: the class is only recorded
    assert marked.parameters["favor"]["users"] == 2 and "favor" not in plain.parameters
    with pytest.raises(UsageError, match="give favor too"):
        resample_source(src, ResampleSettings(favor_weight=2.0))
    with pytest.raises(UsageError, match="unknown favored figure 'memory'"):
        resample_source(src, ResampleSettings(favor="memory"))


def test_favoring_heavy_users_of_sdsc_sp2_is_deterministic(sp2_archive_file):
    with open_archive(sp2_archive_file) as a:
        src = read_source(a, "SDSC-SP2-1998-4.2-cln")
    s = ResampleSettings(seed=1, favor="processor-seconds", favor_weight=4.0)
    one, again = resample_source(src, s), resample_source(src, s)
    pd.testing.assert_frame_equal(one.jobs, again.jobs)
    # the class by pandas: the top quarter of the 437 users by run x procs
    jobs = src.jobs.assign(w=src.jobs.run.clip(lower=0) * src.jobs.procs.where(src.jobs.procs > 0,
                                                                               src.jobs.req_procs))
    work = jobs[jobs.user_id >= 0].groupby("user_id").w.sum().sort_values(ascending=False, kind="stable")
    assert one.parameters["favor"]["users"] == 110 == -(-len(work) // 4)
    assert set(one.parameters["favor"]["favored_users"]) == set(work.index[:110])
    plain = resample_source(src, ResampleSettings(seed=1, favor="processor-seconds"))
    assert one.parameters["favor"]["jobs"] / len(one.jobs) > plain.parameters["favor"]["jobs"] / len(plain.jobs)
