"""Capacity regimes: hand-made machines whose busy processors are known day
by day, and the real logs, whose daily peaks a plain loop over pandas'
reading of the file recounts."""
from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
import pytest
from real_logs import pandas_log
from wla.archive.analysis.diagnosis import capacity_regimes
from wla.archive.analysis.diagnosis.diagnose import diagnose
from wla.archive.analysis.diagnosis.log_data import from_columns, load

DAY = 86400
PACIFIC = "US/Pacific"
# 2000-02-01 00:00 in Los Angeles (PST, UTC-8)
FEB_1 = int(datetime(2000, 2, 1, tzinfo=ZoneInfo(PACIFIC)).timestamp())


def machine(busy: list[int], tz: str | None = PACIFIC, start: int | None = FEB_1, **columns) -> object:
    """A log with one job a day, day k from local noon to 22:00 on busy[k]
    processors (plus an hour's job of 1 processor at 1:00, the day's first)."""
    submit, wait, run, procs = [], [], [], []
    for k, p in enumerate(busy):
        noon = _local(start, tz, k, 12) if start is not None else k * DAY + 12 * 3600
        one = _local(start, tz, k, 1) if start is not None else k * DAY + 3600
        submit += [one, noon]
        wait += [0, 0]
        run += [3600, 10 * 3600]
        procs += [1, p]
    facts = {"unix_start_time": start, "tz": tz, "machine_size": 128} if start is not None else {}
    cols = {"submit": submit, "wait": wait, "run": run, "procs": procs}
    cols.update(columns)
    return from_columns("m", cols, facts)


def _local(start: int, tz: str, day: int, hour: int) -> int:
    """Seconds from the start to `hour` o'clock of local day `day` (DST-aware)."""
    zone = ZoneInfo(tz)
    d0 = datetime.fromtimestamp(start, zone).date().toordinal()
    from datetime import date, time
    when = datetime.combine(date.fromordinal(d0 + day), time(hour), zone)
    return int(when.timestamp()) - start


def test_a_machine_that_grows_from_64_to_128_on_a_known_day():
    # 70 days at 64 then 50 at 128: the change on local day 70, 2000-04-11
    # (after the switch to daylight time on April 2)
    log = machine([64] * 70 + [128] * 50)
    [f] = capacity_regimes.detect(log)
    assert f.detector == "capacity_regimes"
    assert (f.data["date"], f.data["before"], f.data["after"]) == ("2000-04-11", 64, 128)
    r1, r2 = f.data["regimes"]
    assert (r1["number"], r1["first"], r1["last"], r1["capacity"], r1["days"], r1["jobs"]) == \
        (1, "2000-02-01", "2000-04-10", 64, 70, 140)
    assert (r2["number"], r2["first"], r2["last"], r2["capacity"], r2["days"], r2["jobs"]) == \
        (2, "2000-04-11", "2000-05-30", 128, 50, 100)
    # regime 2 begins at local midnight of April 11 (PDT, UTC-7)
    midnight = datetime(2000, 4, 11, 7, tzinfo=timezone.utc).timestamp() - FEB_1
    assert r1["end"] == r2["start"] == midnight and r1["start"] is None and r2["end"] is None
    assert "grew" in f.what and "64 then 128 processors in use (+100%)" in f.how_much
    assert "rule regime and regime = 1 or 2" in f.action
    assert [r.number for r in capacity_regimes.regimes(log)] == [1, 2]


def test_a_drop_is_found_and_so_is_each_of_two_changes():
    found = capacity_regimes.detect(machine([100] * 40 + [60] * 40 + [100] * 40))
    assert [(f.data["before"], f.data["after"]) for f in found] == [(100, 60), (60, 100)]
    assert "dropped" in found[0].what and "(-40%)" in found[0].how_much


def test_a_steady_machine_and_one_with_a_quiet_week_have_one_regime():
    rng = np.random.default_rng(7)
    steady = machine(list(120 + rng.integers(-4, 5, 150)))
    assert capacity_regimes.detect(steady) == []
    quiet = machine([128] * 60 + [8] * 7 + [128] * 60)  # a holiday week: no regime
    assert capacity_regimes.detect(quiet) == []
    [r] = capacity_regimes.regimes(quiet)
    assert (r.capacity, r.days, r.jobs) == (128, 127, 254)


