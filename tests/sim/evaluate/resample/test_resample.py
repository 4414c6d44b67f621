"""User-level resampling (resampling.md): pools of hand-built logs whose
classes are known, the generation's steps checked on a hand-built log and
on SDSC-SP2, and a resampled workload stored, exported and simulated."""
from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from wla.archive import open as open_archive
from wla.archive.kernel.clock import WEEK, LogClock
from wla.archive.kernel.errors import UsageError
from wla.archive.store.select import log_query
from wla.archive.swf.fields import COLUMNS
from wla.sim.evaluate.resample.generate import ResampleSettings, assemble, plan
from wla.sim.evaluate.resample.pools import DISCARDED, LONG_TERM, RARE, TEMPORARY, Triple, user_pools
from wla.sim.evaluate.resample.triples import parse_triple
from wla.sim.evaluate.resample.workload import read_source, resample_source

LOG = "SDSC-SP2-1998-4.2-cln"


def weeks(*w: float) -> list[float]:
    return [x * WEEK for x in w]


def test_each_user_in_its_class():
    """Log from week 0.1 to week 30. Long-term: at least 12 weeks from first
    to last submit (user 5 exactly 12). Discarded: temporary and wholly
    within 4 weeks of the start (user 3, last submit at week 4.1 = start + 4)
    or of the end (user 4, from week 26 = end - 4)."""
    rows = [(1, 0.1), (1, 20.1), (2, 5.1), (2, 8.1), (3, 0.2), (3, 4.1), (4, 26.0), (4, 30.0),
            (5, 10.0), (5, 22.0), (6, 4.2), (6, 7.0), (-1, 15.0), (7, 25.9), (7, 27.0)]
    user = np.array([u for u, _ in rows])
    submit = np.array(weeks(*(w for _, w in rows)))
    p = user_pools(submit, user)
    kinds = dict(zip(p.user.tolist(), p.kind.tolist()))
    assert kinds == {1: LONG_TERM, 2: TEMPORARY, 3: DISCARDED, 4: DISCARDED, 5: LONG_TERM, 6: TEMPORARY,
                     7: TEMPORARY}
    s = p.summary()
    assert s["classes"] == {"long-term": {"users": 2, "jobs": 4}, "temporary": {"users": 3, "jobs": 6},
                            "discarded": {"users": 2, "jobs": 4}, "rare-behavior": {"users": 0, "jobs": 0}}
    assert s["unknown_user_jobs"] == 1 and s["weeks"] == 31
    # active weeks of the temporary users (discarded counted): 2: 5..8 (4), 3: 0..4 (5), 4: 26..30 (5),
    # 6: 4..7 (4), 7: 25..27 (3); 21 over 31 weeks. Arrivals after week 0: users 2, 4, 6, 7 over 30 weeks.
    assert s["temporary_active_per_week"] == pytest.approx(21 / 31, rel=1e-12)
    assert s["temporary_arrivals_per_week"] == pytest.approx(4 / 30, rel=1e-12)
    # the thresholds are options: at 20 weeks user 5 (12 weeks) is temporary
    assert dict(zip(*[a.tolist() for a in (lambda q: (q.user, q.kind))(
        user_pools(submit, user, long_term_weeks=20))]))[5] == TEMPORARY


def test_rare_behavior_triples_take_jobs_out_of_their_user():
    """User 1's jobs of weeks 3 to 5 become a pseudo-user; the rest stays
    user 1's (still long-term); a triple that covers nothing adds no user."""
    user = np.array([1, 1, 1, 1, 1, 2])
    submit = np.array(weeks(0.5, 3.5, 4.0, 5.5, 20.0, 10.0))
    p = user_pools(submit, user, [Triple(1, 3 * WEEK, 5 * WEEK), Triple(2, 0, 1.0)])
    assert p.kind.tolist() == [LONG_TERM, TEMPORARY, RARE]
    assert sorted(submit[p.jobs_of(2)] / WEEK) == [3.5, 4.0]
    assert p.summary()["classes"]["rare-behavior"] == {"users": 1, "jobs": 2}


