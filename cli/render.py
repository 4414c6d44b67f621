"""Plain-text tables for the terminal (pandas is loaded by the commands that
have tables to show, not at start-up)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


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


def frame_text(frame: pd.DataFrame, index: bool = False, header: bool = True) -> str:
    frame = _dates(frame)
    if frame.empty and header:
        return "(no rows)\n" + "  ".join(map(str, frame.columns))
    shown = frame.astype(object).where(frame.notna(), "-")
    return shown.to_string(index=index, header=header)
