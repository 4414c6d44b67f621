"""A daily cycle off working hours: a hand-made cycle shifted by 8 hours
(times kept in UTC, read as US/Pacific), and SDSC Blue's cleaned versions,
whose weekday cycle pandas counts from the file."""
from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
import pytest
from real_logs import pandas_log
from wla.archive.analysis.diagnosis import time_zone
from wla.archive.analysis.diagnosis.diagnose import diagnose
from wla.archive.analysis.diagnosis.log_data import from_columns, load

PACIFIC = "US/Pacific"
MONDAY = int(datetime(2001, 1, 8, tzinfo=ZoneInfo(PACIFIC)).timestamp())  # 00:00 PST, a Monday
# jobs per hour of a working day: busiest 9-17, none at night
PROFILE = [0, 0, 0, 0, 0, 1, 2, 4, 8, 12, 14, 15, 12, 14, 15, 13, 10, 6, 3, 2, 1, 1, 0, 0]


def _cycle_log(shift: int, days: int = 28, profile: list[int] = PROFILE):
    """Every day of four weeks (January: PST throughout) with `profile`'s
    arrivals, each hour's jobs moved by `shift` hours."""
    submit = [d * 86400 + ((h + shift) % 24) * 3600 + 60 * k
              for d in range(days) for h, n in enumerate(profile) for k in range(n)]
    return from_columns("t", {"submit": submit}, {"unix_start_time": MONDAY, "tz": PACIFIC})


def _busiest(counts, width):
    """The first hour of the busiest `width` hours, by a plain loop."""
    sums = [sum(counts[(h + k) % 24] for k in range(width)) for h in range(24)]
    return sums.index(max(sums)), sums.index(min(sums))


def test_a_cycle_shifted_by_eight_hours_is_found_with_the_offset_back():
    log = _cycle_log(8)
    [f] = time_zone.detect(log)
    counts = [0] * 24
    for s in log.jobs["submit"]:
        when = datetime.fromtimestamp(MONDAY + s, ZoneInfo(PACIFIC))
        counts[when.hour] += when.weekday() < 5
    peak, _ = _busiest(counts, 8)
    _, trough = _busiest(counts, 4)
    assert f.data["peak_hour"] == (peak + 4) % 24 == 21
    assert f.data["trough_hour"] == (trough + 2) % 24
    assert f.data["offset_hours"] == -8 and f.data["utc_like"]
    assert "outside working hours" in f.where and "13:00" in f.how_much
    assert f"unix-start-time {MONDAY - 8 * 3600}" in f.action


def test_the_unshifted_cycle_and_a_log_without_a_start_are_not_findings():
    assert time_zone.detect(_cycle_log(0)) == []
    moved = _cycle_log(8)
    moved.facts["unix_start_time"] = None
    assert time_zone.detect(moved) == []
    assert time_zone.detect(_cycle_log(8, days=2)) == []  # too few arrivals to judge


def test_a_trough_in_working_hours_is_found_though_the_peak_is_in_them():
    # busiest 13:00-21:00 (centre 17:00, inside 08:00-18:00), nothing 08:00-12:00
    evening = [3] * 8 + [0] * 4 + [1] + [12] * 8 + [3] * 3
    [f] = time_zone.detect(_cycle_log(0, profile=evening))
    assert (f.data["peak_hour"], f.data["trough_hour"]) == (17, 10)
    assert f.where.endswith("the trough falls in working hours") and f.data["offset_hours"] == -4


def _pandas_weekday_hours(name: str) -> np.ndarray:
    frame = pandas_log(name)
    log_start = 956700003  # the file's UnixStartTime
    frame = frame[frame.submit >= 0]
    local = pd.to_datetime(log_start + frame.submit.astype("int64"), unit="s", utc=True).dt.tz_convert(PACIFIC)
    weekday = local[local.dt.day_of_week < 5]
    return np.bincount(weekday.dt.hour, minlength=24)


@pytest.mark.parametrize("name", ["SDSC-BLUE-2000-4.2-cln"])
def test_sdsc_blue_cleaned_peaks_in_working_hours(real_archive, name):
    """The paper's evening peak does not survive in the cleaned version we hold."""
    counts = _pandas_weekday_hours(name)
    log = load(real_archive, name)
    assert time_zone.weekday_hours(log).tolist() == counts.tolist()
    peak, _ = _busiest(list(counts), 8)
    _, trough = _busiest(list(counts), 4)
    p = time_zone.daily_peak(time_zone.weekday_hours(log))
    assert (p["peak"], p["trough"]) == ((peak + 4) % 24, (trough + 2) % 24) == (13, 3)
    assert [f for f in diagnose(real_archive, name) if f.detector == "time_zone"] == []


@pytest.mark.slow
def test_no_shared_log_has_a_cycle_off_working_hours(real_archive):
    names = [r[0] for r in real_archive.con.execute("SELECT name FROM logs").fetchall()]
    assert len(names) >= 19
    assert {n: time_zone.detect(load(real_archive, n)) for n in names} == {n: [] for n in names}
