"""Values as JSON's types (archive/kernel/plain.py), each worked out by hand."""
from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
from pathlib import PurePosixPath

import numpy as np
import pandas as pd
import pytest
from wla.archive.kernel.plain import plain, records


@dataclasses.dataclass
class Point:
    x: int
    when: dt.date


class Report:
    def to_dict(self) -> dict:
        return {"ratio": float("nan"), "path": PurePosixPath("a/b.swf")}


def test_python_values():
    assert plain({1: (2.5, math.inf), "s": {3, 3}}) == {"1": [2.5, None], "s": [3]}
    assert plain(dt.datetime(2024, 2, 29, 13, 5)) == "2024-02-29T13:05:00"
    assert plain(Point(1, dt.date(1998, 4, 24))) == {"x": 1, "when": "1998-04-24"}
    assert plain(Report()) == {"ratio": None, "path": "a/b.swf"}
    assert plain(True) is True and plain(None) is None


def test_numpy_and_pandas_values():
    assert plain(np.int64(7)) == 7 and type(plain(np.int64(7))) is int
    assert plain(np.array([1.5, np.nan])) == [1.5, None]
    assert plain(pd.NaT) is None and plain(pd.NA) is None
    assert plain(pd.Series({"a": np.float32(0.5)})) == {"a": 0.5}
    with pytest.raises(TypeError, match="no JSON for object"):
        plain(object())


def test_a_table_is_one_object_per_row_and_whole_days_are_dates():
    frame = pd.DataFrame({"day": pd.to_datetime(["2024-01-01", None]),
                          "at": pd.to_datetime(["2024-01-01 06:30", "2024-01-02 00:00"]),
                          "n": [1, 2]})
    assert records(frame) == [{"day": "2024-01-01", "at": "2024-01-01T06:30:00", "n": 1},
                              {"day": None, "at": "2024-01-02T00:00:00", "n": 2}]
    json.dumps(records(frame))  # JSON's types only