def test_triples_take_seconds_or_local_dates():
    clock = LogClock(893_980_800, "Europe/Berlin")  # 1998-05-01 00:00 UTC
    assert parse_triple("7:0:3600") == Triple(7, 0.0, 3600.0)
    t = parse_triple("7:1998-05-01:1998-05-01", clock)
    assert t.begin == -2 * 3600 and t.end == pytest.approx(22 * 3600, abs=1e-6) and t.end < 22 * 3600
    assert parse_triple("7:1998-05-01 02:00:1998-05-02 00:30", clock) == Triple(7, 0.0, 22 * 3600 + 1800)
    for bad in ("7:5", "x:1:2", "7:10:5"):
        with pytest.raises(UsageError):
            parse_triple(bad, clock)


def one_long_term_user() -> pd.DataFrame:
    """User 1: jobs in weeks 0 and 12 (A = 12 weeks); user 2 (temporary) in
    week 39 sets the log's length, L = 39 weeks: user 1 restarts 27 weeks
    after the week of its last job."""
    rows = [(1, 1, 100.0), (2, 1, 12 * WEEK + 100), (3, 2, 39 * WEEK + 5)]
    frame = pd.DataFrame({c: -1 for c in COLUMNS}, index=range(len(rows)))
    frame["job"] = [r[0] for r in rows]
    frame["user_id"] = [r[1] for r in rows]
    frame["submit"] = [r[2] for r in rows]
    frame["run"], frame["procs"] = 10.0, 1
    frame.insert(0, "line_no", range(1, len(rows) + 1))
    return frame


@pytest.mark.parametrize("seed", range(6))
def test_a_long_term_user_restarts_after_the_log_length_minus_its_activity(seed):
    jobs = one_long_term_user()
    pools = user_pools(jobs.submit.to_numpy(), jobs.user_id.to_numpy())
    assert plan(pools, jobs.submit.to_numpy(), ResampleSettings(temporary=0, arrival_rate=0)).figures[
        "weeks"] == 39  # by default the log's span, 38.99 weeks, in whole weeks
    p = plan(pools, jobs.submit.to_numpy(), ResampleSettings(temporary=0, arrival_rate=0, seed=seed, weeks=40))
    times = p.submit[p.instance_user[p.instance] == 1]
    assert np.all((times - 100) % WEEK == 0)  # whole weeks: day and time kept
    source_week = np.floor(jobs.submit.to_numpy()[p.source] / WEEK)
    # whatever week it started at, the first job of a pass comes 27 weeks after the last of the one before
    passes = np.flatnonzero(source_week[:-1] > source_week[1:])
    assert len(passes) >= 1 and p.figures["weeks"] == 40
    for i in passes:
        assert source_week[i] == 12 and source_week[i + 1] == 0
        assert p.submit[i + 1] - p.submit[i] == 27 * WEEK
    assert times.max() < 40 * WEEK


@pytest.fixture(scope="module")
def sp2(sp2_archive_file):
    with open_archive(sp2_archive_file) as a:
        return read_source(a, LOG)


def test_same_seed_same_workload_other_seed_another(sp2):
    one = resample_source(sp2, ResampleSettings(seed=11))
    again = resample_source(sp2, ResampleSettings(seed=11))
    pd.testing.assert_frame_equal(one.jobs, again.jobs)
    assert np.array_equal(one.source_line, again.source_line)
    other = resample_source(sp2, ResampleSettings(seed=12))
    assert len(other.jobs) != len(one.jobs) or not one.jobs.equals(other.jobs)


