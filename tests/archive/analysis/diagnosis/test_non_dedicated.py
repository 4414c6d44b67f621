"""Non-dedicated processors: hand-made logs with known answers, and LANL
CM5, whose over-capacity times and named jobs an independent sweep (pandas
per instant, np.interp over the running over-capacity time) recounts."""
from __future__ import annotations

import numpy as np
import pytest
from real_logs import pandas_log
from wla.archive.analysis.diagnosis import non_dedicated
from wla.archive.analysis.diagnosis.diagnose import diagnose
from wla.archive.analysis.diagnosis.log_data import from_columns

CM5 = "LANL-CM5-1994-4.1-cln"


def _shared(size: int = 4, header=None, wait=0):
    """Four jobs of 4 processors at once on `size`, from 0 to 100, then one alone from 100 to 400."""
    return from_columns("t", {"submit": [0, 0, 0, 0, 100], "wait": [wait] * 5, "run": [100] * 4 + [300],
                              "procs": [4] * 5, "cpu": [25, 25, 25, 25, 290], "queue_id": [1, 1, 2, 1, 3]},
                        {"machine_size": size}, header)


def test_jobs_holding_more_processors_than_the_machine_are_named():
    [f] = non_dedicated.detect(_shared())
    d = f.data
    assert d["sources"] == ["data"] and (d["jobs"], d["first_job"]) == (4, 1)
    assert d["over_share"] == 100 / 400 and d["over_factor"] == 4.0
    assert d["queues"] == {1: 3, 2: 1}
    assert d["cpu_per_run"] == {"named": 0.25, "others": 290 / 300}
    assert "4 jobs ran at least half their run time while more than 4 processors were in use" in f.where


def test_thresholds_header_and_what_the_data_cannot_judge():
    assert non_dedicated.detect(_shared(), min_over=0.3) == []  # over 25% of the time
    assert non_dedicated.detect(_shared(size=16)) == []  # the machine holds them
    note = ["; Preemption: Yes", "; Note: many jobs, especially smaller ones, ran in non-dedicated mode"]
    [f] = non_dedicated.detect(_shared(size=16, header=note))
    assert f.data["sources"] == ["header"] and f.data["header"].startswith("Note: many jobs")
    assert f.how_much == "which jobs is not recorded"
    assert non_dedicated.detect(_shared(size=16, header=["; Preemption: Yes"])) == []  # preemption is not sharing
    assert non_dedicated.detect(_shared(wait=-1)) == []  # starts unknown
    assert non_dedicated.detect(_shared(size=None)) == []


def _sweep(frame, size: int):
    """Over-capacity share of the time, and per job the time its run spent over capacity."""
    import pandas as pd

    ran = frame[(frame.run > 0) & (frame.procs > 0) & (frame.submit >= 0) & (frame.wait >= 0)]
    start = (ran.submit + ran.wait).to_numpy(float)
    end = start + ran.run.to_numpy(float)
    deltas = pd.concat([pd.Series(ran.procs.to_numpy(), index=start), pd.Series(-ran.procs.to_numpy(), index=end)])
    level = deltas.groupby(level=0).sum().sort_index().cumsum()
    times = level.index.to_numpy(float)
    over = np.r_[0, np.cumsum(np.where(level.to_numpy()[:-1] > size, np.diff(times), 0))]
    per_job = np.interp(end, times, over) - np.interp(start, times, over)
    return over[-1] / (times[-1] - times[0]), ran.assign(over=per_job)


def test_cm5_header_and_data(real_archive):
    frame = pandas_log(CM5)
    share, ran = _sweep(frame, 1024)
    named = ran[ran.over >= 0.5 * ran.run]
    [f] = [f for f in diagnose(real_archive, CM5) if f.detector == "non_dedicated"]
    d = f.data
    assert d["sources"] == ["header", "data"] and "non-dedicated mode" in d["header"]
    assert d["over_share"] == pytest.approx(share, abs=1e-9) and 0.2 < share < 0.25
    assert d["jobs"] == len(named) and d["first_job"] == int(named.job.iloc[0])
    top = named.queue.value_counts().head(3)
    assert d["queues"] == {int(q): int(c) for q, c in top.items()}
    cpu = named[named.cpu >= 0]
    assert d["cpu_per_run"]["named"] == pytest.approx(float((cpu.cpu / cpu.run).median()))
