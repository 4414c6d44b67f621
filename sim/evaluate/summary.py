"""What the shaken runs of one metric say against the original value O
(shaking.md): mean, standard deviation, the 95% confidence interval of the
mean (Student's t with N - 1 degrees of freedom), span (the 5th and 95th
percentiles, linear interpolation, as percent of O), distance ((mean - O) /
O, percent) and concentration (the share of runs within 1% of O)."""
from __future__ import annotations

import math

import numpy as np

# Per run, the numbers a study keeps: (column, key in SimResult.metrics, statistic).
METRICS = (
    ("wait_mean", "wait", "mean"),
    ("wait_median", "wait", "median"),
    ("wait_p95", "wait", "p95"),
    ("response_mean", "response", "mean"),
    ("bounded_slowdown_mean", "bounded_slowdown", "mean"),
    ("bounded_slowdown_median", "bounded_slowdown", "median"),
    ("bounded_slowdown_p95", "bounded_slowdown", "p95"),
    ("utilization", "utilization", None),
    ("throughput_per_hour", "throughput_per_hour", None),
    ("makespan", "makespan", None),
)
METRIC_NAMES = tuple(m[0] for m in METRICS)
# Kept per run beside the metrics, not summarized: whether the run saturated
# (sim/saturation.py; 1 or 0) and its backlog's slope. Saturated runs are
# left out of every summary.
FLAGS = (("saturated", "saturation", "saturated"), ("saturation_slope", "saturation", "slope"))
RUN_COLUMNS = METRIC_NAMES + tuple(f[0] for f in FLAGS)
SATURATED = RUN_COLUMNS.index("saturated")
CONFIDENCE = 0.95
NEAR = 0.01  # concentration: within this share of O


def metric_values(metrics: dict) -> tuple[float, ...]:
    """The study's numbers from a SimResult's metrics (NaN where none)."""
    out = []
    for _, key, stat in METRICS + FLAGS:
        value = metrics[key] if stat is None else metrics[key][stat]
        out.append(math.nan if value is None else float(value))
    return tuple(out)


def unsaturated(rows: np.ndarray) -> np.ndarray:
    """The rows (runs, RUN_COLUMNS wide) whose simulation did not saturate."""
    return rows[rows[:, SATURATED] != 1]


def saturated_note(count: int, runs: int, what: str = "shaken runs") -> str | None:
    """The warning a study gives when it leaves saturated runs out."""
    if not count:
        return None
    return (f"{count:,} of {runs:,} {what} saturated (backlog growing by more than 1 job a week) "
            "and are left out of the summaries")


def prepare() -> None:
    """Load what the summaries need (scipy.special, a seventh of a second)
    while the workers run: a study calls this once its first run is in."""
    import scipy.special  # noqa: F401


def t_quantile(df: int, p: float = 0.5 + CONFIDENCE / 2) -> float:
    from scipy.special import stdtrit

    return float(stdtrit(df, p))


def _pct(x: float, o: float) -> float | None:
    return None if o == 0 or not math.isfinite(o) or not math.isfinite(x) else 100.0 * x / o


def summarize(values: np.ndarray, original: float) -> dict:
    """The summaries of one metric's shaken values (NaN runs left out)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    n = len(v)
    out: dict = {"original": None if math.isnan(original) else original, "runs": n, "mean": None, "std": None,
                 "ci_low": None, "ci_high": None, "p5": None, "p95": None, "span_low_pct": None,
                 "span_high_pct": None, "distance_pct": None, "concentration": None}
    if n == 0:
        return out
    mean = float(v.mean())
    out["mean"] = mean
    if n > 1:
        std = float(v.std(ddof=1))
        half = t_quantile(n - 1) * std / math.sqrt(n)
        out.update(std=std, ci_low=mean - half, ci_high=mean + half)
    p5, p95 = (float(x) for x in np.percentile(v, [5, 95]))
    out.update(p5=p5, p95=p95, span_low_pct=_pct(p5, original), span_high_pct=_pct(p95, original))
    if math.isfinite(original):
        out["distance_pct"] = _pct(mean - original, original)
        out["concentration"] = float(np.mean(np.abs(v - original) <= NEAR * abs(original)))
    return out
