"""The baselines of user-level resampling: a workload drawn session by
session or job by job (docs/pages/reproductions/baselines.md).

The resampling paper (section 3) resamples whole users because drawing
smaller units loses structure: single jobs lose their user's sessions and
the locality between them; whole sessions keep each session but lose the
order and spacing of a user's sessions. These plans draw those units so the
loss can be measured with the same statistics.

- units: every session (or job) of the pool's users that are not
  rare-behavior (long-term, temporary and discarded alike: all were real
  load); a session starts when a job's submit is more than `gap` seconds
  after the end of the user's previous jobs, as the statistics count them;
- count: half_up(load x units x weeks / the log's weeks), fixed, so a
  workload of the log's length holds as many units as the log (logs mixed:
  the sum of each log's units a week);
- each draw: a unit, uniformly (or by its user's weight) with replacement,
  and an output week, uniformly; the unit's jobs are moved by whole weeks
  so its first job falls in that week (day of the week and time of day
  kept), jobs at or after the end are not taken;
- identity: each job keeps its source user (one instance per user, so
  per-user statistics see how the user's jobs were scattered).
Draws from one PCG64 stream seeded with `seed`: the units, then the weeks.
"""
from __future__ import annotations

import numpy as np
from wla.archive.kernel.clock import WEEK
from wla.archive.kernel.errors import OptionError, UsageError

from ...seeds import stream
from .generate import Plan, default_weeks, half_up
from .pools import RARE, UserPools
from .settings import ResampleSettings

SESSION_GAP = 1200.0  # seconds: as archive/analysis/stats/users.py counts sessions


def units(pools: UserPools, submit: np.ndarray, end: np.ndarray, unit: str,
          gap: float = SESSION_GAP) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The log's units: (job indices, unit by unit, in submit order; offsets;
    the pool user of each unit). A session breaks where a job's submit is
    more than `gap` after the latest end of the user's earlier jobs."""
    members, offsets, owner = [], [0], []
    for u in np.flatnonzero(pools.kind != RARE):
        jobs = pools.jobs_of(int(u))
        if unit == "job":
            cuts = np.arange(1, len(jobs))
        else:
            latest = np.maximum.accumulate(end[jobs])
            cuts = np.flatnonzero(submit[jobs][1:] - latest[:-1] > gap) + 1
        bounds = np.r_[cuts, len(jobs)]
        members.append(jobs)
        offsets.extend((bounds + offsets[-1]).tolist())
        owner.extend([int(u)] * len(bounds))
    if not members:
        return np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64)
    return np.concatenate(members).astype(np.int64), np.asarray(offsets, np.int64), np.asarray(owner, np.int64)


def unit_plan(pools: UserPools, submit: np.ndarray, end: np.ndarray, settings: ResampleSettings,
              weights: np.ndarray | None = None) -> Plan:
    """A workload of single sessions or jobs drawn from the log (settings.unit
    'session' or 'job'); `weights`, per pool user, bias the draw."""
    s = settings.checked()
    _refuse_user_settings(s)
    weeks = s.weeks if s.weeks is not None else default_weeks(pools)
    members, offsets, owner = units(pools, submit, end, s.unit)
    n_units = len(owner)
    if not n_units:
        raise UsageError(f"the log has no {s.unit} to resample (see `wla users`)")
    per_week = _per_week(pools, owner)
    drawn = half_up(s.load * per_week * weeks)
    rng = stream(s.seed)
    if weights is None:
        which = rng.integers(n_units, size=drawn)
    else:
        p = weights[owner].astype(np.float64)
        which = rng.choice(n_units, size=drawn, replace=True, p=p / p.sum())
    week = rng.integers(weeks, size=drawn)
    starts, sizes = offsets[which], offsets[which + 1] - offsets[which]
    segment = np.repeat(np.arange(drawn, dtype=np.int64), sizes)
    before = np.repeat(np.cumsum(sizes) - sizes, sizes)
    source = members[np.arange(int(sizes.sum())) - before + np.repeat(starts, sizes)]
    first_week = (submit[members[starts]] // WEEK).astype(np.int64)
    moved = submit[source] + np.repeat(week - first_week, sizes) * WEEK
    keep = moved < weeks * WEEK
    source, moved, segment = source[keep], moved[keep], segment[keep]
    users = np.unique(pools.user[owner[which]]) if drawn else np.zeros(0, np.int64)
    job_user = pools.user[owner[which]][segment]
    instance = np.searchsorted(users, job_user)
    order = np.lexsort((np.arange(len(source)), moved))
    figures = {"unit": s.unit, "weeks": weeks, "units_in_log": n_units, "units_drawn": drawn,
               "units_per_week": per_week * s.load}
    return Plan(source[order], moved[order], segment[order], instance[order], users.astype(np.int64),
                np.zeros(len(users), np.int64), np.zeros(len(users), bool), figures)


def _per_week(pools: UserPools, owner: np.ndarray) -> float:
    """The log's units a week; logs mixed (mix.py), the sum of each log's."""
    if not pools.parts:
        return len(owner) / default_weeks(pools)
    counts = np.bincount(pools.origin[owner], minlength=len(pools.parts))
    return float(sum(c / default_weeks(p) for c, p in zip(counts, pools.parts)))


def _refuse_user_settings(s: ResampleSettings) -> None:
    """The settings that shape users' arrivals mean nothing when units are drawn."""
    for name in ("long_term", "temporary", "arrival_rate"):
        if getattr(s, name) is not None:
            raise OptionError(name, f"shapes users' arrivals; unit {s.unit!r} draws single {s.unit}s")
    if s.rb_npw:
        raise OptionError("rb_npw", f"draws rare-behavior users; unit {s.unit!r} draws single {s.unit}s")
    if s.phase != "activity":
        raise OptionError("phase", f"places long-term users; unit {s.unit!r} draws single {s.unit}s")