def test_every_job_is_a_job_of_the_log_moved_by_whole_weeks(sp2):
    r = resample_source(sp2, ResampleSettings(seed=4))
    src = sp2.jobs.set_index("line_no").loc[r.source_line].reset_index(drop=True)
    assert np.all((r.jobs.submit - src.submit) % WEEK == 0)  # day of week and time of day kept
    same = [c for c in COLUMNS if c not in ("job", "submit", "user_id", "prev_job", "think")]
    pd.testing.assert_frame_equal(r.jobs[same], src[same])
    assert r.jobs.job.tolist() == list(range(1, len(r.jobs) + 1))
    assert r.jobs.submit.is_monotonic_increasing and r.jobs.submit.min() >= 0
    assert r.jobs.submit.max() < r.parameters["figures"]["weeks"] * WEEK
    assert np.array_equal(r.source_user, src.user_id.to_numpy())
    # one user number per (source user, replica), numbered in order of first appearance
    ident = pd.DataFrame({"u": r.jobs.user_id, "s": r.source_user, "r": r.replica})
    assert (ident.groupby("u")[["s", "r"]].nunique() == 1).all().all()
    assert ident.drop_duplicates(["s", "r"]).u.tolist() == list(range(1, ident.u.max() + 1))


def test_the_steps_on_sdsc_sp2(sp2):
    pools = sp2.pools
    submit = sp2.jobs.submit.to_numpy()
    longs = set(pools.user[pools.kind == LONG_TERM].tolist())
    p = plan(pools, submit, ResampleSettings(seed=2))
    f = p.figures
    assert f["long_term_users"] == len(longs) == f["distinct_long_term_users"]
    assert f["weeks"] == 104  # the log's 104.19 weeks from first submit to last
    # never the same user twice among one week's arrivals
    first_week = pd.DataFrame({"inst": p.instance, "t": p.submit}).groupby("inst").t.min() // WEEK
    arrivals = first_week[first_week > 0]
    owners = pd.Series(p.instance_user[arrivals.index], index=arrivals.index)
    assert not pd.DataFrame({"w": arrivals, "u": owners}).duplicated().any()
    # load 2: every long-term user twice, replicas half its activity apart
    p2 = plan(pools, submit, ResampleSettings(seed=2, load=2.0))
    assert p2.figures["long_term_users"] == 2 * len(longs) and p2.figures["distinct_long_term_users"] == len(longs)
    reps = pd.Series(p2.instance_replica[:2 * len(longs)]).value_counts()
    assert set(reps.index) == {0, 1} and (reps == len(longs)).all()


def test_arrivals_and_rare_behavior_users_come_at_the_asked_rates(sp2_archive_file):
    with open_archive(sp2_archive_file) as a:
        src = read_source(a, LOG, rb_from_flurries=True)
    assert (src.pools.kind == RARE).sum() > 10
    n = 1500
    p = plan(src.pools, src.jobs.submit.to_numpy(), ResampleSettings(weeks=n, seed=9, rb_npw=0.5))
    rate = src.pools.arrival_rate
    # binomial weekly counts: over 1,499 weeks the means are within 4 standard errors
    total = p.figures["temporary_arrivals"] + p.figures["rare_behavior_arrivals"]
    assert abs(total / (n - 1) - rate) < 4 * np.sqrt(rate / (n - 1))
    assert abs(p.figures["rare_behavior_arrivals"] / (n - 1) - 0.5) < 4 * np.sqrt(0.5 / (n - 1))
    assert p.instance_rare.sum() == p.figures["rare_behavior_arrivals"]
    with pytest.raises(UsageError, match="exceeds the temporary arrival rate"):
        plan(src.pools, src.jobs.submit.to_numpy(), ResampleSettings(rb_npw=rate + 1))


@pytest.mark.slow  # seconds of a worker; CI's slow step runs it
def test_a_workload_of_default_length_holds_the_logs_jobs_on_average(sp2):
    """Over 200 seeds the mean job count is within 3 standard errors of the
    log's 59,715; at the 106 calendar weeks the log touches it is 4% more."""
    pools, submit = sp2.pools, sp2.jobs.submit.to_numpy()
    assert (pools.log_last - pools.log_first) / WEEK == pytest.approx(104.19, abs=0.01)
    for weeks, near in ((None, True), (106, False)):
        n = np.array([len(plan(pools, submit, ResampleSettings(seed=s, weeks=weeks)).source) for s in range(200)])
        gap = abs(n.mean() - len(submit)) / (n.std(ddof=1) / np.sqrt(len(n)))
        assert (gap < 3) == near, (weeks, n.mean(), gap)


