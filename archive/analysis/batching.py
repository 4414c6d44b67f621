"""The batching measure of the quality report (the experience paper's Fig. 8):
a scheduler that starts jobs only every P seconds leaves gaps between
distinct start instants on multiples of P, while the gaps between arrivals
are not. The definition is the view `start_batching` of schema/quality.sql,
which SQL users query; the report computes it here, from one read of two
columns per log, because the view's window functions over every distinct
instant cost the report more than all its other counts together. Tests hold
the two to the same answer on every real log."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..store.file import Archive

COLUMNS = ["batching_period", "start_on_period", "arrival_on_period", "batching_ratio"]
MIN_GAP = 10  # the period is the most common gap from this many seconds on
SLACK = 1  # a gap within this many seconds of a multiple of the period is on it


def batching(submit: np.ndarray, wait: np.ndarray) -> dict[str, float | None]:
    """The period (the most common gap of at least MIN_GAP s between distinct
    starts, the smallest on a tie) and, of the gaps from period - 1 s on, the
    share on a multiple of it between distinct starts and between distinct
    submits, and their ratio. All None without such a gap."""
    known = (submit != -1) & (wait != -1)
    arrivals = submit[known]
    start_gaps = np.diff(np.unique(arrivals + wait[known]))
    long = start_gaps[start_gaps >= MIN_GAP]
    if len(long) == 0:
        return dict.fromkeys(COLUMNS)
    values, counts = np.unique(long, return_counts=True)
    period = float(values[np.argmax(counts)])  # the first of the most common: the smallest
    starts = _on_period(start_gaps, period)
    arrivals_on = _on_period(np.diff(np.unique(arrivals)), period)
    ratio = None if arrivals_on is None or starts is None or arrivals_on == 0 else starts / arrivals_on
    return {"batching_period": period, "start_on_period": starts, "arrival_on_period": arrivals_on,
            "batching_ratio": ratio}


def _on_period(gaps: np.ndarray, period: float) -> float | None:
    gaps = gaps[gaps >= period - SLACK]
    if len(gaps) == 0:
        return None
    rest = gaps % period
    return float(np.mean(np.minimum(rest, period - rest) <= SLACK))


def batching_frame(archive: Archive, ids: list[int]) -> pd.DataFrame:
    """`batching` of each log, by log_id."""
    rows = []
    for log_id in ids:
        cols = archive.con.execute("SELECT submit, wait FROM jobs WHERE log_id = ?", [log_id]).fetchnumpy()
        rows.append({"log_id": log_id, **batching(np.asarray(cols["submit"]), np.asarray(cols["wait"]))})
    return pd.DataFrame(rows, columns=["log_id", *COLUMNS])
