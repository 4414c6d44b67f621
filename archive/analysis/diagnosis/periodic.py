"""Periodic automatic jobs: a user or an application submitting at the same
time of day on most days, as SDSC Paragon's maintenance script did every
day at about 3:45 AM. Such jobs are not users' demand; they perturb the
daily cycle and a simulation's load at that hour.

A time of day is a `window`-minute span of the log's local day, counted at
two phases `window`/2 apart (00:00, 00:20, ... and 00:10, 00:30, ...), so a
job that wanders by up to a quarter of the window around its time always
falls inside one span. For each user (and application) and span, the days
with at least one of its jobs there are counted, all pairs at once. A pair
is periodic when those days number at least `min_days`, make up at least
`share_of_days` of the days from its first to its last, and stand out from
the same user's days in the spans an hour before and after and from its
average span's days (`contrast` times the largest of the three): a user who
simply works every day, all day or all working day, is not periodic.
"""
from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from ...kernel.clock import DAY
from .finding import Finding, share
from .log_data import LogData
from .time_zone import local_seconds

MINUTE = 60
FIELDS = {"user_id": "user", "app_id": "application"}
PREDICATE_NAMES = {"user_id": "user", "app_id": "app"}


def detect(log: LogData, window: int = 20, min_days: int = 14, share_of_days: float = 0.5,
           contrast: float = 3.0, fields: tuple[str, ...] = ("user_id", "app_id")) -> list[Finding]:
    """One finding per user and time of day, and per time of day for the
    applications periodic over the same days (one script's programs); an
    application's finding is left out where a user's covers its jobs."""
    local, known = local_seconds(log)
    if len(local) == 0 or 1440 % window or window % 2:
        return []
    day = local // DAY
    minute = (local % DAY) // MINUTE
    found: list[dict] = []
    for field in fields:
        ids = log.jobs[field][known].astype(np.int64)
        mine = ids >= 0
        found += _pairs(field, ids[mine], day[mine], minute[mine], window, min_days, share_of_days, contrast)
    columns = {field: log.jobs[field][known] for field in fields}

    def inside(field: str, ids: list[int], start: int) -> np.ndarray:
        """The positions (among known submits) of these ids' jobs in the span."""
        at = np.flatnonzero(np.isin(columns[field], ids) if len(ids) > 1 else columns[field] == ids[0])
        return at[_in_span(minute[at], start, window)]

    for c in found:  # how far the jobs' median time is from the span's centre, to choose between phases
        at = inside(c["field"], [c["id"]], c["start"])
        c["off_centre"] = abs(float(np.median((minute[at] - c["start"]) % 1440)) - window / 2)
    rows = np.flatnonzero(known)
    findings, covered = [], []
    for c in _group(_pick(found, window)):
        at = inside(c["field"], c["ids"], c["start"])
        if c["field"] != "user_id" and any(np.isin(at, other).sum() >= 0.9 * len(at) for other in covered):
            continue
        covered.append(at)
        findings.append(_finding(log, c, rows[at], minute[at], window))
    return findings