@pytest.mark.slow
def test_the_initial_temporary_users_are_drawn_around_the_weekly_average(sp2):
    """Binomial over the temporary pool with mean load x 7.05: over 400
    seeds the mean is within 4 standard errors and the variance is n p (1 - p)
    within 25%; a hundred-fold load is refused for want of users."""
    pools, submit = sp2.pools, sp2.jobs.submit.to_numpy()
    temps = int((pools.kind == TEMPORARY).sum())
    for load in (1.0, 1.5):
        want = load * pools.initial_temporary
        got = np.array([plan(pools, submit, ResampleSettings(seed=s, load=load, weeks=2)).figures[
            "initial_temporary_users"] for s in range(400)])
        var = want * (1 - want / temps)
        assert abs(got.mean() - want) < 4 * np.sqrt(var / len(got)), (load, got.mean(), want)
        assert got.var(ddof=1) == pytest.approx(var, rel=0.25)
        assert len(set(got.tolist())) > 5
    with pytest.raises(UsageError, match="initial temporary users asked for"):
        plan(pools, submit, ResampleSettings(temporary=temps + 1))


def test_a_preceding_job_is_kept_only_within_its_pass():
    jobs = one_long_term_user()
    jobs.loc[1, "prev_job"], jobs.loc[1, "think"] = 1, 50.0
    pools = user_pools(jobs.submit.to_numpy(), jobs.user_id.to_numpy())
    for seed in range(8):
        p = plan(pools, jobs.submit.to_numpy(), ResampleSettings(temporary=0, arrival_rate=0, seed=seed))
        out = assemble(jobs, p)
        for i in np.flatnonzero(out.prev_job > 0):
            j = out.prev_job[i] - 1
            assert p.segment[j] == p.segment[i] and out.think[i] == 50.0
        took_both = [s for s in set(p.segment) if (p.segment == s).sum() == 2]
        assert (out.prev_job > 0).sum() == len(took_both)


def test_stored_exported_and_simulated(sp2_archive_file, tmp_path):
    from cli_run import wla
    from wla.sim import from_archive, simulate
    from wla.sim.evaluate.resample.store import store_resampled

    path = tmp_path / "a.duckdb"
    path.write_bytes(sp2_archive_file.read_bytes())
    with open_archive(path, write=True) as a:
        src = read_source(a, LOG, rb_from_flurries=True)
        r = resample_source(src, ResampleSettings(seed=5, rb_npw=0.25))
        store_resampled(a, r, "sp2-r5")
        with pytest.raises(Exception, match="already holds a log named 'sp2-r5'"):
            store_resampled(a, r, "sp2-r5")
    with open_archive(path) as a:
        kinds = a.df("SELECT kind, original FROM log_kinds WHERE name = 'sp2-r5'")
        assert kinds.iloc[0].tolist() == ["resampled", LOG]
        stored = a.df(log_query(a, "sp2-r5"))
        pd.testing.assert_frame_equal(stored[list(COLUMNS)], r.jobs, check_dtype=False)
        rows = a.df("SELECT * FROM resampled_jobs ORDER BY job")
        assert rows.rare.sum() == r.rare.sum() > 0 and np.array_equal(rows.source_line, r.source_line)
        w = from_archive(a, "sp2-r5")
    assert w.excluded.sum() == r.workload().excluded.sum() > 0
    assert simulate(w).metrics == simulate(r.workload()).metrics
    out = tmp_path / "r.swf.gz"
    done = wla("export", "sp2-r5", "-o", out, archive=path)
    assert done.status == 0, done.err
    text = gzip.decompress(out.read_bytes()).decode()
    assert f"; Note: A resampled workload of {LOG}, made by wla" in text
    assert "seed=5" in text and "rb_npw=0.25" in text and "; MaxProcs: 128" in text
    assert len([x for x in text.splitlines() if not x.startswith(";")]) == len(r.jobs)


