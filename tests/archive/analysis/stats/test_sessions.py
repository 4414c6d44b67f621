"""Session similarity (the resampling paper's section 3): by hand on made
users, and on real logs against a plain loop over every pair of jobs."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from real_logs import pandas_log
from session_loop import loop_similarity
from wla.archive.analysis.stats import job_ends, user_statistics
from wla.archive.analysis.stats import sessions as ss
from wla.archive.kernel.errors import OptionError, UsageError

DAY = 86400.0


def _jobs(rows):
    """(user, submit, run, procs) rows as the archive's columns; no wait."""
    user, submit, run, procs = map(np.array, zip(*rows))
    n = len(rows)
    return pd.DataFrame({"user_id": user, "submit": submit.astype(float), "wait": np.zeros(n), "run": run,
                         "procs": procs, "req_procs": np.full(n, -1), "req_time": run})


# User 7: sessions [1, 2], [4], [1] (a day apart); user 8: one session [0, 0, 5] of run times.
MADE = _jobs([(7, 0, 10, 1), (7, 10, 10, 2), (7, DAY, 10, 4), (7, 2 * DAY, 10, 1),
              (8, 0, 0, 3), (8, 5, 0, 3), (8, 9, 5, 3)])


def _per_user(jobs, attribute, distances=2, statistic="mean", weigh="sessions"):
    s = ss.split_sessions(jobs["user_id"], jobs["submit"], job_ends(jobs["submit"], jobs["wait"], jobs["run"]))
    values = ss.attribute_values(jobs, attribute)[s.order]
    return s, ss.per_user(s, values, distances, statistic, weigh)


def test_made_users_by_hand():
    s, procs = _per_user(MADE, "procs")
    assert list(s.ids) == [7, 8] and list(s.session_user) == [0, 0, 0, 1]
    # d = 0: 1/2 within [1, 2]; d = 1: [1, 2]-[4] is (1/4 + 2/4)/2, [4]-[1] is 1/4; d = 2: [1, 2]-[1] is (1 + 1/2)/2
    assert procs[0] == pytest.approx([0.5, (0.375 + 0.25) / 2, 0.75])
    assert procs[1, 0] == 1.0 and np.isnan(procs[1, 1:]).all()  # three jobs of 3 processors, one session
    _, pooled = _per_user(MADE, "procs", weigh="pairs")
    assert pooled[0] == pytest.approx([0.5, (0.25 + 0.5 + 0.25) / 3, 0.75])  # every pair of jobs alike
    _, identical = _per_user(MADE, "procs", statistic="identical")
    assert identical[0] == pytest.approx([0.0, 0.0, 0.5])
    _, run = _per_user(MADE, "run")
    assert run[1, 0] == pytest.approx(1 / 3)  # 0 and 0 are alike (1), 0 and 5 not at all (0)


def test_a_session_lasts_while_any_earlier_job_runs():
    # the second job ends long before the third comes, but the first still runs: one session
    jobs = _jobs([(1, 0, 5000, 1), (1, 100, 10, 1), (1, 6100, 10, 1), (1, 6100 + 10 + 1201, 10, 1)])
    s = ss.split_sessions(jobs["user_id"], jobs["submit"], job_ends(jobs["submit"], jobs["wait"], jobs["run"]))
    assert list(s.session) == [0, 0, 0, 1]
    wide = ss.split_sessions(jobs["user_id"], jobs["submit"], jobs["submit"] + jobs["run"], gap=10_000)
    assert wide.session.max() == 0


def test_the_table_counts_users_by_which_distance_is_more_similar():
    per_user = np.array([[0.9, 0.5, 0.4], [0.5, 0.5, 0.6], [0.2, 0.3, 0.1], [1.0, 1.0, 1.0], [0.9, np.nan, 0.1]])
    t = ss.locality_table(per_user)
    assert t["users"] == 4 and t["constant"] == 1  # the last user has no distance 1
    assert t["0 vs 1"] == {"shorter": 0.25, "equal": 0.5, "longer": 0.25}
    assert t["1 vs 2"] == {"shorter": 0.5, "equal": 0.25, "longer": 0.25}
    c = ss.curve(per_user)
    assert c["users"] == [5, 4, 5] and c["mean"][1] == pytest.approx(0.575) and c["median"][0] == 0.9


def test_shuffles_keep_what_they_promise_and_repeat_with_the_seed():
    s, _ = _per_user(MADE, "procs")
    mixed = ss.shuffled(s, "jobs", np.random.default_rng(3))
    assert np.array_equal(np.bincount(mixed.session), np.bincount(s.session))  # every session keeps its size
    assert all(set(mixed.session[s.user == u]) == set(s.session[s.user == u]) for u in (0, 1))
    again = ss.shuffled(s, "jobs", np.random.default_rng(3))
    assert np.array_equal(mixed.session, again.session)
    reordered = ss.shuffled(s, "sessions", np.random.default_rng(1))
    values = ss.attribute_values(MADE, "procs")[s.order]
    at0 = ss.session_similarity(s, values, 0)[:, 0]
    assert np.allclose(np.sort(ss.session_similarity(reordered, values, 0)[:, 0]), np.sort(at0), equal_nan=True)


def test_one_session_users_give_the_logs_value_under_every_job_shuffle():
    jobs = MADE[MADE["user_id"] == 8]
    s, per_user = _per_user(jobs, "procs", 0)
    null = ss.null_distribution(s, ss.attribute_values(jobs, "run")[s.order], 5)
    assert null == pytest.approx([1 / 3] * 5)


