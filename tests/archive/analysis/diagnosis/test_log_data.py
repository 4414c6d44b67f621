"""The queries the diagnosis reads a log with name the fields they claim,
and a hand-made log is what `from_columns` says it is."""
from __future__ import annotations

import numpy as np
import sqlglot
from wla.archive.analysis.diagnosis import warnings
from wla.archive.analysis.diagnosis.log_data import FIELDS, JOBS, from_columns


def _columns(sql: str) -> list[str]:
    return [c.alias_or_name for c in sqlglot.parse_one(sql, read="duckdb").expressions]


def test_the_written_out_queries_read_the_fields_they_name():
    assert _columns(JOBS) == ["line_no", *FIELDS]
    assert "ORDER BY line_no" in JOBS
    assert _columns(warnings.COLUMNS) == list(warnings.READ)


def test_a_hand_made_log_fills_what_it_is_not_given():
    log = from_columns("t", {"run": [5, 6, 7]}, facts={"machine_size": 8}, header=["; MaxProcs: 8"])
    assert len(log) == 3 and log.facts["machine_size"] == 8 and log.header == ["; MaxProcs: 8"]
    assert log.jobs["job"].tolist() == [1, 2, 3] and log.jobs["line_no"].tolist() == [1, 2, 3]
    assert (log.jobs["wait"] == -1).all() and log.jobs["run"].dtype == np.float64
    assert log.jobs["user_id"].dtype == np.int64
