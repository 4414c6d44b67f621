"""The counts of what the experience paper's figures show, in the quality
report: by hand on made logs, and against pandas and numpy on real logs."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from real_logs import pandas_log
from wla.archive import open as open_archive
from wla.archive.analysis.batching import batching, batching_frame
from wla.archive.analysis.quality import BATCHING, REQUESTS, STATUSES, quality
from wla.archive.store.ingest import ingest


def _swf(rows: list[dict]) -> str:
    order = ["job", "submit", "wait", "run", "procs", "cpu", "mem", "req_procs", "req_time", "req_mem",
             "status", "user", "group", "app", "queue", "partition", "prev", "think"]
    return "".join(" ".join(str(r.get(c, -1)) for c in order) + "\n" for r in rows)


def test_made_logs_by_hand(tmp_path):
    jobs = [  # procs against the request, statuses, a failed job within 5 s
        dict(job=1, submit=0, wait=0, run=100, procs=4, req_procs=4, req_time=200, status=1),
        dict(job=2, submit=10, wait=0, run=10, procs=2, req_procs=4, req_time=200, status=1),
        dict(job=3, submit=20, wait=0, run=3, procs=16, req_procs=4, req_time=0, status=0),
        dict(job=4, submit=30, wait=0, run=6, procs=8, req_time=0, status=0),
        dict(job=5, submit=40, wait=5, run=-1, procs=1, req_procs=1, status=5),
        dict(job=6, submit=50, wait=0, run=50, procs=1, req_procs=1, status=3),
    ]
    # distinct starts every 30 s; arrivals at gaps 7, 12, 25, 27, 29, 33, 37
    submits = [0, 7, 19, 44, 71, 100, 133, 170]
    starts = [30, 30, 30, 60, 90, 120, 150, 180]
    batched = [dict(job=k + 1, submit=s, wait=t - s, run=5, procs=1, status=1)
               for k, (s, t) in enumerate(zip(submits, starts))]
    (tmp_path / "made.swf").write_text(_swf(jobs))
    (tmp_path / "batched.swf").write_text(_swf(batched))
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [tmp_path / "made.swf", tmp_path / "batched.swf"])
        q = quality(a).set_index("name")
    m = q.loc["made"]
    assert [m[c] for c in REQUESTS[:5]] == [5, 1, 3, 1, 2]
    assert [m[c] for c in STATUSES] == [2, 2, 1, 1, 1]
    procs, run = np.array([4, 2, 16, 8, 1]), np.array([100, 10, 3, 6, 50])
    assert m.size_run_correlation == pytest.approx(np.corrcoef(np.log(procs), np.log(run))[0, 1])
    b = q.loc["batched"]
    # gaps from 29 s on: starts 5 of 5 on multiples of 30; arrivals 29 of 29, 33, 37
    assert [b[c] for c in BATCHING] == pytest.approx([30, 1.0, 1 / 3, 3.0])


def _batching(df: pd.DataFrame) -> list[float]:
    """The batching measure written plainly with numpy."""
    known = df[(df.submit != -1) & (df.wait != -1)]
    gaps = {k: np.diff(np.unique(v.to_numpy())) for k, v in
            (("start", known.submit + known.wait), ("arrival", known.submit))}
    values, counts = np.unique(gaps["start"][gaps["start"] >= 10], return_counts=True)
    period = values[np.argmax(counts)]  # the first of the most common: the smallest
    share = {}
    for k, g in gaps.items():
        g = g[g >= period - 1]
        share[k] = np.mean(np.minimum(g % period, period - g % period) <= 1)
    return [period, share["start"], share["arrival"], share["start"] / share["arrival"]]


@pytest.mark.parametrize("name", ["SDSC-BLUE-2000-4.2-cln", "SDSC-SP2-1998-4.2-cln"])
def test_real_logs_match_pandas(real_archive, name):
    got = quality(real_archive, [name]).iloc[0]
    df = pandas_log(name)
    both = (df.procs > 0) & (df.req_procs > 0)
    want = {
        "procs_and_request": both.sum(), "procs_under_requested": (both & (df.procs < df.req_procs)).sum(),
        "procs_as_requested": (both & (df.procs == df.req_procs)).sum(),
        "procs_four_times": (both & (df.procs == 4 * df.req_procs)).sum(),
        "zero_req_time": (df.req_time == 0).sum(),
        "completed": (df.status == 1).sum(), "failed": (df.status == 0).sum(),
        "cancelled": (df.status == 5).sum(), "other_status": (~df.status.isin([0, 1, 5])).sum(),
        "failed_within_5s": ((df.status == 0) & (df.run >= 0) & (df.run <= 5)).sum(),
    }
    assert {k: got[k] for k in want} == want
    sized = df[(df.procs > 0) & (df.run > 0)]
    assert got.size_run_correlation == pytest.approx(np.corrcoef(np.log(sized.procs), np.log(sized.run))[0, 1])
    assert [got[c] for c in BATCHING] == pytest.approx(_batching(df))


def test_the_papers_numbers(real_archive):
    """SDSC Blue: 253 jobs got fewer processors than requested and 458 more
    (the paper's section 3.2 and Table 2); SDSC SP2's starts are batched every
    31 s, SDSC Blue's every 187 s; KTH's and LANL-CM5's are not."""
    q = quality(real_archive, ["SDSC-BLUE-2000-4.2-cln", "SDSC-SP2-1998-4.2-cln", "KTH-SP2-1996-2.1-cln",
                               "LANL-CM5-1994-4.1-cln"]).set_index("name")
    blue = q.loc["SDSC-BLUE-2000-4.2-cln"]
    assert (blue.procs_under_requested, blue.procs_over_requested) == (253, 458)
    assert q.loc["KTH-SP2-1996-2.1-cln", "procs_over_requested"] == 219
    assert q.loc["LANL-CM5-1994-4.1-cln", "procs_over_requested"] == 1212
    assert q.batching_period.tolist() == [60, 10, 187, 31]
    assert (q.batching_ratio >= 2).tolist() == [False, False, True, True]


def test_the_report_s_batching_equals_the_view_on_every_log(real_archive):
    """The report computes the batching measure with numpy; the view
    start_batching defines it in SQL: the same numbers on every log."""
    ids = [real_archive.log_id(n) for n in real_archive.log_names()]
    got = batching_frame(real_archive, ids).set_index("log_id")
    view = real_archive.df("SELECT * FROM start_batching").set_index("log_id")
    assert got.batching_period.notna().sum() >= 10
    for log_id in ids:
        want = view.loc[log_id, BATCHING].tolist() if log_id in view.index else [float("nan")] * 4
        assert got.loc[log_id, BATCHING].tolist() == pytest.approx(want, nan_ok=True), log_id


def test_the_batching_measure_without_gaps_or_arrivals_off_period():
    none = batching(np.array([0.0, 1.0, 2.0]), np.array([0.0, 0.0, 0.0]))  # no gap of 10 s
    assert none == dict.fromkeys(BATCHING)
    # starts 0, 30, 60; arrivals 0, 5, 11: no arrival gap of 29 s or more
    one = batching(np.array([0.0, 5.0, 11.0]), np.array([0.0, 25.0, 49.0]))
    assert one == {"batching_period": 30.0, "start_on_period": 1.0, "arrival_on_period": None,
                   "batching_ratio": None}
    unknown = batching(np.array([-1.0, 0.0]), np.array([5.0, -1.0]))
    assert unknown == dict.fromkeys(BATCHING)
