"""What the plots share (archive/kernel/plot.py): where a log's periods sit
on the x axis, and PNG files that are the same bytes for the same figure."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from wla.archive.kernel.clock import DAY, WEEK, LogClock
from wla.archive.kernel.plot import PlainFormatter, count_axis, duration_unit, period_axis, plain, save


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


def test_numbers_are_written_plainly():
    assert [plain(v) for v in (20_750.3, 0.8246, 1.23456, 0.000012345, 10_000_000.0, -2.5, 0.0, float("nan"))] == [
        "20,750", "0.8246", "1.235", "0.00001234", "10,000,000", "-2.5", "0", "-"]


def test_ticks_take_the_decimals_they_need_and_no_exponent(tmp_path):
    f = PlainFormatter()
    for locs, want in (([0, 0.25, 0.5, 0.75], ["0.00", "0.25", "0.50", "0.75"]),
                       ([0, 5e6, 1e7], ["0", "5,000,000", "10,000,000"]),
                       ([0.1 + 0.2, 0.4], ["0.3", "0.4"]),  # 0.30000000000000004 is 0.3
                       ([-1e-17, 0.2], ["0.0", "0.2"])):  # no minus zero
        f.set_locs(locs)
        assert [f(x) for x in locs] == want
    fig = Figure(figsize=(4, 3), dpi=50)
    ax = fig.add_subplot()
    ax.plot([1e6, 1e6 + 5], [1, 1e7])  # matplotlib alone: an offset "+1e6" and "1e7" in the corners
    log = fig.add_subplot(2, 1, 2)
    log.loglog([1, 1e6], [1, 2])
    save(fig, tmp_path / "a.png")
    assert ax.xaxis.get_offset_text().get_text() == "" and ax.yaxis.get_offset_text().get_text() == ""
    assert "1,000,005" in [t.get_text() for t in ax.get_xticklabels()]
    decades = [t.get_text() for t in log.get_xticklabels() if t.get_text()]
    assert {"1", "100", "100,000", "1,000,000"} <= set(decades) and not any("e" in t or "$" in t for t in decades)


def test_durations_take_the_unit_they_reach_twice_and_counts_whole_ticks():
    assert duration_unit([100.0]) == ("s", 1.0) and duration_unit([119.0, 120.0]) == ("min", 60.0)
    assert duration_unit([7200.0]) == ("h", 3600.0) and duration_unit([-3 * DAY, float("nan")]) == ("d", DAY)
    fig = Figure()
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 3])
    count_axis(ax.yaxis)
    assert all(float(t).is_integer() for t in ax.get_yticks())