def _pairs(field: str, ids: np.ndarray, day: np.ndarray, minute: np.ndarray, window: int,
           min_days: int, share_of_days: float, contrast: float) -> list[dict]:
    """The periodic (id, span) pairs of both phases, by distinct-day counts
    computed for every pair at once from sorted unique (id, span, day) keys;
    the jobs are first reduced to unique (id, half-span, day) keys, which
    both phases' spans are unions of."""
    if len(ids) == 0:
        return []
    halves = 2880 // window
    first_day = int(day.min())
    days = int(day.max()) - first_day + 1
    reduced = _unique((ids * halves + minute * halves // 1440) * days + (day - first_day))
    rest, d = np.divmod(reduced, days)
    ident, half = np.divmod(rest, halves)
    out = []
    for phase in (0, 1):  # spans start on even halves, or on odd ones
        span = ((half - phase) % halves) // 2
        out += _periodic(field, ident, span, d, halves // 2, days, first_day, window, phase * window // 2,
                         min_days, share_of_days, contrast)
    return out


def _periodic(field: str, ident: np.ndarray, span: np.ndarray, d: np.ndarray, spans: int, days: int,
              first_day: int, window: int, phase: int, min_days: int, share_of_days: float,
              contrast: float) -> list[dict]:
    keys = _unique((ident * spans + span) * days + d)
    pair, d = np.divmod(keys, days)
    start = np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]])  # pair is sorted: its runs
    pairs, count = pair[start], np.diff(np.r_[start, len(pair)])
    first, last = d[start], d[start + count - 1]
    # the same id's days an hour before and after, and in an average span of its day
    step = max(1, 60 // window)
    before = _days_at(pairs, count, spans, -step)
    after = _days_at(pairs, count, spans, step)
    owner = pairs // spans
    _, at = np.unique(owner, return_inverse=True)
    mean = (np.bincount(at, weights=count) / spans)[at]
    keep = ((count >= min_days) & (count >= share_of_days * (last - first + 1))
            & (count >= contrast * np.maximum(np.maximum(before, after), mean)))
    out = []
    for p, n, a, b, x, y in zip(pairs[keep], count[keep], first[keep], last[keep], before[keep], after[keep]):
        i, s = divmod(int(p), spans)
        out.append({"field": field, "id": i, "start": (s * window + phase) % 1440, "days": int(n),
                    "first_day": int(a) + first_day, "last_day": int(b) + first_day,
                    "neighbour_days": int(max(x, y))})
    return out


def _unique(keys: np.ndarray) -> np.ndarray:
    """Sorted distinct integers: a sort (of 32-bit integers where they fit,
    which sorts faster), faster than np.unique's hashing here."""
    if len(keys) and 0 <= keys.min() and keys.max() < 2 ** 31:
        keys = keys.astype(np.int32)
    keys = np.sort(keys).astype(np.int64)
    return keys[np.r_[True, keys[1:] != keys[:-1]]] if len(keys) else keys


def _days_at(pairs: np.ndarray, count: np.ndarray, spans: int, shift: int) -> np.ndarray:
    """For each pair, the distinct days of the same id `shift` spans away."""
    ident, s = np.divmod(pairs, spans)
    other = ident * spans + (s + shift) % spans
    at = np.searchsorted(pairs, other)
    at = np.minimum(at, len(pairs) - 1)
    return np.where(pairs[at] == other, count[at], 0)


def _pick(found: list[dict], window: int) -> list[dict]:
    """The best span of each cluster: spans of one id that overlap (the two
    phases, or neighbours) describe one periodic job; keep the one with the
    most days, of those the one centred best on its jobs."""
    out: list[dict] = []
    for c in sorted(found, key=lambda c: (c["field"] != "user_id", -c["days"], c["off_centre"], c["id"], c["start"])):
        if not any(o["field"] == c["field"] and o["id"] == c["id"]
                   and _apart(o["start"], c["start"]) < window for o in out):
            out.append(c)
    return out


def _group(picked: list[dict]) -> list[dict]:
    """Applications periodic at the same time over the same days become one
    candidate (a script running several programs); users stay one each."""
    out: list[dict] = []
    for c in picked:
        same = [o for o in out if c["field"] != "user_id" and o["field"] == c["field"]
                and (o["start"], o["first_day"], o["last_day"]) == (c["start"], c["first_day"], c["last_day"])]
        if same:
            same[0]["ids"].append(c["id"])
        else:
            out.append({**c, "ids": [c["id"]]})
    return out


def _apart(a: int, b: int) -> int:
    return min((a - b) % 1440, (b - a) % 1440)


def _in_span(minute: np.ndarray, start: int, window: int) -> np.ndarray:
    return (minute - start) % 1440 < window


def _hhmm(minute: float) -> str:
    m = int(round(minute)) % 1440
    return f"{m // 60:02d}:{m % 60:02d}"


def _date(local_day: int) -> str:
    return datetime.fromtimestamp(local_day * DAY, timezone.utc).date().isoformat()


def _finding(log: LogData, c: dict, rows: np.ndarray, minute: np.ndarray, window: int) -> Finding:
    label, name = FIELDS[c["field"]], PREDICATE_NAMES[c["field"]]
    # the typical time: the median minute, measured from the span's start so a span across midnight works
    typical = c["start"] + float(np.median((minute - c["start"]) % 1440))
    spanned = c["last_day"] - c["first_day"] + 1
    jobs = log.jobs["job"][rows]
    end = (c["start"] + window - 1) % 1440
    ids = sorted(c["ids"])
    who = f"{label} {ids[0]}" if len(ids) == 1 else \
        f"{len(ids)} {label}s {', '.join(map(str, ids[:5]))}{', ...' if len(ids) > 5 else ''}"
    chosen = f"{name}={ids[0]}" if len(ids) == 1 else f"{name} in ({', '.join(map(str, ids))})"
    predicate = f"{chosen} and daily('{_hhmm(c['start'])}','{_hhmm(end)}:59')"
    return Finding(
        detector="periodic_jobs",
        what=f"periodic jobs of {who}",
        where=f"every day at about {_hhmm(typical)} ({_hhmm(c['start'])}-{_hhmm(end)}:59 local), "
              f"on {c['days']} of the {spanned} days {_date(c['first_day'])} to {_date(c['last_day'])}; "
              f"jobs {int(jobs.min())}-{int(jobs.max())}",
        how_much=f"{len(rows):,} jobs ({share(len(rows), len(log))}); {c['neighbour_days']} "
                 f"day{'s' if c['neighbour_days'] != 1 else ''} with jobs an hour before or after",
        action=f"Automatic jobs, not users' demand: --exclude \"{predicate}\" (or the filter rule)",
        data={"field": c["field"], "ids": ids, "time": _hhmm(typical),
              "window": [_hhmm(c["start"]), _hhmm(end) + ":59"], "days": c["days"], "spanned_days": spanned,
              "first_date": _date(c["first_day"]), "last_date": _date(c["last_day"]), "jobs": len(rows),
              "first_job": int(jobs.min()), "last_job": int(jobs.max()), "predicate": predicate},
    )
