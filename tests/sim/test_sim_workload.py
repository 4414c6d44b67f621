"""Workloads taken from real logs, and what simulate() reports on them:
every count and array checked against SQL over the raw jobs, every metric
recomputed with pandas from the per-job schedule."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from made_jobs import make_jobs
from wla.archive.kernel.errors import UsageError
from wla.archive.store.select import log_arrays, log_query
from wla.sim import from_archive, from_frame, simulate
from wla.sim.workload import REASONS

SDSC = "SDSC-SP2-1998-4.2-cln"
KTH = "KTH-SP2-1996-2.1-cln"
BLUE = "SDSC-BLUE-2000-4.2-cln"
RTOL = 1e-12

# The raw jobs of a log with, for each, the first reason it cannot be
# simulated (NULL when it can), its width and its estimate, all by SQL.
RAW = """
SELECT j.line_no, j.job, j.submit, j.run, j.procs, j.req_procs, j.req_time, j.user_id,
       CASE WHEN j.procs > 0 THEN j.procs ELSE j.req_procs END AS width,
       CASE WHEN j.req_time > 0 THEN j.req_time ELSE j.run END AS estimate,
       CASE WHEN j.run <= 0 THEN 'unknown or zero run time'
            WHEN j.procs <= 0 AND j.req_procs <= 0 THEN 'unknown processors'
            WHEN j.submit < 0 THEN 'unknown or negative submit time'
            WHEN (CASE WHEN j.procs > 0 THEN j.procs ELSE j.req_procs END) > coalesce(?, l.machine_size)
                THEN 'more processors than the machine'
       END AS reason
FROM jobs AS j JOIN logs AS l USING (log_id)
WHERE l.name = ?
ORDER BY j.line_no
"""


def _raw(archive, log: str, procs: int | None = None) -> pd.DataFrame:
    return archive.con.execute(RAW, [procs, log]).df()


def _kept(archive, log: str, procs: int | None = None) -> pd.DataFrame:
    raw = _raw(archive, log, procs)
    return raw[raw.reason.isna()].reset_index(drop=True)


def _reason_counts(raw: pd.DataFrame) -> dict[str, int]:
    return {r: int((raw.reason == r).sum()) for r in REASONS}


def _log_row(archive, log: str) -> dict:
    return archive.con.execute(
        "SELECT jobs, machine_size, machine_size_source FROM logs WHERE name = ?", [log]).df().iloc[0].to_dict()


def _assert_same_jobs(w, kept: pd.DataFrame) -> None:
    assert np.array_equal(w.job, kept.job.to_numpy())
    assert np.array_equal(w.submit, kept.submit.to_numpy(dtype=float))
    assert np.array_equal(w.run, kept.run.to_numpy(dtype=float))
    assert np.array_equal(w.procs, kept.width.to_numpy(dtype=np.int64))
    assert np.array_equal(w.estimate, kept.estimate.to_numpy(dtype=float))
    assert np.array_equal(w.user, kept.user_id.to_numpy(dtype=np.int64))


# -- from_archive: a log ----------------------------------------------------------


@pytest.mark.parametrize("log", [KTH, "LANL-CM5-1994-4.1-cln"])
def test_a_whole_log_read_as_arrays_is_log_query_read_by_pandas(real_archive, log):
    """LOG_JOBS, the constant text a whole log is read with, gives the
    columns and rows of log_select's tree."""
    arrays = log_arrays(real_archive, log)
    frame = real_archive.df(log_query(real_archive, log))
    assert list(arrays) == list(frame.columns)
    for name in frame.columns:
        assert np.array_equal(arrays[name], frame[name].to_numpy()), name



@pytest.mark.parametrize("log", [SDSC, "CTC-SP2-1996-3.1-cln", KTH, "LANL-CM5-1994-4.1-cln", BLUE])
def test_a_log_gives_its_jobs_and_counts_what_it_leaves_out(real_archive, log):
    raw = _raw(real_archive, log)
    kept = raw[raw.reason.isna()].reset_index(drop=True)
    row = _log_row(real_archive, log)
    w = from_archive(real_archive, log)
    assert w.total == len(raw) == row["jobs"]
    assert w.P == row["machine_size"]
    assert w.not_simulated == _reason_counts(raw)
    assert len(w) + sum(w.not_simulated.values()) == w.total
    assert w.source == {"log": log, "procs_from": row["machine_size_source"], "exclude": None}
    _assert_same_jobs(w, kept)
    assert not w.excluded.any()