def test_thresholds_decide_what_is_a_regime():
    log = machine([128] * 60 + [8] * 30 + [128] * 60)  # a month at a sixteenth of the machine
    assert len(capacity_regimes.detect(log)) == 2
    assert capacity_regimes.detect(log, min_days=31) == []  # too short for a regime
    small = machine([120] * 60 + [112] * 60)  # 7% less
    assert capacity_regimes.detect(small) == []
    assert len(capacity_regimes.detect(small, min_change=0.05)) == 1


def test_a_wandering_demand_is_no_capacity():
    # the daily peak moves across a wide range: no plateau on either side
    rng = np.random.default_rng(3)
    log = machine(list(rng.integers(10, 60, 80)) + list(rng.integers(40, 120, 80)))
    assert capacity_regimes.detect(log) == []
    assert capacity_regimes.detect(log, plateau=0.0, tolerance=1.0) != []  # any day at the level


def test_an_undated_log_counts_days_of_its_clock_and_unknown_waits_start_at_submit():
    log = machine([64] * 40 + [128] * 40, tz=None, start=None, wait=[-1] * 160)
    [f] = capacity_regimes.detect(log)
    assert f.data["date"] == "day 40 of the log" and f.data["starts_from_submit"]
    assert "starts taken as submit times" in f.what
    assert "machine size" not in f.how_much
    assert capacity_regimes.detect(from_columns("e", {"run": [-1]})) == []


def test_every_prefix_deviation_at_once_equals_one_median_each():
    rng = np.random.default_rng(0)
    for _ in range(200):
        w = rng.integers(0, 300, rng.integers(1, 60)).astype(float) / rng.choice([1, 2, 4])
        each = [0.0] + [float(np.abs(w[:i] - np.median(w[:i])).sum()) for i in range(1, len(w) + 1)]
        assert capacity_regimes._deviations(w).tolist() == each


def test_starts_spread_over_more_than_a_century_are_not_judged():
    log = machine([64] * 40 + [128] * 40)
    assert len(capacity_regimes.regimes(log)) == 2
    log.jobs["submit"][-1] = 101 * 365.25 * DAY  # one start a century later: a damaged log, not a history
    assert capacity_regimes.daily_peaks(log).day.size == 0
    assert capacity_regimes.detect(log) == []


def test_daily_peaks_count_jobs_running_across_midnight_and_ends_before_starts():
    # a job of 10 from day 0 to day 2 at noon; one of 5 starting when another of 5 ends
    log = from_columns("x", {"submit": [0, 3 * DAY, 3 * DAY + 100], "wait": [0, 0, 0],
                             "run": [2.5 * DAY, 100, 100], "procs": [10, 5, 5]},
                       {"unix_start_time": 946684800, "tz": "UTC"})
    peaks = capacity_regimes.daily_peaks(log)
    assert peaks.peak.tolist() == [10, 10, 10, 5]  # day 3: never 10 at once
    assert peaks.day.tolist() == [10957, 10958, 10959, 10960]  # 2000-01-01 onwards


def test_a_job_ending_at_midnight_does_not_run_the_next_day():
    # 8 processors until midnight; the next day only a job of 3 starting at 01:00
    log = from_columns("x", {"submit": [0, DAY + 3600], "wait": [0, 0], "run": [DAY, 100], "procs": [8, 3]},
                       {"unix_start_time": 946684800, "tz": "UTC"})
    assert capacity_regimes.daily_peaks(log).peak.tolist() == [8, 3]


