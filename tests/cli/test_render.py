"""Plain-text tables for the terminal (cli/render.py)."""
from __future__ import annotations

import pandas as pd
from wla.cli.render import frame_text, percent_columns


def test_unknown_is_a_dash_and_whole_days_are_dates():
    frame = pd.DataFrame({"log": ["a", "b"], "first": pd.to_datetime(["1998-04-24", None]), "jobs": [3, None]})
    assert frame_text(frame).splitlines() == ["log      first jobs",
                                              "  a 1998-04-24  3.0",
                                              "  b          -    -"]


def test_an_empty_table_says_so_with_its_columns():
    assert frame_text(pd.DataFrame({"log": [], "jobs": []})) == "(no rows)\nlog  jobs"


def test_shares_as_percentages():
    frame = pd.DataFrame({"share": [0.5, 0.1234, None], "n": [1, 2, 3]})
    shares = percent_columns(frame, ["share", "absent"])["share"]
    assert shares[:2].tolist() == ["50.0%", "12.3%"] and pd.isna(shares[2])  # unknown stays unknown
    assert frame["share"].iloc[0] == 0.5  # the caller's table is left as it was