def test_the_real_logs_exercise_each_default_rule(real_archive):
    """The logs above are chosen so that every rule has work to do."""
    sdsc, kth, blue = _raw(real_archive, SDSC), _raw(real_archive, KTH), _raw(real_archive, BLUE)
    lanl = _raw(real_archive, "LANL-CM5-1994-4.1-cln")
    assert (sdsc.reason == "unknown or zero run time").sum() > 5000
    assert ((sdsc.req_time <= 0) & sdsc.reason.isna()).sum() > 0  # estimate from the run time
    assert ((blue.procs <= 0) & (blue.req_procs > 0) & blue.reason.isna()).sum() > 0  # width from field 8
    assert (kth.reason == "unknown processors").sum() == 1
    assert (lanl.reason == "unknown processors").sum() == 3


def test_a_smaller_machine_leaves_out_the_wider_jobs(real_archive):
    raw = _raw(real_archive, SDSC, procs=64)
    wide = real_archive.con.execute(
        "SELECT count(*) FROM jobs JOIN logs USING (log_id) WHERE name = ? AND run > 0 AND submit >= 0"
        " AND (procs > 0 OR req_procs > 0) AND (CASE WHEN procs > 0 THEN procs ELSE req_procs END) > 64",
        [SDSC]).fetchone()[0]
    w = from_archive(real_archive, SDSC, procs=64)
    assert w.P == 64 and w.source["procs_from"] == "given"
    assert w.not_simulated["more processors than the machine"] == wide > 0
    assert w.not_simulated == _reason_counts(raw)
    assert w.procs.max() <= 64
    _assert_same_jobs(w, raw[raw.reason.isna()].reset_index(drop=True))
    full = from_archive(real_archive, SDSC)
    assert len(full) - len(w) == wide


def test_exclude_marks_a_users_jobs_which_are_still_simulated(real_archive):
    kept = _kept(real_archive, SDSC)
    n24 = real_archive.con.execute(
        "SELECT count(*) FROM jobs JOIN logs USING (log_id) WHERE name = ? AND user_id = 24 AND run > 0",
        [SDSC]).fetchone()[0]
    w = from_archive(real_archive, SDSC, exclude="user=24")
    assert w.excluded.sum() == n24 > 0
    assert np.array_equal(w.job[w.excluded], kept.job[kept.user_id == 24].to_numpy())
    assert len(w) == len(kept)  # excluded jobs stay in the workload
    result = simulate(w)
    assert np.isfinite(result.start[w.excluded]).all()
    assert not result.measured[w.excluded].any()
    assert result.settings["exclude"] == "user=24"
    assert "exclude" not in result.source


# -- from_archive: a query ------------------------------------------------------------


def test_a_query_over_typed_jobs_gives_the_same_workload_as_the_log(real_archive):
    query = f"SELECT * FROM typed_jobs WHERE log = '{SDSC}' ORDER BY line_no"
    by_query = from_archive(real_archive, query=query)
    by_log = from_archive(real_archive, SDSC)
    for name in ("job", "submit", "run", "procs", "estimate", "user", "excluded"):
        assert np.array_equal(getattr(by_query, name), getattr(by_log, name)), name
    assert by_query.P == by_log.P == 128
    assert by_query.total == by_log.total
    assert by_query.not_simulated == by_log.not_simulated
    assert by_query.source == {"query": query, "procs_from": "MaxProcs", "exclude": None}


@pytest.mark.parametrize("query", [
    f"SELECT * FROM typed_jobs WHERE log IN ('{SDSC}', '{KTH}')",  # two logs: which machine?
    f"SELECT submit, run, procs FROM typed_jobs WHERE log = '{KTH}'",  # no log column
])
def test_a_query_without_one_log_needs_procs(real_archive, query):
    with pytest.raises(UsageError, match=r"the number of processors \(procs\)"):
        from_archive(real_archive, query=query)
    w = from_archive(real_archive, query=query, procs=400)
    assert w.P == 400 and w.source["procs_from"] == "given"
    n = real_archive.con.execute(f"SELECT count(*) FROM ({query})").fetchone()[0]
    assert w.total == n


