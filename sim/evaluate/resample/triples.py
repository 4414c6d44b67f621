"""Rare-behavior triples: written by hand (USER:BEGIN:END) or taken from the
flurry candidates of `wla flurries`."""
from __future__ import annotations

import re
from datetime import date, timedelta
from typing import TYPE_CHECKING

import numpy as np
from wla.archive.kernel.clock import DAY, WEEK, LogClock
from wla.archive.kernel.errors import UsageError

from .pools import Triple

if TYPE_CHECKING:
    import pandas as pd

_WHEN = r"\d{4}-\d\d-\d\d(?: \d\d:\d\d(?::\d\d)?)?|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_TRIPLE = re.compile(rf"^\s*(\d+)\s*:\s*({_WHEN})\s*:\s*({_WHEN})\s*$")
_DAY_ONLY = re.compile(r"^\d{4}-\d\d-\d\d$")


def _seconds(text: str, clock: LogClock, end: bool) -> float:
    """Submit seconds of a number or a local date; a date without a time as
    END means the whole of that day."""
    if not text[0].isdigit() or "-" not in text[1:5]:
        return float(text)
    from wla.archive.kernel.errors import PredicateError
    from wla.archive.store.predicate import submit_seconds

    try:
        if end and _DAY_ONLY.match(text):
            following = (date.fromisoformat(text) + timedelta(days=1)).isoformat()
            return float(np.nextafter(float(submit_seconds(following, clock)), -np.inf))
        return float(submit_seconds(text, clock))
    except (PredicateError, ValueError) as e:
        raise UsageError(f"rare-behavior triple: {e}") from None


def parse_triple(text: str, clock: LogClock = LogClock()) -> Triple:
    """USER:BEGIN:END, BEGIN and END as submit seconds or local dates
    (YYYY-MM-DD or 'YYYY-MM-DD HH:MM[:SS]')."""
    m = _TRIPLE.match(text)
    if m is None:
        raise UsageError(f"not a rare-behavior triple: {text!r} (use USER:BEGIN:END, times as seconds "
                         "or dates, e.g. 42:1998-05-01:1998-05-07)")
    t = Triple(int(m[1]), _seconds(m[2], clock, False), _seconds(m[3], clock, True))
    if not t.begin <= t.end:
        raise UsageError(f"rare-behavior triple {text!r} ends before it begins")
    return t


def log_triples(archive, log: str, texts) -> list[Triple]:
    """USER:BEGIN:END texts of a log, dates read in the log's own time zone."""
    if not texts:
        return []
    from wla.archive.store.catalog import log_facts

    facts = log_facts(archive, log)
    clock = LogClock(facts.get("unix_start_time"), facts.get("tz"))
    return [parse_triple(t, clock) for t in texts]


def flurry_triples(jobs: pd.DataFrame, clock: LogClock) -> list[Triple]:
    """A triple per flurry candidate of `wla flurries` (default thresholds):
    the user's week or day, or all of a dominant user's jobs."""
    from wla.archive.analysis.flurries import flurries

    report = flurries(jobs, unix_start_time=clock.unix_start_time, tz=clock.tz)
    out: list[Triple] = []
    for c in report.candidates:
        if c.kind == "dominance":
            out.append(Triple(c.user, 0.0, float("inf")))
        else:
            length = WEEK if c.kind == "week" else DAY
            out.append(Triple(c.user, float(c.period * length), float(np.nextafter((c.period + 1) * length, 0))))
    return out
