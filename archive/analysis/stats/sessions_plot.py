"""The resampling paper's Figs. 1 and 2 of a log (`wla sessions --plot`):
per attribute, the users' similarity against the distance in sessions, of
the log beside its shuffle, and the distance-0 similarity of the log against
its values over the job shuffles. The same report gives the same bytes."""
from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure
from wla.archive.kernel.plot import save

from .sessions import ATTRIBUTES


def plot_sessions(report: Mapping, path: str | os.PathLike, title: str) -> None:
    """`report` is `SessionReport.as_dict()`: one column per attribute, Fig.
    1 above (mean and median over users, log solid, shuffle dashed), Fig. 2
    below (a histogram of the shuffles, the log as a vertical line)."""
    attributes = report["attributes"]
    settings = report["settings"]
    fig = Figure(figsize=(4.2 * len(attributes), 6.4), dpi=80)
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.09, top=0.9, wspace=0.28, hspace=0.42)
    statistic = "mean min/max" if settings["statistic"] == "mean" else "share of identical pairs"
    for i, a in enumerate(attributes):
        top = fig.add_subplot(2, len(attributes), i + 1)
        x = np.arange(len(a["log"]["mean"]))
        for key, color in (("mean", "tab:blue"), ("median", "tab:orange")):
            top.plot(x, _numbers(a["log"][key]), color=color, marker="o", markersize=3, label=f"log, {key}")
            top.plot(x, _numbers(a["shuffled"][key]), color=color, linestyle="--", linewidth=1,
                     label=f"{settings['shuffle']} shuffled, {key}")
        top.set_title(ATTRIBUTES[a["attribute"]])
        top.set_xlabel("distance (sessions)")
        top.set_ylabel(f"similarity ({statistic})" if i == 0 else "")
        top.set_ylim(0, 1)
        top.grid(True, linewidth=0.3, alpha=0.5)
        if i == 0:
            top.legend(fontsize="x-small", loc="lower left")
        bottom = fig.add_subplot(2, len(attributes), len(attributes) + i + 1)
        null = np.asarray(a["null"].get("values", []), dtype=np.float64)
        if len(null):
            bottom.hist(null[np.isfinite(null)], bins=30, color="tab:gray")
        at0 = a["log"]["mean"][0]
        if at0 is not None:
            bottom.axvline(at0, color="tab:red", linewidth=1.5, label="log")
        bottom.set_xlabel(f"distance-0 similarity, {len(null)} job shuffles")
        bottom.set_ylabel("shuffles" if i == 0 else "")
        if i == 0:
            bottom.legend(fontsize="x-small")
    fig.suptitle(title)
    save(fig, path)


def _numbers(values: list) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