def test_a_query_lacking_run_is_refused_by_name(real_archive):
    with pytest.raises(UsageError, match=r"lacks run\b"):
        from_archive(real_archive, query=f"SELECT log, job, submit, procs FROM typed_jobs WHERE log = '{KTH}'")
    with pytest.raises(UsageError, match="procs or req_procs"):
        from_archive(real_archive, query=f"SELECT log, job, submit, run FROM typed_jobs WHERE log = '{KTH}'")


def test_a_log_and_a_query_together_are_refused(real_archive):
    with pytest.raises(UsageError):
        from_archive(real_archive, KTH, query="SELECT * FROM typed_jobs")
    with pytest.raises(UsageError):
        from_archive(real_archive)
    with pytest.raises(UsageError, match="version applies to a log, not to a query"):
        from_archive(real_archive, query="SELECT * FROM typed_jobs", version="v1")


# -- from_frame --------------------------------------------------------------------


def test_from_frame_on_hand_made_jobs():
    # P = 8. Jobs 1..10, one per line:
    #   1 valid: allocated 4 (requested 8 ignored), estimate = req_time 200
    #   2 run unknown                        -> unknown or zero run time
    #   3 run zero                           -> unknown or zero run time
    #   4 allocated and requested unknown    -> unknown processors
    #   5 allocated 0, requested unknown     -> unknown processors
    #   6 submit unknown                     -> unknown or negative submit time
    #   7 requested 16 on 8 processors       -> more processors than the machine
    #   8 valid: allocated 2, no req_time    -> estimate = run 50
    #   9 run, processors and submit unknown -> the first reason: run time
    #  10 valid: allocated unknown, requested 8 (= P), user unknown
    jobs = make_jobs([
        dict(submit=0, run=100, procs=4, req_procs=8, req_time=200, user_id=3),
        dict(submit=1, procs=1, req_time=10, user_id=3),
        dict(submit=2, run=0, procs=1, req_time=10, user_id=3),
        dict(submit=3, run=10, user_id=4),
        dict(submit=4, run=10, procs=0, user_id=4),
        dict(run=10, procs=1, user_id=4),
        dict(submit=6, run=10, req_procs=16, user_id=5),
        dict(submit=7, run=50, procs=2, req_procs=16, user_id=5),
        dict(user_id=6),
        dict(submit=9, run=30, req_procs=8, req_time=60),
    ])
    w = from_frame(jobs, procs=8)
    assert w.job.tolist() == [1, 8, 10]
    assert w.submit.tolist() == [0, 7, 9]
    assert w.run.tolist() == [100, 50, 30]
    assert w.procs.tolist() == [4, 2, 8]
    assert w.estimate.tolist() == [200, 50, 60]
    assert w.user.tolist() == [3, 5, -1]
    assert w.excluded.tolist() == [False, False, False]
    assert w.P == 8 and w.total == 10
    assert w.not_simulated == {
        "unknown or zero run time": 3,
        "unknown processors": 2,
        "unknown or negative submit time": 1,
        "more processors than the machine": 1,
    }

    # A predicate and an `excluded` column both mark jobs; marks on jobs
    # that are not simulated disappear with them.
    marked = jobs.assign(excluded=[False] * 9 + [True])
    w = from_frame(marked, procs=8, exclude="user=5")
    assert w.excluded.tolist() == [False, True, True]

    # On a wider machine job 7 fits.
    w = from_frame(jobs, procs=16)
    assert w.job.tolist() == [1, 7, 8, 10]
    assert w.not_simulated["more processors than the machine"] == 0


def test_from_frame_needs_the_columns_and_a_machine():
    jobs = make_jobs([dict(submit=0, run=10, procs=1)])
    with pytest.raises(UsageError, match=r"the number of processors \(procs\)"):
        from_frame(jobs)
    with pytest.raises(UsageError, match="procs must be a whole number from 1 to"):
        from_frame(jobs, procs=0)
    with pytest.raises(UsageError, match=r"lacks run\b"):
        from_frame(jobs.drop(columns="run"), procs=4)
    with pytest.raises(UsageError, match="procs or req_procs"):
        from_frame(jobs.drop(columns=["procs", "req_procs"]), procs=4)
    only_requested = from_frame(jobs.drop(columns="procs").assign(req_procs=3), procs=4)
    assert only_requested.procs.tolist() == [3]


