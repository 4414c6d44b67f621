"""Feedback on whole real logs: each log's version with dependencies (the
example recipes, the dependencies rule's defaults) simulated by the core
and by the reference, arrival for arrival and start for start; on a machine
where nothing waits, every job arrives at its submit time."""
from __future__ import annotations

import numpy as np
import pytest
from real_logs import ROOT, data_dir
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import read_recipe
from wla.archive.store.ingest import ingest
from wla.archive.store.select import log_arrays
from wla.sim import from_archive, simulate
from wla.sim.reference import reference_schedule
from wla.sim.schedule import schedule

LOGS = ("KTH-SP2-1996-2.1-cln", "SDSC-SP2-1998-4.2-cln", "CTC-SP2-1996-3.1-cln")


class Logs(dict):
    """Each log's workloads, read when first asked for: the default run
    needs two of the three logs."""

    def __init__(self, folder):
        super().__init__()
        self.folder = folder

    def __missing__(self, key: str):
        log = key.split(" ")[0]
        path = self.folder / f"{log}.duckdb"
        with open_archive(path, write=True) as a:
            ingest(a, [data_dir() / f"{log}.swf.gz"])
            clean(a, read_recipe(ROOT / "schema" / "recipes" / f"{log}-deps.toml"))
        with open_archive(path) as a:
            self.update({log: from_archive(a, f"{log}@deps"), f"{log} original": from_archive(a, log),
                         f"{log} fields": log_arrays(a, f"{log}@deps")})
        return self[key]


@pytest.fixture(scope="module")
def deps(tmp_path_factory):
    return Logs(tmp_path_factory.mktemp("feedback"))


QUICK_LOGS = [pytest.param(log, marks=pytest.mark.slow) if log.startswith("CTC") else log for log in LOGS]


CASES = [(log, policy) for log in LOGS for policy in ("fcfs", "easy", "conservative")]


# KTH-SP2 under each policy and SDSC-SP2 under EASY in the default run; the
# other five (about 30 s of the reference) in the slow step
QUICK = {("KTH-SP2-1996-2.1-cln", p) for p in ("fcfs", "easy", "conservative")} | {("SDSC-SP2-1998-4.2-cln", "easy")}


@pytest.mark.parametrize("log, policy", [c if c in QUICK else pytest.param(*c, marks=pytest.mark.slow) for c in CASES])
def test_core_equals_reference_on_a_whole_log(deps, log, policy):
    w = deps[log]
    args = (w.submit, w.run, w.procs, w.estimate, w.P, policy)
    fast = schedule(*args, pred=w.prev, think=w.think)
    start, arrive = reference_schedule(*args, pred=w.prev, think=w.think)
    assert np.array_equal(start, fast.start)
    assert np.array_equal(arrive, fast.arrive)
    late = fast.arrive > w.submit
    # the log is busy enough that feedback holds thousands of jobs back, and
    # only jobs that wait for another can be held
    assert late.sum() > 1000
    assert (w.prev[late] >= 0).all()


@pytest.mark.parametrize("log", QUICK_LOGS)
def test_where_nothing_waits_every_job_arrives_at_its_submit_time(deps, log):
    w = deps[log]
    wide = schedule(w.submit, w.run, w.procs, w.estimate, int(w.procs.sum()), "easy", pred=w.prev, think=w.think)
    assert np.array_equal(wide.arrive, w.submit)
    assert np.array_equal(wide.start, w.submit)


@pytest.mark.parametrize("log", QUICK_LOGS)
def test_a_version_with_dependencies_replays_as_its_log_without_feedback(deps, log):
    w, original = deps[log], deps[f"{log} original"]
    assert np.array_equal(w.submit, original.submit) and np.array_equal(w.run, original.run)
    plain, fed = simulate(w), simulate(w, feedback=True, check=True)
    assert np.array_equal(plain.start, simulate(original).start)
    assert plain.settings["feedback"] is False and fed.settings["feedback"] is True
    # linked: the simulated jobs whose field 17 names another simulated job
    # (job numbers are unique in these logs), counted from the stored fields
    fields = deps[f"{log} fields"]
    assert len(np.unique(fields["job"])) == len(fields["job"])
    prev_of = dict(zip(fields["job"].tolist(), fields["prev_job"].tolist()))
    simulated = set(w.job.tolist())
    wanted = [prev_of[j] for j in w.job.tolist() if prev_of[j] != -1]
    linked = sum(p in simulated for p in wanted)
    assert fed.counts["dependencies"] == {"with a preceding job": linked,
                                          "preceding job not simulated": len(wanted) - linked}
    assert fed.counts["arrived_late"] == int((fed.submit > fed.trace_submit).sum()) > 0


def test_shaken_interarrivals_move_the_floors_of_the_jobs_that_wait(deps):
    """Shaking the interarrival times under feedback: each run is its
    shaken workload simulated with feedback, jobs waiting for none arrive at
    their shaken submit time, the others no earlier."""
    from wla.sim.evaluate import shake
    from wla.sim.evaluate.settings import ShakeSettings
    from wla.sim.evaluate.summary import metric_values

    w = deps["KTH-SP2-1996-2.1-cln"]
    result = shake(w, ShakeSettings(runs=2, seed=4), feedback=True, workers=1)
    assert result.settings["feedback"] is True
    shaking = ShakeSettings(runs=2, seed=4).shaking()
    assert shaking.attribute == "interarrival"
    for run in (1, 2):
        shaken = shaking.workload(w, run)
        assert not np.array_equal(shaken.submit, w.submit) and np.array_equal(shaken.prev, w.prev)
        r = simulate(shaken, feedback=True, seed=4, check=True)
        assert np.array_equal(r.trace_submit, shaken.submit)
        alone = shaken.prev < 0
        assert np.array_equal(r.submit[alone], shaken.submit[alone])
        assert (r.submit >= shaken.submit).all() and (r.submit > shaken.submit).sum() > 1000
        assert np.array_equal(result.values[run], metric_values(r.metrics), equal_nan=True)