def test_the_report_is_the_same_for_the_same_seed_and_checks_its_arguments():
    a = ss.session_report(MADE, repeats=4, seed=5).as_dict()
    assert a == ss.session_report(MADE, repeats=4, seed=5).as_dict()
    assert a["users"] == 2 and a["sessions"] == 4 and len(a["attributes"][0]["log"]["mean"]) == 11
    assert a["attributes"][0]["table"]["users"] == 1
    with pytest.raises(OptionError):
        ss.session_report(MADE, distances=1)
    with pytest.raises(UsageError):
        ss.session_report(MADE, attributes=("cpu",))
    with pytest.raises(UsageError):
        ss.session_report(MADE, shuffle="users")
    with pytest.raises(UsageError):
        ss.session_report(MADE, weigh="jobs")


def _loop_equal(name: str, attribute: str, statistic: str = "mean", distances: int = 3,
                weigh: str = "sessions") -> None:
    df = pandas_log(name)
    expected = loop_similarity(df, attribute, distances, statistic, weigh)
    jobs = df.rename(columns={"user": "user_id"})
    s, got = _per_user(jobs, attribute, distances, statistic, weigh)
    assert list(s.ids) == sorted(expected)
    np.testing.assert_allclose(got, np.array([expected[u] for u in s.ids]), rtol=0, atol=1e-9)


@pytest.mark.parametrize("attribute", sorted(ss.ATTRIBUTES))
def test_a_real_head_file_as_a_plain_loop_gives_it(attribute):
    _loop_equal("HPC2N-2002-2.2-head3170", attribute)
    _loop_equal("HPC2N-2002-2.2-head3170", attribute, "identical", 2)
    _loop_equal("HPC2N-2002-2.2-head3170", attribute, "mean", 2, "pairs")


def test_sessions_are_those_of_the_per_user_statistics():
    df = pandas_log("SDSC-SP2-1998-4.2-cln")
    submit = df["submit"].to_numpy(float)
    end = job_ends(submit, df["wait"], df["run"])
    s = ss.split_sessions(df["user"], submit, end)
    stats = user_statistics(df["user"].to_numpy(), submit, end, np.zeros(len(df)))
    assert np.array_equal(np.bincount(s.session_user), stats.values["sessions"])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["KTH-SP2-1996-2.1-cln", "CTC-SP2-1996-3.1-cln"])
def test_whole_real_logs_as_a_plain_loop_gives_them(name):
    for attribute in ss.ATTRIBUTES:
        _loop_equal(name, attribute)
    _loop_equal(name, "run", weigh="pairs")


def test_job_shuffles_draw_every_split_of_a_users_jobs_alike():
    # sessions of two jobs each, values 1..4: the splits {12|34}, {13|24}, {14|23}
    # give (1/2 + 3/4)/2, (1/3 + 2/4)/2 and (1/4 + 2/3)/2, one third of the time each
    jobs = _jobs([(1, 0, 10, 1), (1, 10, 10, 2), (1, DAY, 10, 3), (1, DAY + 10, 10, 4)])
    s, per_user = _per_user(jobs, "procs", 0)
    assert per_user[0, 0] == pytest.approx(0.625)
    null = ss.null_distribution(s, ss.attribute_values(jobs, "procs")[s.order], 3000, rng=np.random.default_rng(1))
    splits = np.array([0.625, 5 / 12, 11 / 24])
    assert np.abs(null[:, None] - splits[None, :]).min(axis=1).max() < 1e-12
    shares = [(np.abs(null - x) < 1e-12).mean() for x in splits]
    assert shares == pytest.approx([1 / 3] * 3, abs=0.04)
    pooled = ss.null_distribution(s, ss.attribute_values(jobs, "procs")[s.order], 50, weigh="pairs")
    assert np.abs(pooled[:, None] - splits[None, :]).min(axis=1).max() < 1e-12  # two pairs per split either way
    same = _jobs([(1, 0, 10, 2), (1, 10, 10, 2), (1, DAY, 10, 2), (1, DAY + 10, 10, 2)])
    s, _ = _per_user(same, "procs", 0)
    assert list(ss.null_distribution(s, ss.attribute_values(same, "procs")[s.order], 4, "identical")) == [1.0] * 4


PAGE = Path(__file__).resolve().parents[4] / "docs" / "pages" / "reproductions" / "sessions.md"


def _page_tables() -> dict:
    """(attribute, log) -> the six shares wla's Tables II-IV rows on the docs page give."""
    out, attribute = {}, None
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("### Table"):
            attribute = {"II": "procs", "III": "req_time", "IV": "run"}[line.split()[2].rstrip(":")]
        elif attribute and line.startswith("| ") and "-cln" in line:
            cells = [c.strip() for c in line.strip("|").split("|")]
            out[(attribute, cells[0])] = [float(c.split()[0]) for c in cells[2:8]]
    return out


def test_the_page_has_a_row_per_log_and_table():
    rows = _page_tables()
    assert len(rows) == 21 and {a for a, _ in rows} == set(ss.ATTRIBUTES)


@pytest.mark.slow
def test_the_tables_on_the_docs_page_are_what_the_logs_give():
    rows = _page_tables()
    for log in sorted({log for _, log in rows}):
        report = ss.session_report(pandas_log(log).rename(columns={"user": "user_id"}), repeats=0)
        for a in report.attributes:
            t = a.table
            got = [t[pair][k] for pair in ("0 vs 1", "1 vs 2") for k in ("shorter", "equal", "longer")]
            assert [round(x, 3) for x in got] == rows[(a.attribute, log)], (log, a.attribute)
