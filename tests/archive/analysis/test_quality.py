"""The quality report against the same counts computed directly with pandas."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from real_logs import data_dir, pandas_log
from wla.archive import open as open_archive
from wla.archive.analysis.quality import THINK, quality
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe
from wla.archive.store.ingest import ingest

LOGS = ["SDSC-SP2-1998-4.2-cln", "HPC2N-2002-2.2-head3170", "LANL-CM5-1994-4.1-cln",
        "KTH-SP2-1996-2.1-cln", "OSC-Clust-2000-3.1-cln", "LLNL-Thunder-2007-1.1-cln"]


def expected(df: pd.DataFrame, size: int) -> dict:
    ok = df.status == 1
    e = {
        "jobs": len(df),
        "missing_submit": (df.submit == -1).sum(),
        "missing_start": (ok & (df.wait == -1)).sum(),  # as Table 2: successful jobs only
        "missing_run": (df.run == -1).sum(),
        "zero_procs": (ok & (df.procs == 0)).sum(),
        "zero_run": (ok & (df.run == 0)).sum(),
        "zero_cpu": (ok & (df.cpu == 0)).sum(),
        "zero_mem": (ok & (df.mem == 0)).sum(),
        "negative_wait": (df.wait < -60).sum(),
        "negative_run": (df.run < -60).sum(),
        "run_over_requested": ((df.run >= 0) & (df.req_time > 0) & (df.run > df.req_time + 60)).sum(),
        "procs_over_requested": ((df.procs >= 0) & (df.req_procs > 0) & (df.procs > df.req_procs)).sum(),
        "mem_over_requested": ((df.mem >= 0) & (df.req_mem > 0) & (df.mem > df.req_mem)).sum(),
        "cpu_over_run": ((df.cpu >= 0) & (df.run >= 0) & (df.cpu > df.run + 60)).sum(),
        "users": df.user[df.user != -1].nunique(),
        "with_predecessor": (df.prev != -1).sum(),
    }
    # utilization: processor-seconds over size x (last - first termination)
    p = np.where(df.procs > 0, df.procs, np.where(df.req_procs > 0, df.req_procs, np.nan))
    ps = np.nansum(np.where(df.run > 0, df.run * p, np.nan))
    known = (df.submit != -1) & (df.run != -1)
    end = (df.submit + df.wait.clip(lower=0) + df.run)[known]
    e["utilization"] = ps / (size * (end.max() - end.min()))
    # usage sweep, written as a loop over sorted instants
    occ = (df.submit != -1) & (df.wait != -1) & (df.run > 0) & ~np.isnan(p)
    starts = (df.submit + df.wait)[occ].to_numpy()
    ends = starts + df.run[occ].to_numpy()
    pp = p[occ.to_numpy()]
    delta: dict[float, float] = {}
    began: set[float] = set()
    for s, t, q in zip(starts, ends, pp):
        delta[s] = delta.get(s, 0) + q
        delta[t] = delta.get(t, 0) - q
        began.add(s)
    level, peak, exc = 0.0, 0.0, 0
    for t in sorted(delta):
        level += delta[t]
        peak = max(peak, level)
        exc += t in began and level > size
    if not occ.any():  # no start time known: nothing can be said of usage
        exc = peak = None
    e["exceptions"], e["ceiling"] = exc, peak
    e["worst_excess"] = None if peak is None else max(peak - size, 0)
    return e


# Two logs by default (one cut short), every one in the slow step.
@pytest.mark.parametrize("name", [n if n in ("SDSC-SP2-1998-4.2-cln", "HPC2N-2002-2.2-head3170")
                                  else pytest.param(n, marks=pytest.mark.slow) for n in LOGS])
def test_quality_counts_match_pandas(real_archive, name):
    size = int(real_archive.df(f"SELECT machine_size FROM logs WHERE name = '{name}'").iloc[0, 0])
    got = quality(real_archive, [name]).iloc[0]
    want = expected(pandas_log(name), size)
    for key, value in want.items():
        if key == "utilization":
            assert got[key] == pytest.approx(value, rel=1e-12), key
        elif value is None:
            assert pd.isna(got[key]), key
        else:
            assert got[key] == value, key


def test_known_exceptions(real_archive):
    """LANL's CM-5 ran jobs in non-dedicated mode: far more than 1,024 processors in use."""
    q = quality(real_archive, ["LANL-CM5-1994-4.1-cln", "HPC2N-2002-2.2-head3170"]).set_index("name")
    assert q.loc["LANL-CM5-1994-4.1-cln", "exceptions"] > 1000
    assert q.loc["HPC2N-2002-2.2-head3170", "exceptions"] == 0
    assert q.loc["HPC2N-2002-2.2-head3170", "ceiling"] <= 240


def test_unknown_machine_size_is_reported(real_archive):
    q = quality(real_archive, ["RICC-2010-2"]).iloc[0]
    assert pd.isna(q.machine_size) and pd.isna(q.exceptions) and pd.isna(q.utilization)
    assert q.ceiling > 0


# -- dependencies (fields 17 and 18) -------------------------------------------------


def _version(a, log: str, steps: str) -> None:
    clean(a, parse_recipe(f'log = "{log}"\nversion = "d"\n\n{steps}'))


def test_dependencies_of_a_made_log_by_hand(tmp_path):
    # job, submit, run, user. Filled: 2 <- 1 (10 s), 3 <- 2 (30), 4 <- 3 (40),
    # 5 <- 4 (90), 7 <- 6 (950); then job 2 is dropped, so job 3 points to
    # a job not in the version.
    jobs = [(1, 0, 100, 1), (2, 110, 10, 1), (3, 150, 10, 1), (4, 200, 10, 1), (5, 300, 10, 1),
            (6, 0, 50, 2), (7, 1000, 10, 2)]
    (tmp_path / "made.swf").write_text("".join(f"{j} {t} 0 {r} 1 -1 -1 1 -1 -1 1 {u} -1 -1 -1 -1 -1 -1\n"
                                               for j, t, r, u in jobs))
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [tmp_path / "made.swf"])
        _version(a, "made", '[[step]]\nrule = "dependencies"\n\n[[step]]\nrule = "filter"\nwhere = "job=2"\n')
        q = quality(a).set_index("name")
    got = q.loc["made@d"]
    assert got.with_predecessor == 4 and got.predecessor_share == 4 / 6 and got.predecessor_missing == 1
    # think times 30, 40, 90, 950; quantiles interpolated between neighbours
    assert [got[c] for c in THINK] == pytest.approx([30, 37.5, 65, 305, 692, 950], rel=1e-12)
    assert q.loc["made", "with_predecessor"] == 0 and q.loc["made", THINK].isna().all()


def test_dependencies_of_a_real_logs_version_match_numpy(tmp_path):
    log = "KTH-SP2-1996-2.1-cln"
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [data_dir() / f"{log}.swf.gz"])
        _version(a, log, '[[step]]\nrule = "dependencies"\n')
        got = quality(a, [f"{log}@d"]).iloc[0]
        fields = a.df(f"SELECT job, prev_job, think FROM jobs WHERE log_id = {a.log_id(log + '@d')}")
    has = fields.prev_job.to_numpy() != -1
    think = fields.think.to_numpy()[has]
    assert got.with_predecessor == has.sum() > 0
    assert got.predecessor_share == pytest.approx(has.mean(), rel=1e-12)
    assert got.predecessor_missing == (~np.isin(fields.prev_job[has], fields.job)).sum() == 0
    want = [think.min(), *np.percentile(think, [25, 50, 75, 90]), think.max()]
    assert [got[c] for c in THINK] == pytest.approx(want, rel=1e-12)
