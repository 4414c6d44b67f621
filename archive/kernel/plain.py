"""Values as JSON's types, one way for every command's --json and for the
web catalog: a table is a list of objects, one per row, keyed by column
name; a day is "YYYY-MM-DD", another instant ISO 8601; an unknown value
(NULL, NaN) is null; a report object gives its own `to_dict()`/`as_dict()`.
pandas and numpy are imported only when a value is theirs."""
from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any


def plain(value: Any) -> Any:
    """`value` as JSON's types: dicts, lists, str, numbers, bools and None."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, (dt.datetime, dt.date)):
        return _instant(value)
    for method in ("to_dict", "as_dict"):
        if callable(getattr(value, method, None)) and not _is_pandas(value):
            return plain(getattr(value, method)())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    return _from_libraries(value)


def _from_libraries(value: Any) -> Any:
    """pandas and numpy values (imported only when a command used them)."""
    import numpy as np
    import pandas as pd

    if isinstance(value, pd.DataFrame):
        return records(value)
    if isinstance(value, pd.Series):
        return plain(value.to_dict())
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return plain(value.item())
    if value is pd.NaT or value is pd.NA:
        return None
    raise TypeError(f"no JSON for {type(value).__name__}")


def records(frame: Any) -> list[dict]:
    """A table as one object per row; days as dates (as the text tables show them)."""
    import pandas as pd

    out = frame.copy()
    for c in out.columns:
        col = out[c]
        if pd.api.types.is_datetime64_any_dtype(col):
            known = col.dropna()
            whole_days = (known == known.dt.normalize()).all()
            out[c] = [None if pd.isna(t) else (t.strftime("%Y-%m-%d") if whole_days else t.isoformat())
                      for t in col]
    return [plain(row) for row in out.to_dict("records")]


def _instant(value: dt.date) -> str | None:
    return None if type(value).__name__ == "NaTType" else value.isoformat()


def _is_pandas(value: Any) -> bool:
    return type(value).__module__.startswith("pandas")
