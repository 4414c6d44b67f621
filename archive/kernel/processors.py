"""How many processors a job holds: allocated when positive, else requested
when positive, else unknown (docs/pages/definitions/simulation.md, docs/pages/definitions/cleaning.md section 4).

One rule for every count of usage: the catalog's utilization, the quality
report's usage profile, the load profile, capacity, flurries and the
simulator. SQL says it with the macro job_procs (schema/macros.sql), Python
with `processors`; tests hold the two to the same answer on every real log.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

RULE = "allocated (field 5) when positive, else requested (field 8)"
SQL_MACRO = "job_procs"  # job_procs(procs, req_procs), NULL when unknown


def processors(procs: np.ndarray, req_procs: np.ndarray) -> np.ndarray:
    """Per job, as doubles: allocated when positive, else requested when
    positive, else NaN (SWF's -1, a 0 or a NaN alike)."""
    procs = np.asarray(procs, dtype=np.float64)
    req = np.asarray(req_procs, dtype=np.float64)
    return np.where(procs > 0, procs, np.where(req > 0, req, np.nan))


def job_processors(jobs: pd.DataFrame) -> np.ndarray:
    """`processors` of a frame with the archive's procs and req_procs columns."""
    return processors(jobs["procs"].to_numpy(dtype=np.float64), jobs["req_procs"].to_numpy(dtype=np.float64))
