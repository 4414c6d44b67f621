"""Arrivals that are start times: hand-made logs with known answers, and the
real logs the paper names (NASA iPSC, LLNL Atlas and Thunder), their waits
counted by pandas from the file and their fit to the machine by an
independent sweep."""
from __future__ import annotations

import numpy as np
import pytest
from real_logs import pandas_log
from wla.archive.analysis.diagnosis import start_arrivals
from wla.archive.analysis.diagnosis.diagnose import diagnose
from wla.archive.analysis.diagnosis.log_data import from_columns

NOTE = ["; Note: There is no information on wait times - the given submit", ";       times are actually start times"]


def _busy(wait: list[int], procs: int = 4, size: int = 4, header=None):
    """Ten back-to-back jobs of 100 s on `procs` of `size` processors."""
    return from_columns("t", {"submit": [100 * i for i in range(10)], "wait": wait, "run": [100] * 10,
                              "procs": [procs] * 10}, {"machine_size": size}, header)


def test_the_header_alone_is_enough():
    log = _busy([5] * 10, header=NOTE)  # waits recorded: the data does not say so
    [f] = start_arrivals.detect(log)
    assert f.data["sources"] == ["header"] and f.data["no_wait"] == 0
    assert f.data["header"].endswith("the given submit times are actually start times")


def test_no_waits_on_a_busy_machine_that_never_overflows_are_start_times():
    [f] = start_arrivals.detect(_busy([-1] * 9 + [0]))
    assert f.data["sources"] == ["data"]
    assert (f.data["no_wait"], f.data["unknown_wait"], f.data["over_share"]) == (10, 9, 0.0)
    assert f.data["utilization"] == 1.0 and f.how_much.startswith("100.00% of the jobs;")


def test_no_finding_when_a_wait_is_known_overflow_or_idle():
    assert start_arrivals.detect(_busy([-1] * 9 + [30])) == []  # 90% < 99%
    assert len(start_arrivals.detect(_busy([-1] * 9 + [30]), min_share=0.9)) == 1
    assert start_arrivals.detect(_busy([-1] * 10, procs=8)) == []  # a model's arrivals: twice the machine
    assert len(start_arrivals.detect(_busy([-1] * 10, procs=1))) == 1  # 25% utilization: the threshold
    assert start_arrivals.detect(_busy([-1] * 10, procs=1), min_utilization=0.3) == []  # idle: no queue needed
    assert start_arrivals.detect(_busy([-1] * 10, size=None)) == []  # no machine size: no fit to judge


def _over_share(frame, size: int) -> float:
    """Share of the time more than `size` processors are in use, jobs started at
    their submit times: deltas summed per instant by pandas, then a running total."""
    import pandas as pd

    ran = frame[(frame.run > 0) & (frame.procs > 0) & (frame.submit >= 0)]
    start = ran.submit + ran.wait.clip(lower=0)
    deltas = pd.concat([pd.Series(ran.procs.to_numpy(), index=start.to_numpy()),
                        pd.Series(-ran.procs.to_numpy(), index=(start + ran.run).to_numpy())])
    level = deltas.groupby(level=0).sum().sort_index().cumsum()
    times = level.index.to_numpy(dtype=float)
    dur = np.diff(times)
    return float(dur[level.to_numpy()[:-1] > size].sum() / (times[-1] - times[0]))


@pytest.mark.parametrize("name, sources, size", [
    ("NASA-iPSC-1993-3.1-cln", ["header", "data"], 128),
    ("LLNL-Atlas-2006-2.1-cln", ["data"], 9216),
    ("LLNL-Thunder-2007-1.1-cln", ["data"], 4008),
])
def test_the_logs_the_paper_names(real_archive, name, sources, size):
    frame = pandas_log(name)
    [f] = [f for f in diagnose(real_archive, name) if f.detector == "start_arrivals"]
    assert f.data["sources"] == sources and f.data["capacity"] == size
    assert f.data["no_wait"] == f.data["unknown_wait"] == int((frame.wait == -1).sum()) == len(frame)
    assert f.data["over_share"] == pytest.approx(_over_share(frame, size), abs=1e-9)
    assert f.data["over_share"] < 0.005


def test_nasa_head_says_so_in_its_header_but_its_first_jobs_overflow(real_archive):
    """The original log's first five jobs hold 120-128 processors each at once: 31% of its few hours."""
    frame = pandas_log("NASA-iPSC-1993-3-head228")
    [f] = start_arrivals.detect(_load(real_archive, "NASA-iPSC-1993-3-head228"))
    assert f.data["sources"] == ["header"] and "startDaemon" in f.data["header"]
    assert f.data["over_share"] == pytest.approx(_over_share(frame, 128), abs=1e-9) and f.data["over_share"] > 0.3


def _load(archive, name):
    from wla.archive.analysis.diagnosis.log_data import load

    return load(archive, name)
