"""The dependencies rule (schema/rules/dependencies.sql): fields 17 and 18 on
a hand-worked log, every value written out; on whole real logs against a
second implementation, a plain loop over each user's jobs; the same fields
whatever DuckDB's threads and the order of the file's lines."""
from __future__ import annotations

import bisect
import gzip
import random

import numpy as np
import pandas as pd
import pytest
from real_logs import ROOT, data_dir
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe
from wla.archive.store.ingest import ingest

# job, submit, wait, run, user; every other field -1. Ends (submit + wait + run)
# in the comments; the session gap is 1200 s unless a test says otherwise.
LOG = [
    (1, 0, 0, 100, 1),       # ends 100; nothing ended before: none
    (2, 130, 10, 50, 1),     # ends 190; job 1 ended 30 s before: 1, 30
    (3, 1391, 0, 100, 1),    # ends 1491; job 2 ended 1201 s before, just over the gap: none
    (4, 1500, 0, 1000, 1),   # ends 2500; job 3 ended 9 s before: 3, 9 (a batch begins)
    (5, 1600, 0, 100, 1),    # ends 1700; job 4 still runs: the batch's 3, 1600 - 1491 = 109
    (6, 1650, 0, 10, 1),     # ends 1660; job 5 still runs: 3, 1650 - 1491 = 159
    (7, 1660, 0, 0, 1),      # ends 1660; job 6 ended at its submit (not running): 6, 0
    (8, 1660, 5, 5, 1),      # ends 1670; jobs 6 and 7 both ended at 1660: the later, 7, 0
    (9, 0, 0, 500, 2),       # ends 500; none
    (10, 100, 0, 50, 2),     # ends 150; job 9 still runs, a batch whose first job has none: none
    (11, 600, 0, 10, 2),     # job 10 ended before job 9, which ended last: 9, 100
    (12, 200, 0, 10, -1),    # user unknown: none
    (13, 0, 0, 100, 3),      # ends 100; none
    (14, 10, 0, -1, 3),      # end unknown; job 13 still runs, a batch without one: none
    (15, 200, 0, 10, 3),     # job 14 (no end) is not running: job 13 ended last: 13, 100
    (16, 0, 0, 10, 4),       # ends 10; none
    (17, 20, 0, 30, 4),      # ends 50; 16, 10
    (18, 60, 0, 10, 4),      # 17, 10 (16, 50 once a filter dropped job 17)
]
DEFAULT = {1: (-1, -1), 2: (1, 30), 3: (-1, -1), 4: (3, 9), 5: (3, 109), 6: (3, 159), 7: (6, 0),
           8: (7, 0), 9: (-1, -1), 10: (-1, -1), 11: (9, 100), 12: (-1, -1), 13: (-1, -1),
           14: (-1, -1), 15: (13, 100), 16: (-1, -1), 17: (16, 10), 18: (17, 10)}


def _swf(rows, prev=None) -> str:
    prev = prev or {}
    lines = ["; MaxProcs: 64"]
    for job, submit, wait, run, user in rows:
        p, t = prev.get(job, (-1, -1))
        lines.append(f"{job} {submit} {wait} {run} 1 -1 -1 1 -1 -1 1 {user} -1 -1 -1 -1 {p} {t}")
    return "\n".join(lines) + "\n"


def _fields(a, name: str) -> dict[int, tuple[int, float]]:
    rows = a.df(f"SELECT job, prev_job, think FROM jobs WHERE log_id = {a.log_id(name)} ORDER BY line_no")
    return {int(j): (int(p), float(t)) for j, p, t in rows.itertuples(index=False)}


def _build(a, log: str, version: str, steps: str) -> dict:
    clean(a, parse_recipe(f'log = "{log}"\nversion = "{version}"\n\n{steps}'))
    return _fields(a, f"{log}@{version}")


def _step(**params) -> str:
    values = "".join(f"{k} = {str(v).lower() if isinstance(v, bool) else v}\n" for k, v in params.items())
    return f'[[step]]\nrule = "dependencies"\n{values}'


@pytest.fixture
def hand(tmp_path):
    (tmp_path / "hand.swf").write_text(_swf(LOG))
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [tmp_path / "hand.swf"])
        yield a


def test_every_case_of_the_definition_by_hand(hand):
    assert _build(hand, "hand", "d", _step()) == DEFAULT


@pytest.mark.parametrize("params, changes", [
    ({"across_sessions": True}, {3: (2, 1201)}),  # a session's first job waits for the last
    ({"session_gap": 1201}, {3: (2, 1201)}),  # the gap is inclusive
    ({"session_gap": 8}, {j: (-1, -1) for j in (2, 4, 5, 6, 11, 15, 17, 18)}),  # think 0 stays
    ({"inherit_batches": False}, {5: (-1, -1), 6: (-1, -1)}),  # batch members get none
])
def test_each_parameter_by_hand(hand, params, changes):
    assert _build(hand, "hand", "d", _step(**params)) == {**DEFAULT, **changes}


