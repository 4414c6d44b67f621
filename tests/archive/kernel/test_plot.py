"""What the plots share (archive/kernel/plot.py): where a log's periods sit
on the x axis, and PNG files that are the same bytes for the same figure."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from wla.archive.kernel.clock import DAY, WEEK, LogClock
from wla.archive.kernel.plot import period_axis, save


def test_without_a_start_time_periods_are_numbers():
    x, width, dates = period_axis(LogClock(), np.array([0, 3]), WEEK)
    assert x.tolist() == [0.0, 3.0] and width == 1.0 and dates is False


def test_with_a_start_time_periods_are_local_day_numbers():
    # 1970-01-02T00:00Z is day 1; in New York (UTC-5 in January) that is
    # 1970-01-01T19:00, day 1 - 5/24.
    x, width, dates = period_axis(LogClock(DAY, None), np.array([0, 2]), DAY)
    assert x.tolist() == [1.0, 3.0] and width == 1.0 and dates is True
    x, width, _ = period_axis(LogClock(DAY, "America/New_York"), np.array([0, 1]), WEEK)
    assert np.allclose(x, [1 - 5 / 24, 8 - 5 / 24]) and width == 7.0


def test_the_same_figure_is_the_same_bytes(tmp_path):
    def draw(path):
        fig = Figure(figsize=(2, 2), dpi=50)
        fig.add_subplot().plot([0, 1], [1, 0])
        save(fig, path)
        return path.read_bytes()

    first, second = draw(tmp_path / "a.png"), draw(tmp_path / "b.png")
    assert first[:8] == b"\x89PNG\r\n\x1a\n" and first == second and b"Software" not in first
