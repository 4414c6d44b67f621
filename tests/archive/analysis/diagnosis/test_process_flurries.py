"""Process flurries: one hand-made user-week of a few huge jobs, and
SDSC-SP2's user-weeks counted by pandas from the file."""
from __future__ import annotations

import numpy as np
from real_logs import pandas_log
from wla.archive.analysis.diagnosis import process_flurries
from wla.archive.analysis.diagnosis.diagnose import diagnose
from wla.archive.analysis.diagnosis.log_data import from_columns

WEEK = 7 * 86400


def _log():
    """Ten weeks of 100 one-processor jobs by users 1-10; user 99 adds three
    jobs of 1,000 processors in week 4; user 5 a job flurry of 500 jobs of
    4 processors in week 6."""
    submit, user, procs, run = [], [], [], []
    for w in range(10):
        for k in range(100):
            submit.append(w * WEEK + k * 600)
            user.append(1 + k % 10)
            procs.append(1)
            run.append(100)
    for k in range(3):
        submit.append(4 * WEEK + 3600 * k + 7)
        user.append(99)
        procs.append(1000)
        run.append(10_000)
    for k in range(500):
        submit.append(6 * WEEK + 60 * k + 3)
        user.append(5)
        procs.append(4)
        run.append(10)
    order = np.argsort(submit, kind="stable")
    return from_columns("t", {"submit": np.array(submit)[order], "user_id": np.array(user)[order],
                              "procs": np.array(procs)[order], "run": np.array(run)[order]})


def test_a_few_huge_jobs_in_one_week_are_a_process_flurry_a_job_flurry_is_not():
    log = _log()
    [f] = process_flurries.detect(log)
    processes = (1000 + 3 * 1000 + 500 * 4) / 10  # by hand: all processes over ten weeks
    seconds = (1000 * 100 + 3 * 1000 * 10_000 + 500 * 40) / 10
    jobs = (1000 + 3 + 500) / 10
    [week] = f.data["weeks"]
    assert f.data["user"] == 99 and week["week"] == 4 and week["jobs"] == 3
    assert week["processes_ratio"] == round(3000 / processes, 2)
    assert week["proc_seconds_ratio"] == round(3 * 1000 * 10_000 / seconds, 2)
    assert week["job_ratio"] == round(3 / jobs, 2) and week["measures"] == ["processes", "proc_seconds"]
    numbers = log.jobs["job"][log.jobs["user_id"] == 99]
    assert f.data["predicate"] == f"user=99 and job>={numbers.min()} and job<={numbers.max()}"
    # user 5's week (500 jobs, 3.3 times the average) is a job flurry, left to `wla flurries`
    assert process_flurries.detect(log, job_flurry=10.0)[0].data["user"] == 5


def test_a_higher_ratio_finds_nothing():
    assert process_flurries.detect(_log(), ratio=20.0) == []
    assert process_flurries.detect(from_columns("t", {"submit": [-1], "procs": [4]})) == []


def test_sdsc_sp2_user_weeks_counted_by_pandas(real_archive):
    name = "SDSC-SP2-1998-4.2-cln"
    frame = pandas_log(name)
    frame = frame[frame.submit != -1].copy()
    frame["size"] = np.where(frame.procs > 0, frame.procs, np.where(frame.req_procs > 0, frame.req_procs, 0))
    frame["ps"] = np.where(frame.run > 0, frame["size"] * frame.run, 0)
    frame["week"] = frame.submit // WEEK
    weeks = frame.week.max() - frame.week.min() + 1
    per = frame[frame.user >= 0].groupby(["user", "week"]).agg(jobs=("job", "size"), size=("size", "sum"),
                                                                ps=("ps", "sum"))
    hit = per[((per["size"] >= frame["size"].sum() / weeks) | (per.ps >= frame.ps.sum() / weeks))
              & (per.jobs < len(frame) / weeks)]
    found = {(f.data["user"], w["week"]): w for f in diagnose(real_archive, name)
             if f.detector == "process_flurries" for w in f.data["weeks"]}
    assert set(found) == set(hit.index) == {(13, 77), (21, 33), (30, 11), (30, 12), (148, 53)}
    top = found[(30, 12)]
    assert top["jobs"] == hit.loc[(30, 12), "jobs"] == 200
    assert top["processes_ratio"] == round(hit.loc[(30, 12), "size"] / (frame["size"].sum() / weeks), 2) == 2.41


def test_distinct_keys_by_counting_equal_numpys_unique():
    rng = np.random.default_rng(5)
    for bound in (1, 7, 1000, 3 << 20):  # the last beyond the counting range: np.unique itself
        for n in (0, 1, 50, 5000):
            key = rng.integers(0, bound, n)
            keys, index = process_flurries._distinct(key, bound)
            want_keys, want_index = np.unique(key, return_inverse=True)
            assert keys.tolist() == want_keys.tolist() and index.tolist() == want_index.tolist()
