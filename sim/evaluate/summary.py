"""What the shaken runs of one metric say against the original value O
(docs/pages/definitions/shaking.md): mean, standard deviation, the 95% confidence interval of the
mean (Student's t with N - 1 degrees of freedom, cut at the metric's range:
see RANGES), span (the 5th and 95th
percentiles, linear interpolation, as percent of O), distance ((mean - O) /
O, percent) and concentration (the share of runs within 1% of O)."""
from __future__ import annotations

import math

import numpy as np
from wla.archive.kernel.errors import ParameterError

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
    ("utilization_measured", "utilization_measured", None),
    ("throughput_per_hour", "throughput_per_hour", None),
    ("makespan", "makespan", None),
    ("measured_jobs", "measured_jobs", None),
)
METRIC_NAMES = tuple(m[0] for m in METRICS)


def check_metric(metric: str, parameter: str = "metric") -> str:
    """A metric a study reports, else the error naming the parameter that gave it."""
    if metric not in METRIC_NAMES:
        raise ParameterError(f"{{{parameter}}} is one of {', '.join(METRIC_NAMES)}, not {metric!r}", parameter)
    return metric

# Kept per run beside the metrics, not summarized: whether the run saturated
# (sim/saturation.py; 1 or 0) and its backlog's slope. Saturated runs are
# left out of every summary.
FLAGS = (("saturated", "saturation", "saturated"), ("saturation_slope", "saturation", "slope"))
RUN_COLUMNS = METRIC_NAMES + tuple(f[0] for f in FLAGS)
SATURATED = RUN_COLUMNS.index("saturated")
CONFIDENCE = 0.95
INF = math.inf
# The values each metric (and so its mean) can take. A t-interval reaching
# past one is cut there: the true mean lies in the range, so the cut interval
# holds it whenever the whole one did (the coverage stays the t-interval's),
# and the cut says the runs are too few to bound the mean on that side. A
# bootstrap percentile interval would stay in range too, but with a few runs
# it covers far less than 95%.
RANGES = {
    "wait_mean": (0.0, INF), "wait_median": (0.0, INF), "wait_p95": (0.0, INF),
    "response_mean": (0.0, INF),
    "bounded_slowdown_mean": (1.0, INF), "bounded_slowdown_median": (1.0, INF),
    "bounded_slowdown_p95": (1.0, INF),
    "utilization": (0.0, 1.0), "utilization_measured": (0.0, 1.0),
    "throughput_per_hour": (0.0, INF),
    "makespan": (0.0, INF),
    "measured_jobs": (0.0, INF),
}
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


def _share(x: float, o: float) -> float | None:
    """x as a fraction of o (0.05: 5%), as every share in wla's JSON is."""
    return None if o == 0 or not math.isfinite(o) or not math.isfinite(x) else x / o


def difference_range(name: str) -> tuple[float, float]:
    """Where B - A of a metric can lie."""
    lo, hi = RANGES[name]
    return lo - hi, hi - lo


def t_interval(v: np.ndarray, bounds: tuple[float, float] = (-INF, INF)) -> tuple[float, float, str | None]:
    """The 95% t-interval of the mean of v (two or more values), cut at
    `bounds`, and which side was cut: "low", "high", "both" or None."""
    n = len(v)
    mean = float(v.mean())
    half = t_quantile(n - 1) * float(v.std(ddof=1)) / math.sqrt(n)
    lo, hi = mean - half, mean + half
    cut_low, cut_high = lo < bounds[0], hi > bounds[1]
    cut = "both" if cut_low and cut_high else "low" if cut_low else "high" if cut_high else None
    return max(lo, bounds[0]), min(hi, bounds[1]), cut


def summarize(values: np.ndarray, original: float, bounds: tuple[float, float] = (-INF, INF)) -> dict:
    """The summaries of one metric's shaken values (NaN runs left out);
    `bounds` is the metric's range (RANGES)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    n = len(v)
    out: dict = {"original": None if math.isnan(original) else original, "runs": n, "mean": None, "std": None,
                 "ci_low": None, "ci_high": None, "ci_cut": None, "p5": None, "p95": None, "span_low": None,
                 "span_high": None, "distance": None, "concentration": None}
    if n == 0:
        return out
    mean = float(v.mean())
    out["mean"] = mean
    if n > 1:
        lo, hi, cut = t_interval(v, bounds)
        out.update(std=float(v.std(ddof=1)), ci_low=lo, ci_high=hi, ci_cut=cut)
    p5, p95 = (float(x) for x in np.percentile(v, [5, 95]))
    out.update(p5=p5, p95=p95, span_low=_share(p5, original), span_high=_share(p95, original))
    if math.isfinite(original):
        out["distance"] = _share(mean - original, original)
        out["concentration"] = float(np.mean(np.abs(v - original) <= NEAR * abs(original)))
    return out
