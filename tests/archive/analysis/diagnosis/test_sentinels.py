"""Sentinel values: hand-made columns with known answers, and CEA-Curie's
requested times of 2^31 - 1 counted by pandas from the file."""
from __future__ import annotations

import numpy as np
import pytest
from real_logs import pandas_log
from wla.archive.analysis.diagnosis import sentinels
from wla.archive.analysis.diagnosis.diagnose import diagnose_data
from wla.archive.analysis.diagnosis.log_data import from_columns, load
from wla.archive.kernel.errors import UsageError


def test_unsigned_minus_two_in_requested_time_is_found_with_its_lines():
    log = from_columns("t", {"req_time": [3600, 4294967294, 7200, 4294967294, -1],
                             "procs": [4, 4, 8, 8, 2]})
    [f] = sentinels.detect(log)
    assert f.data == {"field": "req_time", "jobs": 2, "values": [4294967294.0], "first_job": 2, "lines": [2, 4]}
    assert "2^32 - 2, a -2 read as unsigned" in f.where
    assert f.how_much == "40.00% of the jobs"
    assert '--exclude "req_time >= 4294967294"' in f.action


def test_largest_integers_and_impossible_negatives_and_nothing_else():
    log = from_columns("t", {"user_id": [1, -7, 2, 3], "mem": [2 ** 31 - 1, 10, 20, 30],
                             "wait": [-5, 0, 2 ** 31 - 100, 1]})  # skew; outside the margin
    found = {f.data["field"]: f for f in sentinels.detect(log)}
    assert set(found) == {"user_id", "mem"}
    assert found["user_id"].data["values"] == [-7.0] and "< -1" in found["user_id"].action
    assert "the largest signed integer" in found["mem"].where
    assert {f.data["field"] for f in sentinels.detect(log, margin=128)} == {"wait", "user_id", "mem"}


def test_a_clean_log_has_no_finding():
    assert sentinels.detect(from_columns("t", {"req_time": [60, 120], "run": [30, 60]})) == []


def test_an_unknown_detector_is_refused():
    with pytest.raises(UsageError, match="no detector nope"):
        diagnose_data(from_columns("t", {"run": [1]}), {"nope": {}})


def test_curie_requested_times_at_the_largest_signed_integer(real_archive):
    name = "CEA-Curie-2011-2.1-cln"
    frame = pandas_log(name)
    expected = frame.index[frame["req_time"] == 2 ** 31 - 1]
    log = load(real_archive, name)
    [f] = sentinels.detect(log)
    assert f.data["jobs"] == len(expected) == 3
    assert f.data["first_job"] == int(frame["job"][expected[0]])
    assert len(log) == len(frame)
    assert np.isclose(f.data["values"], [2 ** 31 - 1]).all()
