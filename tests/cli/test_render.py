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


def test_a_wide_table_wraps_into_blocks_under_100_columns_and_wide_keeps_one_line():
    from wla.cli.render import grid, wide

    rows = [[f"row{i}", *(f"{'x' * 12}{j}" for j in range(10))] for i in range(2)]
    columns = ["name", *(f"column{j}" for j in range(10))]
    fitted = grid(columns, rows)
    assert max(map(len, fitted.splitlines())) <= 100 and fitted.count("\n\n") == 1  # two blocks
    assert [line.split()[0] for line in fitted.splitlines() if line] == ["name", "row0", "row1"] * 2
    with wide(True):
        assert grid(columns, rows).count("\n") == 2  # header and two rows, 11 columns each
    long = grid(["name", "reason"], [["a", "y" * 60], ["b", "z" * 60]] * 1 + [["c", "w" * 70]])
    assert max(map(len, long.splitlines())) <= 100  # fits: nothing cut
    cut = grid(["name", "r1", "r2"], [["a", "y" * 60, "z" * 60]])
    assert cut.splitlines()[1] == "a    " + "y" * 39 + "… " + "z" * 39 + "…"
