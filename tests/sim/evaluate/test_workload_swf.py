"""A workload as an SWF file (sim/evaluate/workload_swf.py): the simulated
jobs in arrival order, values written exactly, -1 for what the simulator
does not read."""
from __future__ import annotations

import gzip

import numpy as np
import pytest
from wla.archive.kernel.errors import UsageError
from wla.sim.evaluate.workload_swf import workload_swf, write_workload
from wla.sim.workload import Workload

W = Workload(job=np.array([7, 3, 9]), submit=np.array([10.0, 0.5, 10.0]), run=np.array([60.0, 0.1, 5.0]),
             procs=np.array([4, 1, 2]), estimate=np.array([120.0, 0.1, 5.0]), user=np.array([2, -1, 5]),
             excluded=np.zeros(3, bool), P=8, total=3, not_simulated={})

TEXT = """\
; Version: 2.2
; MaxProcs: 8
; MaxNodes: 8
; Note: shaken run 1
3 0.5 -1 0.1 1 -1 -1 1 0.1 -1 -1 -1 -1 -1 -1 -1 -1 -1
7 10 -1 60 4 -1 -1 4 120 -1 -1 2 -1 -1 -1 -1 -1 -1
9 10 -1 5 2 -1 -1 2 5 -1 -1 5 -1 -1 -1 -1 -1 -1
"""


def test_the_text_by_hand():
    # job 3 arrives first; jobs 7 and 9 at the same time keep the log's order
    assert workload_swf(W, ["shaken run 1"]) == TEXT


def test_written_plain_or_compressed_and_nothing_else(tmp_path):
    assert write_workload(W, tmp_path / "w.swf", ["shaken run 1"]).read_text() == TEXT
    packed = write_workload(W, tmp_path / "w.swf.gz", ["shaken run 1"]).read_bytes()
    assert gzip.decompress(packed).decode() == TEXT
    assert packed == write_workload(W, tmp_path / "again.swf.gz", ["shaken run 1"]).read_bytes()
    with pytest.raises(UsageError, match="^path writes FILE.swf or FILE.swf.gz, not w.csv"):
        write_workload(W, tmp_path / "w.csv", [])