def test_the_decisions_say_every_filled_field_and_why(hand):
    filled = _build(hand, "hand", "d", _step())
    got = hand.df("SELECT job, field, old_value, new_value, action, reason FROM decisions ORDER BY job, field")
    with_pred = sorted(j for j, (p, _) in filled.items() if p != -1)
    assert got["job"].tolist() == [j for j in with_pred for _ in (0, 1)]
    assert got["field"].tolist() == ["prev_job", "think"] * len(with_pred)
    assert (got["old_value"] == -1).all() and set(got["action"]) == {"modify"}
    assert got["new_value"].tolist() == [v for j in with_pred for v in filled[j]]
    why = dict(zip(got["job"], got["reason"]))
    assert why[2] == ("preceding job 1, think time 30 s: the user's last job to end before its submit, "
                      "within the session gap of 1200 s")
    assert why[6] == ("preceding job 3, think time 159 s: that of its batch's first job 4 "
                      "(submitted while job 5 still ran)")
    assert why[8].startswith("preceding job 7, think time 0 s: ")


def test_no_dependency_is_said_too_when_a_field_loses_its_value(tmp_path):
    # A log that carries fields 17/18: without keep_existing every job's are
    # replaced, and a job that gets none says why.
    given = {2: (7, 99), 3: (-1, 5), 12: (2, 3)}
    (tmp_path / "given.swf").write_text(_swf(LOG, given))
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [tmp_path / "given.swf"])
        assert _build(a, "given", "d", _step()) == DEFAULT
        kept = _build(a, "given", "k", _step(keep_existing=True))
        reasons = dict(a.df("SELECT job, reason FROM decisions WHERE version = 'given@d' "
                            "AND field = 'prev_job'").itertuples(index=False))
        think = a.df("SELECT job, old_value, new_value, reason FROM decisions WHERE version = 'given@d' "
                     "AND field = 'think' AND job = 3")
    assert kept == {**DEFAULT, 2: (7, 99), 12: (2, 3)}  # 3: field 17 unset, so filled (think 5 replaced)
    assert reasons[12] == "no preceding job: user unknown"
    assert think.values.tolist() == [[3, 5, -1, "no preceding job: the first of a session; the user's last job to "
                                      "end before it, job 2, ended 1201 s before its submit, beyond the session "
                                      "gap of 1200 s"]]
    assert reasons[2].startswith("preceding job 1, think time 30 s")


def test_across_sessions_says_so(hand):
    _build(hand, "hand", "a", _step(across_sessions=True))
    [why] = hand.df("SELECT reason FROM decisions WHERE job = 3 AND field = 'prev_job'").reason
    assert why == ("preceding job 2, think time 1201 s: the user's last job to end before its submit, "
                   "beyond the session gap of 1200 s (across_sessions)")


def test_a_job_an_earlier_step_dropped_is_never_a_predecessor(hand):
    steps = '[[step]]\nrule = "filter"\nwhere = "job=17"\n\n' + _step()
    got = _build(hand, "hand", "f", steps)
    want = {**DEFAULT, 18: (16, 50)}
    del want[17]
    assert got == want


# -- a second implementation, on whole real logs -------------------------------------------


