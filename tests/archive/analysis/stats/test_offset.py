"""How users offset each other's weekly work: by hand on users who take
turns and on independent users, and on a whole real log against pandas."""
from __future__ import annotations

import numpy as np
import pytest
from real_logs import pandas_log
from wla.archive.analysis.stats.offset import weekly_offset

WEEK = 7 * 86400


def test_users_who_take_turns_offset_each_other_entirely():
    # user 1 works in weeks 0 and 2, user 2 in weeks 1 and 3, 2 processor-seconds
    # each week: the total is flat (variance 0) while each user's variance is 1
    submit = np.array([0.0, WEEK, 2 * WEEK, 3 * WEEK])
    b = weekly_offset(submit, np.ones(4), np.full(4, 2.0), np.array([1, 2, 1, 2]))
    assert b == {"weeks": 4, "variance_ratio": 0.0, "top_user": 1, "top_share": 0.5,
                 "top_correlation": pytest.approx(-1)}


def test_users_who_work_together_add_up_beyond_their_own_variances():
    # both users work in weeks 0 and 2 only: total [4, 0, 4, 0], variance 4; each user's 1
    submit = np.array([0.0, 0.0, 2 * WEEK, 2 * WEEK, 3 * WEEK])
    run = np.array([1.0, 1.0, 1.0, 1.0, -1.0])  # the last job's run time is unknown: not counted
    b = weekly_offset(submit, run, np.full(5, 2.0), np.array([1, 2, 1, 2, 1]))
    assert (b["weeks"], b["variance_ratio"], b["top_correlation"]) == (3, 2.0, pytest.approx(1))


def test_independent_users_give_a_ratio_near_one():
    rng = np.random.default_rng(2)
    weeks, users = 400, 5
    submit = np.repeat(np.arange(weeks) * WEEK, users) + 1.0
    user = np.tile(np.arange(users), weeks)
    run = rng.exponential(100.0, weeks * users)
    b = weekly_offset(submit, run, np.ones(weeks * users), user)
    table = run.reshape(weeks, users)
    assert b["variance_ratio"] == pytest.approx(table.sum(axis=1).var() / table.var(axis=0).sum())
    assert 0.8 < b["variance_ratio"] < 1.2


def test_nothing_to_measure():
    assert weekly_offset(np.array([5.0]), np.array([-1.0]), np.array([1.0]), np.array([1]))["variance_ratio"] is None


def test_a_whole_log_as_pandas_groups_it():
    jobs = pandas_log("SDSC-SP2-1998-4.2-cln")
    procs = jobs["procs"].where(jobs["procs"] > 0, jobs["req_procs"])
    kept = jobs.assign(width=procs)
    kept = kept[(kept.run > 0) & (kept.width > 0) & (kept.user >= 0) & (kept.submit >= 0)]
    work = (kept.assign(week=kept.submit // WEEK, work=(kept.run * kept.width).astype(float))
            .pivot_table(index="user", columns="week", values="work", aggfunc="sum", fill_value=0.0))
    weeks = int(kept.submit.max() // WEEK) + 1
    work = work.reindex(columns=range(weeks), fill_value=0.0)
    want = work.sum(axis=0).var(ddof=0) / work.var(axis=1, ddof=0).sum()
    top = work.sum(axis=1).idxmax()
    b = weekly_offset(jobs["submit"].to_numpy(float), jobs["run"].to_numpy(float), procs.to_numpy(float),
                      jobs["user"].to_numpy())
    assert b["variance_ratio"] == pytest.approx(want, rel=1e-12)
    assert b["top_user"] == top == 128
    assert b["top_share"] == pytest.approx(work.loc[top].sum() / work.values.sum())
    assert b["top_correlation"] == pytest.approx(np.corrcoef(work.loc[top], work.sum(axis=0) - work.loc[top])[0, 1])
    assert b["variance_ratio"] < 0.5  # its users offset each other
