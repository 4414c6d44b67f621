"""What makes a figure readable, checked on the figure as the Agg renderer
drew it: no two texts (tick labels, axis labels, titles, legend texts)
overlap or leave the figure, no tick label in scientific notation or offset
by a multiplier in a corner, and axes that count tick on whole numbers. The
figures are caught as they are saved (`catch`), so a test draws them through
the very function a command calls."""
from __future__ import annotations

import re

import numpy as np
from matplotlib.dates import ConciseDateFormatter
from matplotlib.figure import Figure

SCIENTIFIC = re.compile(r"\de[+-]?\d|×\s*10|10\^|\$")


def catch(monkeypatch) -> list[Figure]:
    """Every Figure saved from now on while the test runs, in order."""
    figures: list[Figure] = []
    savefig = Figure.savefig

    def keep(self, *args, **kwargs):
        figures.append(self)
        return savefig(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    return figures


def tick_texts(axis) -> list[str]:
    """The tick labels an axis drew (major and minor, within its view)."""
    out = []
    for tick in axis._update_ticks():
        for label in (tick.label1, tick.label2):
            if label.get_visible() and label.get_text():
                out.append(label.get_text())
    return out


def _axes(fig: Figure) -> list:
    return [ax for ax in fig.axes if ax.get_visible() and ax.axison]


def texts(fig: Figure) -> list:
    """Every text of the figure a reader sees, as Text artists."""
    found = []
    for ax in _axes(fig):
        found += [ax.title, ax._left_title, ax._right_title, *ax.texts]
        for axis in (ax.xaxis, ax.yaxis):
            if not axis.get_visible():  # a twin's shared axis
                continue
            found += [axis.label, axis.get_offset_text()]
            for tick in axis._update_ticks():
                found += [tick.label1, tick.label2]
        if ax.get_legend() is not None:
            found += [*ax.get_legend().get_texts(), ax.get_legend().get_title()]
    for legend in fig.legends:
        found += [*legend.get_texts(), legend.get_title()]
    if fig._suptitle is not None:
        found.append(fig._suptitle)
    found += fig.texts
    unique = {id(t): t for t in found}  # the suptitle is one of fig.texts too
    return [t for t in unique.values() if t.get_visible() and t.get_text().strip()]


GAP = 2.0  # pixels at least between two texts: touching labels read as one ("10 h1 d")


def overlaps(fig: Figure) -> list[str]:
    """Pairs of texts whose boxes overlap or come closer than GAP pixels,
    and texts that reach out of the figure."""
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    shown = texts(fig)
    boxes = np.array([t.get_window_extent(renderer).extents for t in shown])  # x0, y0, x1, y1
    width, height = fig.bbox.width, fig.bbox.height
    problems = [f"{t.get_text()!r} leaves the figure" for t, (x0, y0, x1, y1) in zip(shown, boxes)
                if x0 < -1 or y0 < -1 or x1 > width + 1 or y1 > height + 1]
    dx = np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    dy = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    i, j = np.nonzero(np.triu((dx > -GAP) & (dy > -GAP), 1))
    problems += [f"{shown[a].get_text()!r} overlaps {shown[b].get_text()!r}" for a, b in zip(i, j)]
    return problems


def plain_numbers(fig: Figure) -> list[str]:
    """Tick labels in scientific notation, and offset texts (`1e6`) of axes
    that are not dates (a date axis's offset is the year, not a multiplier)."""
    fig.canvas.draw()
    problems = []
    for ax in _axes(fig):
        for axis in (a for a in (ax.xaxis, ax.yaxis) if a.get_visible()):
            problems += [f"tick label {t!r}" for t in tick_texts(axis) if SCIENTIFIC.search(t)]
            offset = axis.get_offset_text().get_text()
            if offset and not isinstance(axis.get_major_formatter(), ConciseDateFormatter):
                problems.append(f"offset text {offset!r}")
    legends = [*fig.legends] + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    problems += [f"legend {t.get_text()!r}" for lg in legends for t in lg.get_texts()
                 if SCIENTIFIC.search(t.get_text())]
    return problems


def whole_ticks(axis) -> bool:
    """Whether every tick label of a counting axis is a whole number."""
    labels = tick_texts(axis)
    return bool(labels) and all(re.fullmatch(r"[−-]?\d{1,3}(,\d{3})*", t) for t in labels)


def readable(fig: Figure) -> list[str]:
    """Every problem of overlaps and plain_numbers."""
    return overlaps(fig) + plain_numbers(fig)