def test_daily_peaks_equal_a_plain_loop_on_random_logs():
    """Each day's peak against _plain_peak's loop over the day, on logs with
    ties at midnight, ends at starts, idle days and unknown sizes."""
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(1, 40))
        cols = {"submit": rng.integers(0, 6, n) * DAY / 4 + rng.choice([0, 1800], n),
                "wait": rng.choice([0, 0, DAY / 4, 3600], n), "run": rng.choice([-1, 1800, DAY / 4, DAY, 2 * DAY], n),
                "procs": rng.choice([-1, 1, 4, 16], n), "req_procs": rng.choice([-1, 2], n)}
        log = from_columns("r", cols, {"unix_start_time": None, "tz": None})
        frame = pd.DataFrame(cols)
        peaks = capacity_regimes.daily_peaks(log)
        for day, peak in zip(peaks.day.tolist(), peaks.peak.tolist()):
            assert peak == _plain_peak(frame, day * DAY, (day + 1) * DAY)
        ran = {d for d in range(-1, 10) if _plain_peak(frame, d * DAY, (d + 1) * DAY) > 0}
        starts = frame[(frame.run > 0) & ((frame.procs > 0) | (frame.req_procs > 0))]
        if len(starts):  # the days from the first start's to the last start's
            lo, hi = (int((starts.submit + starts.wait).agg(f) // DAY) for f in ("min", "max"))
            assert set(peaks.day.tolist()) == {d for d in ran if lo <= d <= hi}


SP2 = "SDSC-SP2-1998-4.2-cln"


def _plain_peak(frame, t0: float, t1: float) -> float:
    """Processors in use at the busiest instant of [t0, t1), by a plain loop
    over the jobs' starts and ends (allocated, else requested)."""
    events = []
    for submit, wait, run, procs, req in frame[["submit", "wait", "run", "procs", "req_procs"]].itertuples(
            index=False):
        p = procs if procs > 0 else req if req > 0 else 0
        if submit == -1 or wait == -1 or run <= 0 or p <= 0:
            continue
        start, end = submit + wait, submit + wait + run
        if start < t1 and end > t0:
            events += [(max(start, t0), 1, p), (end, 0, -p)]
    busy = best = 0
    for _, _, delta in sorted(events):  # ends (0) before starts (1) at one instant
        busy += delta
        best = max(best, busy)
    return best


def test_sdsc_sp2_grew_from_115_to_128_processors_at_the_end_of_november_1998(real_archive):
    log = load(real_archive, SP2)
    [f] = [f for f in diagnose(real_archive, SP2) if f.detector == "capacity_regimes"]
    assert (f.data["date"], f.data["before"], f.data["after"]) == ("1998-11-28", 115, 128)
    frame = pandas_log(SP2)
    start = log.facts["unix_start_time"]
    zone = ZoneInfo("US/Pacific")
    peaks = capacity_regimes.daily_peaks(log)
    by_day = dict(zip(peaks.day.tolist(), peaks.peak.tolist()))
    for day in ("1998-06-10", "1998-11-20", "1999-02-10"):
        d = datetime.fromisoformat(day).replace(tzinfo=zone)
        t0 = d.timestamp() - start
        ordinal = d.date().toordinal() - capacity_regimes.EPOCH
        assert by_day[ordinal] == _plain_peak(frame, t0, t0 + DAY)
    r1, r2 = f.data["regimes"]
    assert r1["jobs"] == int((frame["submit"] < r2["start"]).sum())
    assert r1["jobs"] + r2["jobs"] == len(frame)
    # about a third of the way into the log, as the paper saw it
    span = frame["submit"].max() - frame["submit"].min()
    assert 0.25 < (r2["start"] - frame["submit"].min()) / span < 0.35


@pytest.mark.parametrize("name, capacity", [("LLNL-Atlas-2006-2.1-cln", 8512), ("CEA-Curie-2011-2.1-cln", 88400)])
def test_atlas_and_curie_cleaned_hold_one_regime(real_archive, name, capacity):
    log = load(real_archive, name)
    assert capacity_regimes.detect(log) == []
    [r] = capacity_regimes.regimes(log)
    assert r.capacity == capacity and r.jobs == int((pandas_log(name)["submit"] != -1).sum())


@pytest.mark.long
def test_no_other_shared_log_has_a_capacity_change(real_archive):
    names = [n for (n,) in real_archive.con.execute("SELECT name FROM logs ORDER BY name").fetchall()]
    changed = {n for n in names if capacity_regimes.detect(load(real_archive, n))}
    assert changed == {SP2}


def test_the_regime_rule_numbers_regimes_with_the_detector_s_thresholds():
    import inspect

    from wla.archive.clean.rules import load_rules

    params = load_rules()["regime"].params
    defaults = inspect.signature(capacity_regimes.regimes).parameters
    for name in ("min_days", "min_change", "tolerance", "plateau"):
        assert params[name].default == defaults[name].default == inspect.signature(
            capacity_regimes.detect).parameters[name].default
