"""The zone's offsets at each instant: exact across changes, asked only
about the days that hold instants."""
from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import numpy as np
from wla.archive.analysis import cycles
from wla.archive.analysis.cycles import utc_offsets


def _python(instants, tz: str) -> list[int]:
    zone = ZoneInfo(tz)
    return [int(datetime.fromtimestamp(int(t), zone).utcoffset().total_seconds()) for t in instants]


def test_offsets_around_daylight_saving_changes_are_those_of_python():
    # Stockholm left summer time on 2002-10-27 at 01:00 UTC; instants on both sides, one at the second itself
    change = 1035680400
    instants = np.array([change - 86_400 * 40, change - 1, change, change + 1, change + 3600 * 5,
                         change + 86_400 * 200])
    assert utc_offsets(instants, "Europe/Stockholm").tolist() == _python(instants, "Europe/Stockholm")
    assert utc_offsets(instants, None).tolist() == [0] * 6


def test_a_few_instants_millennia_apart_ask_the_zone_about_their_days_only(monkeypatch):
    asked = []
    original = cycles._offset

    def counting(zone, instant):
        asked.append(instant)
        return original(zone, instant)

    monkeypatch.setattr(cycles, "_offset", counting)
    instants = np.array([-62_000_000_000, 0, 1_000_000_000, 253_000_000_000])  # year 5 to year 9987
    assert utc_offsets(instants, "Pacific/Kiritimati").tolist() == _python(instants, "Pacific/Kiritimati")
    assert len(asked) <= 8 + 2 * 17  # the start and end of each of 4 days, a bisection where a day changes
