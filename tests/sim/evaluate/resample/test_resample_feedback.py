"""Resampled workloads keep their users' dependencies (fields 17/18,
renumbered with the jobs), and every study that simulates them takes
feedback: validate, a resampled sweep, a comparison. On KTH-SP2's version
with dependencies (the example recipe)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from cli_run import wla
from real_logs import ROOT, data_dir
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import read_recipe
from wla.archive.store.ingest import ingest
from wla.sim import from_archive, simulate
from wla.sim.evaluate.resample.settings import ResampleSettings
from wla.sim.evaluate.resample.study import run_seed
from wla.sim.evaluate.resample.workload import read_source, resample_source
from wla.sim.evaluate.validate import validate
from wla.sim.settings import SimSettings

LOG = "KTH-SP2-1996-2.1-cln"
DEPS = f"{LOG}@deps"


@pytest.fixture(scope="module")
def kth(tmp_path_factory):
    path = tmp_path_factory.mktemp("kth-deps") / "a.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [data_dir() / f"{LOG}.swf.gz"])
        clean(a, read_recipe(ROOT / "schema" / "recipes" / f"{LOG}-deps.toml"))
    return path


@pytest.fixture(scope="module")
def source(kth):
    with open_archive(kth) as a:
        return read_source(a, DEPS)


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_each_kept_dependency_is_the_source_jobs_own_renumbered(source, seed):
    r = resample_source(source, ResampleSettings(seed=seed))
    jobs = r.jobs
    src = source.jobs.set_index("job")
    assert jobs["job"].tolist() == list(range(1, len(jobs) + 1))  # renumbered in submit order
    linked = np.flatnonzero(jobs["prev_job"].to_numpy() >= 0)
    assert len(linked) > 0.25 * len(jobs)  # the source has 39% with a predecessor; passes cut a few
    for i in linked:
        k = int(jobs["prev_job"].iloc[i]) - 1
        # the preceding job is the copy of the source job's own preceding job,
        # from the same copy of the same user, and comes before it
        assert r.source_job[k] == src.loc[r.source_job[i], "prev_job"]
        assert (r.source_user[k], r.replica[k]) == (r.source_user[i], r.replica[i])
        assert jobs["user_id"].iloc[k] == jobs["user_id"].iloc[i]
        assert jobs["submit"].iloc[k] <= jobs["submit"].iloc[i]
        assert jobs["think"].iloc[i] == src.loc[r.source_job[i], "think"]
    # and shifted by whole weeks with its job: the gap to it is the source's
    gaps = jobs["submit"].to_numpy()[linked] - jobs["submit"].to_numpy()[jobs["prev_job"].to_numpy()[linked] - 1]
    src_gaps = (src.loc[r.source_job[linked], "submit"].to_numpy()
                - src.loc[src.loc[r.source_job[linked], "prev_job"].to_numpy(), "submit"].to_numpy())
    assert np.array_equal(gaps, src_gaps)


def test_a_resampled_workload_simulates_with_feedback(source):
    w = resample_source(source, ResampleSettings(seed=3)).workload()
    fed = simulate(w, feedback=True, check=True)
    assert fed.counts["dependencies"]["with a preceding job"] == int((w.prev >= 0).sum()) > 0
    assert fed.counts["arrived_late"] > 0
    assert fed.metrics["wait"]["mean"] != simulate(w).metrics["wait"]["mean"]


def test_validate_simulates_the_log_and_each_workload_with_feedback(kth, source):
    result = validate(source, runs=2, seed=5, workers=1, sim=SimSettings(feedback=True))
    assert result.settings["simulate"]["feedback"] is True
    columns = list(result.columns)
    wait = columns.index("wait_mean")
    with open_archive(kth) as a:
        log = simulate(from_archive(a, DEPS), feedback=True, seed=5)
    assert result.values[0, wait] == log.metrics["wait"]["mean"]
    for run in (1, 2):
        w = resample_source(source, ResampleSettings(seed=run_seed(5, run))).workload()
        assert result.values[run, wait] == simulate(w, feedback=True, seed=5).metrics["wait"]["mean"]


def test_the_commands_take_feedback_and_record_it(kth):
    v = wla("validate", DEPS, "--runs", "1", "--feedback", "--json", "--workers", "1", archive=kth)
    assert v.status == 0, v.err
    assert json.loads(v.out)["settings"]["simulate"]["feedback"] is True
    s = wla("sweep", DEPS, "--grid", "load=1.0", "--runs", "1", "--resample", "--feedback", "--workers", "1",
            "--json", archive=kth)
    assert s.status == 0, s.err
    assert json.loads(s.out)["settings"]["simulate"]["feedback"] is True
    c = wla("compare", DEPS, "--a", "feedback=false", "--b", "feedback=true", "--runs", "2", "--workers", "1",
            "--json", archive=kth)
    assert c.status == 0, c.err
    sides = json.loads(c.out)["configurations"]
    assert [side["options"]["feedback"] for side in sides] == [False, True]
    bad = wla("compare", DEPS, "--a", "feedback=maybe", "--runs", "2", archive=kth)
    assert "feedback='maybe': true or false" in bad.one_error_line()
