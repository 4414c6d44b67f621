"""The arrival cycles drawn (archive/analysis/cycles_plot.py): a PNG, the
same bytes for the same counts, with dates or with the log's own days."""
from __future__ import annotations

from wla.archive.analysis.cycles_plot import plot_cycles


def _cycles(relative: bool) -> dict:
    return {"relative": relative, "time_zone": None if relative else "US/Pacific",
            "day_of_week": [5, 9, 9, 8, 7, 2, 1], "hour_of_day": [h % 5 for h in range(24)]}


def test_the_same_cycles_are_the_same_png(tmp_path):
    for relative in (False, True):
        a, b = tmp_path / f"a{relative}.png", tmp_path / f"b{relative}.png"
        plot_cycles(_cycles(relative), a, "LOG")
        plot_cycles(_cycles(relative), b, "LOG")
        assert a.read_bytes()[:4] == b"\x89PNG" and a.read_bytes() == b.read_bytes()
    assert (tmp_path / "aFalse.png").read_bytes() != (tmp_path / "aTrue.png").read_bytes()  # other labels