# -- simulate() ---------------------------------------------------------------------


def test_a_dataframe_and_a_duckdb_relation_give_the_same_schedule(real_archive):
    frame = real_archive.df(log_query(real_archive, KTH))  # raw fields, -1 for unknown
    relation = real_archive.con.sql(f"SELECT * FROM typed_jobs WHERE log = '{KTH}' ORDER BY line_no")  # NULLs
    by_frame = simulate(frame, procs=100)
    by_relation = simulate(relation, procs=100)
    by_log = simulate(from_archive(real_archive, KTH))
    assert len(by_frame.start) == len(_kept(real_archive, KTH))
    assert np.array_equal(by_frame.job, by_relation.job)
    assert np.array_equal(by_frame.start, by_relation.start)
    assert np.array_equal(by_frame.start, by_log.start)
    assert by_frame.counts == by_relation.counts == by_log.counts


def test_a_dataframe_without_procs_is_refused(real_archive):
    frame = real_archive.df(log_query(real_archive, KTH))
    with pytest.raises(UsageError, match=r"the number of processors \(procs\)"):
        simulate(frame)


def test_procs_and_exclude_belong_to_the_workload_once_built(real_archive):
    w = from_archive(real_archive, KTH)
    with pytest.raises(UsageError):
        simulate(w, procs=50)
    with pytest.raises(UsageError):
        simulate(w, exclude="user=1")


def test_load_factor_divides_interarrival_times(real_archive):
    kept = _kept(real_archive, SDSC)
    submit = kept.submit.to_numpy(dtype=float)
    first = submit.min()
    result = simulate(from_archive(real_archive, SDSC), load_factor=2)
    np.testing.assert_allclose(result.submit, first + (submit - first) / 2, rtol=RTOL, atol=0)
    assert result.settings["load_factor"] == 2
    assert (result.start >= result.submit).all()
    assert result.metrics["interval"] == [first, first + (submit.max() - first) / 2]
    plain = simulate(from_archive(real_archive, SDSC))
    assert np.array_equal(plain.submit, submit)


@pytest.mark.parametrize("options", [dict(load_factor=0), dict(load_factor=-1), dict(warmup=1.5),
                                     dict(warmup=-0.1), dict(tau=0), dict(policy="sjf"),
                                     dict(overrun="ignore"), dict(ties="random"), dict(passes="never"),
                                     dict(estimate="last:0"), dict(estimate="badness:-1"),
                                     dict(estimate="foo")])
def test_bad_options_are_refused(real_archive, options):
    w = from_archive(real_archive, KTH)
    with pytest.raises(UsageError):
        simulate(w, **options)


def test_every_default_is_written_into_the_result(real_archive):
    result = simulate(from_archive(real_archive, KTH))
    want = {
        "policy": "easy",
        "estimate": "user",
        "overrun": "truncate",
        "procs": 100,
        "tau": 10,
        "warmup": 0.01,
        "stop_at_last_arrival": True,
        "exclude": None,
        "load_factor": 1,
        "seed": 0,
        "ties": "log",
        "passes": "instant",
        "processors_rule": "allocated (field 5) when positive, else requested (field 8)",
        "estimate_rule": "requested time (field 9) when positive, else the run time",
    }
    assert {k: result.settings.get(k) for k in want} == want
    assert "log order" in result.settings["tie_order"]
    assert "termination" in result.settings["event_order"] and "arrival" in result.settings["event_order"]
    assert result.source == {"log": KTH, "procs_from": "MaxProcs"}
    summary = result.summary()
    assert summary["settings"] == result.settings and summary["source"] == result.source


def test_the_schedule_is_valid(real_archive):
    """Independently of the simulator's own checker: no job starts before it
    is submitted, and at no instant do running jobs hold more than P."""
    result = simulate(from_archive(real_archive, SDSC))
    assert (result.start >= result.submit).all()
    events = pd.concat([
        pd.DataFrame({"t": result.start, "delta": result.procs, "kind": 1}),
        pd.DataFrame({"t": result.end, "delta": -result.procs, "kind": 0}),  # ends first at a tie
    ]).sort_values(["t", "kind"], kind="stable")
    assert events.delta.cumsum().max() <= 128


# -- metrics ----------------------------------------------------------------------------


