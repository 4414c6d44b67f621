"""Hand-made logs for tests that work their answers out by hand."""
from __future__ import annotations

import numpy as np
import pandas as pd
from wla.archive.swf.fields import COLUMNS


def make_jobs(rows: list[dict]) -> pd.DataFrame:
    """A log as `log_query` returns it: every field -1 unless given, jobs numbered 1..n."""
    frame = pd.DataFrame([{**{c: -1 for c in COLUMNS}, **r} for r in rows])
    frame["job"] = np.arange(1, len(frame) + 1)
    frame.insert(0, "line_no", np.arange(1, len(frame) + 1))
    for c in ("submit", "wait", "run", "cpu", "mem", "req_time", "req_mem", "think"):
        frame[c] = frame[c].astype(np.float64)
    return frame