def test_phase_cycle_starts_a_long_term_user_anywhere_in_its_cycle():
    """User 1 is active 13 weeks (0 to 12) and then waits 27: a cycle of 39
    weeks. With phase 'cycle' it is in its activity at week 0 in 13 of the
    39 offsets, else its next pass begins when the gap ends; the 27-week
    gap between passes holds either way."""
    jobs = one_long_term_user()
    pools = user_pools(jobs.submit.to_numpy(), jobs.user_id.to_numpy())
    in_activity = 0
    for seed in range(120):
        p = plan(pools, jobs.submit.to_numpy(),
                 ResampleSettings(temporary=0, arrival_rate=0, seed=seed, phase="cycle"))
        source_week = np.floor(jobs.submit.to_numpy()[p.source] / WEEK)
        first = p.submit[0] // WEEK
        if source_week[0] == 12 or first == 0:  # started inside its activity
            in_activity += 1
        else:  # started in its gap: its first pass is whole, and begins after week 0
            assert source_week[0] == 0 and 1 <= first <= 26
        for i in np.flatnonzero(source_week[:-1] > source_week[1:]):
            assert p.submit[i + 1] - p.submit[i] == 27 * WEEK
    # 13 of 39 offsets: a third; 120 seeds put it within 4 standard deviations
    assert abs(in_activity / 120 - 1 / 3) < 4 * np.sqrt(1 / 3 * 2 / 3 / 120)
    with pytest.raises(UsageError, match="^phase is one of activity, cycle"):
        plan(pools, jobs.submit.to_numpy(), ResampleSettings(phase="never"))


def test_rare_behavior_jobs_are_left_out_of_throughput_and_the_measured_utilization(sp2_archive_file):
    """The resampling paper (6.4) counts only the other jobs in every
    performance result: throughput and the measured jobs' utilization are
    recomputed here from the schedule without the rare-behavior jobs; the
    machine's utilization keeps them."""
    from wla.sim import simulate

    with open_archive(sp2_archive_file) as a:
        src = read_source(a, LOG, rb_from_flurries=True)
    r = resample_source(src, ResampleSettings(seed=5, rb_npw=0.25, weeks=40))
    res = simulate(r.workload())
    rare = r.rare[res.job - 1]
    assert rare.sum() > 100
    lo, hi = res.metrics["interval"]
    work = np.clip(np.minimum(res.end, hi) - np.maximum(res.start, lo), 0, None) * res.procs
    ends = (res.end >= lo) & (res.end <= hi)
    span = (hi - lo) * src.P
    assert res.metrics["utilization"] == pytest.approx(work.sum() / span, rel=1e-12)
    assert res.metrics["utilization_measured"] == pytest.approx(work[~rare].sum() / span, rel=1e-12)
    assert res.metrics["throughput_per_hour"] == pytest.approx((ends & ~rare).sum() / (hi - lo) * 3600, rel=1e-12)
    assert res.metrics["throughput_per_hour"] < (ends.sum() - 100) / (hi - lo) * 3600
    assert res.metrics["measured_jobs"] == res.counts["measured"] == int((res.measured & ~rare).sum())


def test_a_name_the_archive_holds_is_refused_before_the_log_is_read(sp2_archive_file, tmp_path, monkeypatch):
    """resample_log checks the name first: a taken name costs no resampling."""
    from wla.archive.kernel.errors import LogExists
    from wla.sim.evaluate.resample import store

    def never(*args, **kw):
        raise AssertionError("the log was read before the name was checked")

    monkeypatch.setattr(store, "read_source", never)
    path = tmp_path / "a.duckdb"
    path.write_bytes(sp2_archive_file.read_bytes())
    with open_archive(path, write=True) as a:
        with pytest.raises(LogExists, match=f"already holds a log named '{LOG}'; choose another name"):
            store.resample_log(a, LOG, name=LOG)