@pytest.mark.parametrize("options", [
    dict(),
    dict(exclude="user=24"),
    dict(exclude="user=24", warmup=0.05, stop_at_last_arrival=False, tau=60.0),
])
def test_metrics_recomputed_from_the_schedule(real_archive, options):
    options = dict(options)
    exclude = options.pop("exclude", None)
    warmup = options.get("warmup", 0.01)
    stop = options.get("stop_at_last_arrival", True)
    tau = options.get("tau", 10.0)
    kept = _kept(real_archive, SDSC)
    result = simulate(from_archive(real_archive, SDSC, exclude=exclude), **options)
    P = 128

    # The schedule's jobs and what each held: truncated at its estimate.
    held = np.minimum(kept.run.to_numpy(dtype=float), kept.estimate.to_numpy(dtype=float))
    assert np.array_equal(result.job, kept.job.to_numpy())
    assert np.array_equal(result.procs, kept.width.to_numpy())
    assert np.array_equal(result.submit, kept.submit.to_numpy(dtype=float))
    assert np.array_equal(result.run, held)
    np.testing.assert_allclose(result.end, result.start + held, rtol=RTOL, atol=0)

    d = pd.DataFrame({"submit": result.submit, "start": result.start, "end": result.end, "held": held,
                      "procs": kept.width.to_numpy(dtype=float),
                      "excluded": (kept.user_id == 24).to_numpy() if exclude else False})
    n = len(d)
    first, last = d.submit.min(), d.submit.max()

    # Which jobs are measured.
    skip = math.floor(warmup * n)
    warm = np.zeros(n, dtype=bool)
    warm[d.sort_values("submit", kind="stable").index[:skip]] = True  # stable: log order among equal submits
    late = ~warm & (d.end > last).to_numpy() if stop else np.zeros(n, dtype=bool)
    dropped = ~warm & ~late & d.excluded.to_numpy()
    measured = ~warm & ~late & ~dropped
    assert np.array_equal(result.measured, measured)
    assert result.counts["measured"] == measured.sum()
    assert result.counts["not_measured"] == {"warm-up": skip, "ended after the last arrival": late.sum(),
                                             "excluded (predicate or rare behavior)": dropped.sum()}
    assert result.counts["jobs"] == 59715 and result.counts["simulated"] == n
    if exclude:
        assert dropped.sum() > 0
    if stop:
        assert late.sum() > 0

    # Per-job metrics, then their summaries over the measured jobs.
    wait = d.start - d.submit
    response = wait + d.held
    bsld = np.maximum(1.0, response / np.maximum(d.held, tau))
    np.testing.assert_allclose(result.wait, wait, rtol=RTOL, atol=1e-9)
    np.testing.assert_allclose(result.bounded_slowdown, bsld, rtol=RTOL)
    for key, values in (("wait", wait), ("response", response), ("bounded_slowdown", bsld)):
        m = values[measured]
        got = result.metrics[key]
        assert np.isclose(got["mean"], m.mean(), rtol=RTOL, atol=0), key
        assert np.isclose(got["median"], m.median(), rtol=RTOL, atol=0), key
        assert np.isclose(got["p95"], m.quantile(0.95), rtol=RTOL, atol=0), key

    lo, hi = first, (last if stop else d.end.max())
    overlap = (np.minimum(d.end, hi) - np.maximum(d.start, lo)).clip(lower=0)
    utilization = (d.procs * overlap).sum() / (P * (hi - lo))
    # the jobs the predicate leaves out count in the machine's utilization
    # only; warm-up and late jobs are a window's edges, in both
    kept = ~d.excluded.to_numpy()
    used = (d.procs * overlap)[kept].sum() / (P * (hi - lo))
    throughput = ((d.end >= lo) & (d.end <= hi) & kept).sum() / (hi - lo) * 3600
    assert result.metrics["interval"] == [lo, hi]
    assert np.isclose(result.metrics["utilization"], utilization, rtol=RTOL, atol=0)
    assert np.isclose(result.metrics["utilization_measured"], used, rtol=RTOL, atol=0)
    assert (used < utilization) == bool(exclude) and result.metrics["measured_jobs"] == measured.sum()
    assert 0 < utilization <= 1
    assert np.isclose(result.metrics["throughput_per_hour"], throughput, rtol=RTOL, atol=0)
    assert np.isclose(result.metrics["makespan"], d.end.max() - first, rtol=RTOL, atol=0)
