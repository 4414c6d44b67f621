"""The session similarity of a log the plain way: a loop over each user's
jobs for its sessions, every pair of jobs visited (numpy's outer products
per pair of sessions). The second implementation the tests hold
`wla.archive.analysis.stats.sessions` to."""
from __future__ import annotations

import numpy as np
import pandas as pd

GAP = 1200.0


def _procs(df: pd.DataFrame) -> pd.Series:
    return df["procs"].where(df["procs"] > 0, df["req_procs"].where(df["req_procs"] > 0))


def loop_similarity(df: pd.DataFrame, attribute: str, distances: int, statistic: str = "mean",
                    weigh: str = "sessions") -> dict:
    """user id -> [similarity at d = 0..distances] (NaN where undefined) of
    a frame with pandas_log's column names."""
    df = df[(df["submit"] >= 0) & (df["user"] >= 0)]
    values = (_procs(df) if attribute == "procs" else df[attribute].where(df[attribute] >= 0)).to_numpy(float)
    end = df["submit"] + df["wait"].clip(lower=0) + df["run"].clip(lower=0)
    out = {}
    frame = pd.DataFrame({"user": df["user"].to_numpy(), "submit": df["submit"].to_numpy(float),
                          "end": end.to_numpy(float), "value": values})
    for user, jobs in frame.groupby("user", sort=True):
        jobs = jobs.sort_values("submit", kind="stable")
        sessions, latest = [], None
        for submit, finish, value in zip(jobs["submit"], jobs["end"], jobs["value"]):
            if latest is None or submit - latest > GAP:
                sessions.append([])
                latest = finish
            latest = max(latest, finish)
            sessions[-1].append(value)
        sessions = [np.array([v for v in s if np.isfinite(v)]) for s in sessions]
        row = []
        for d in range(distances + 1):
            sims, every = [], []
            for k in range(len(sessions) - d):
                a, b = sessions[k], sessions[k + d]
                r = _ratios(a, b, statistic)
                if d == 0:
                    keep = ~np.eye(len(a), dtype=bool)  # not a job with itself
                    r = r[keep]
                if r.size:
                    sims.append(r.mean())
                    every.extend(r.ravel())
            pooled = every if weigh == "pairs" else sims
            row.append(np.mean(pooled) if pooled else np.nan)
        out[int(user)] = row
    return out


def _ratios(a: np.ndarray, b: np.ndarray, statistic: str) -> np.ndarray:
    if statistic == "identical":
        return (a[:, None] == b[None, :]).astype(float)
    lo, hi = np.minimum.outer(a, b), np.maximum.outer(a, b)
    return np.where(hi > 0, lo / np.where(hi > 0, hi, 1.0), 1.0)