def reference(jobs: pd.DataFrame, gap: float = 1200, inherit: bool = True, across: bool = False,
              keep: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Fields 17 and 18 by the definition, one user at a time: the jobs in
    (submit, job, line) order, the ends seen so far in a sorted list."""
    n = len(jobs)
    prev_out, think_out = np.full(n, -1, dtype=np.int64), np.full(n, -1.0)
    submit, job, user = jobs["submit"].to_numpy(), jobs["job"].to_numpy(), jobs["user_id"].to_numpy()
    wait, run = jobs["wait"].to_numpy(), jobs["run"].to_numpy()
    ends = [submit[i] + wait[i] + run[i] if wait[i] >= 0 and run[i] >= 0 else None for i in range(n)]
    by_user: dict[int, list[int]] = {}
    for i in range(n):
        if user[i] >= 0 and submit[i] >= 0:
            by_user.setdefault(int(user[i]), []).append(i)
    for rows in by_user.values():
        rows.sort(key=lambda i: (submit[i], job[i], i))
        ended: list[tuple[float, int, int]] = []  # (end, position, row), sorted
        before, batch_pred = None, None
        for pos, i in enumerate(rows):
            if before is not None and ends[before] is not None and ends[before] > submit[i]:
                pred = batch_pred if inherit else None
            else:
                k = bisect.bisect_right(ended, (submit[i], n, n)) - 1
                pred = None
                if k >= 0 and (across or submit[i] - ended[k][0] <= gap):
                    pred = ended[k][2]
                batch_pred = pred
            if pred is not None:
                prev_out[i], think_out[i] = job[pred], submit[i] - ends[pred]
            if ends[i] is not None:
                bisect.insort(ended, (ends[i], pos, i))
            before = i
    if keep:
        given = jobs["prev_job"].to_numpy() != -1
        prev_out[given] = jobs["prev_job"].to_numpy()[given]
        think_out[given] = jobs["think"].to_numpy()[given]
    return prev_out, think_out


STUDY = ("KTH-SP2-1996-2.1-cln", "SDSC-SP2-1998-4.2-cln", "CTC-SP2-1996-3.1-cln")


def _version(a, name: str) -> pd.DataFrame:
    return a.df(f"SELECT * FROM jobs WHERE log_id = {a.log_id(name)} ORDER BY line_no")


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    path = tmp_path_factory.mktemp("deps") / "a.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [data_dir() / f"{log}.swf.gz" for log in STUDY])
    return path


@pytest.mark.parametrize("log, version, params", [
    ("KTH-SP2-1996-2.1-cln", "d", {}),
    ("SDSC-SP2-1998-4.2-cln", "d", {}),
    ("KTH-SP2-1996-2.1-cln", "own", {"inherit_batches": False, "session_gap": 600}),
    pytest.param("SDSC-SP2-1998-4.2-cln", "across", {"across_sessions": True}, marks=pytest.mark.slow),
])
def test_the_rule_agrees_with_a_loop_over_each_users_jobs(real, log, version, params):
    with open_archive(real, write=True) as a:
        _build(a, log, version, _step(**params))
        original, built = _version(a, log), _version(a, f"{log}@{version}")
        changed = a.df(f"SELECT field, count(*) AS n FROM decisions WHERE version = '{log}@{version}' "
                       "GROUP BY field")
    prev, think = reference(original, params.get("session_gap", 1200), params.get("inherit_batches", True),
                            params.get("across_sessions", False))
    assert built["line_no"].tolist() == original["line_no"].tolist()
    assert built["prev_job"].tolist() == prev.tolist()
    assert built["think"].tolist() == think.tolist()
    # Every filled field is a decision (the log had none of them).
    assert dict(zip(changed["field"], changed["n"])) == {"prev_job": int((prev != -1).sum()),
                                                         "think": int((think != -1).sum())}
    assert (prev != -1).mean() > 0.15  # a real log's users do wait for their jobs
    others = [c for c in original.columns if c not in ("log_id", "prev_job", "think")]
    assert built[others].equals(original[others])


@pytest.mark.slow
def test_the_same_fields_whatever_the_threads_and_the_order_of_lines(real, tmp_path):
    log = "KTH-SP2-1996-2.1-cln"
    with gzip.open(data_dir() / f"{log}.swf.gz", "rt") as fh:
        lines = fh.read().splitlines()
    header = [ln for ln in lines if ln.startswith(";")]
    jobs = [ln for ln in lines if ln.strip() and not ln.startswith(";")]
    random.Random(28).shuffle(jobs)
    (tmp_path / "shuffled.swf").write_text("\n".join(header + jobs) + "\n")
    got = []
    with open_archive(real, write=True) as a:
        for threads in (1, 2, 4):
            a.con.execute(f"SET threads = {threads}")
            got.append(_build(a, log, f"t{threads}", _step()))
        ingest(a, [tmp_path / "shuffled.swf"])
        got.append(_build(a, "shuffled", "t", _step()))
    assert got[0] == got[1] == got[2] == got[3]
    assert len(got[0]) == len(jobs)  # job numbers are unique in this log: the dict holds every job


def test_a_published_version_carries_fields_17_and_18(real, tmp_path):
    # The published file, ingested again as a log of its own, has the
    # version's fields 17/18, though a job number is wider than the "-1" it
    # replaces; every other field is the original's.
    from wla.archive.clean.publish import publish

    log = "SDSC-SP2-1998-4.2-cln"
    out = tmp_path / "deps.swf"
    with open_archive(real, write=True) as a:
        _build(a, log, "pub", '[[step]]\nrule = "normalize"\n\n' + _step())
        publish(a, log, "pub", out)
        [back] = ingest(a, [out], name="published")
        assert back.status == "ingested"
        version, read = _version(a, f"{log}@pub"), _version(a, "published")
    assert len(read) == len(version) == 59715
    assert (version["prev_job"] != -1).sum() > 20000
    for column in ("job", "submit", "wait", "run", "user_id", "prev_job", "think"):
        assert read[column].tolist() == version[column].tolist(), column
    text = out.read_text().splitlines()
    assert any(line.startswith("; Note: Step 2: rule dependencies version 1") for line in text)


@pytest.mark.parametrize("log", [log if log.startswith("KTH") else pytest.param(log, marks=pytest.mark.slow)
                                 for log in STUDY])
def test_the_example_recipes_build_the_deps_version_of_each_log(real, log):
    from wla.archive.clean.recipe import read_recipe

    recipe = read_recipe(ROOT / "schema" / "recipes" / f"{log}-deps.toml")
    assert (recipe.log, recipe.version, [s.rule for s in recipe.steps]) == (log, "deps", ["dependencies"])
    with open_archive(real, write=True) as a:
        result = clean(a, recipe)
        built, original = _version(a, f"{log}@deps"), _version(a, log)
    prev, think = reference(original)
    assert result.jobs == len(original)
    assert built["prev_job"].tolist() == prev.tolist() and built["think"].tolist() == think.tolist()
