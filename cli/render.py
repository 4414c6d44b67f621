"""Plain-text tables for the terminal (pandas is loaded by the commands that
have tables to show, not at start-up).

A table fits WIDTH columns unless the command was given --wide: when it
is wider, a cell longer than CELL characters is cut with `…`, and columns
that still do not fit beside the first go on in another block below, the
first column (what the row is) repeated. --wide prints every cell whole on one line per row.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

WIDTH = 100  # the terminal's columns a table fits by default
CELL = 40  # the longest cell shown whole by default
CUT = "…"

_fit = {"wide": False}


@contextlib.contextmanager
def wide(given: bool) -> Iterator[None]:
    """While rendering: tables whole (--wide), or fitted to WIDTH."""
    before = _fit["wide"]
    _fit["wide"] = given
    try:
        yield
    finally:
        _fit["wide"] = before


def is_wide() -> bool:
    return _fit["wide"]


def cell(text: str, width: int = CELL) -> str:
    """`text` whole with --wide, else cut to `width` characters."""
    return text if _fit["wide"] or len(text) <= width else text[:width - 1] + CUT


def grid(columns: Sequence[str], rows: Sequence[Sequence[str]], left: Sequence[int] = (0,), gap: int = 1) -> str:
    """Columns right-aligned to their widest cell (those of `left` left-aligned),
    `gap` spaces apart, fitted to WIDTH unless --wide."""
    if not rows:
        return "(no rows)\n" + "  ".join(columns)
    table = [[str(v) for v in line] for line in [list(columns), *rows]]
    widths = [max(len(line[i]) for line in table) for i in range(len(columns))]
    if not _fit["wide"] and sum(widths) + gap * (len(widths) - 1) > WIDTH:  # too wide: long cells cut first
        table = [[cell(v) for v in line] for line in table]
        widths = [max(len(line[i]) for line in table) for i in range(len(columns))]
    blocks = [list(range(len(columns)))]
    if not _fit["wide"] and sum(widths) + gap * (len(widths) - 1) > WIDTH and len(columns) > 1:
        blocks, used = [[0]], widths[0]
        for i in range(1, len(columns)):
            if len(blocks[-1]) > 1 and used + gap + widths[i] > WIDTH:
                blocks.append([0])
                used = widths[0]
            blocks[-1].append(i)
            used += gap + widths[i]
    out = []
    for block in blocks:
        lines = [(" " * gap).join(line[i].ljust(widths[i]) if i in left else line[i].rjust(widths[i])
                                  for i in block).rstrip() for line in table]
        out.append("\n".join(lines))
    return "\n\n".join(out)


def percent_columns(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    import pandas as pd

    out = frame.copy()
    for c in columns:
        if c in out:
            out[c] = [f"{v:.1%}" if pd.notna(v) else None for v in out[c]]
    return out


def _dates(frame: pd.DataFrame) -> pd.DataFrame:
    """Show datetime columns that hold whole days as plain dates."""
    import pandas as pd

    out = frame
    for c in frame.columns:
        col = frame[c]
        if pd.api.types.is_datetime64_any_dtype(col) and (col.dropna() == col.dropna().dt.normalize()).all():
            out = out if out is not frame else frame.copy()
            out[c] = col.dt.strftime("%Y-%m-%d")
    return out


def frame_text(frame: pd.DataFrame, index: bool = False) -> str:
    """A data frame as `grid` lays it out, each column as pandas writes it."""
    frame = _dates(frame.reset_index() if index else frame)
    if frame.empty:
        return "(no rows)\n" + "  ".join(map(str, frame.columns))
    shown = frame.astype(object).where(frame.notna(), "-")
    columns = [[v.strip() for v in shown.iloc[:, [i]].to_string(index=False).splitlines()]
               for i in range(shown.shape[1])]
    return grid([c[0] for c in columns], [list(row) for row in zip(*(c[1:] for c in columns))], left=())
