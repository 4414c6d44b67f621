"""A log cut into per-user subtraces, and each user's pool (docs/pages/definitions/resampling.md).

A pool user is a slice of the log's jobs in submit order: a real user's jobs
outside every rare-behavior triple, or the jobs one triple covers (a
pseudo-user of its own). Weeks follow the log's submit clock (week k is
[k*WEEK, (k+1)*WEEK)); the log's start and end are its first and last submit.

The log's own figures, the defaults of a resampled workload:
- long-term users: their number;
- initial temporary users: temporary users active per week on average, a
  user being active in every week from the week of its first submit to the
  week of its last;
- arrival rate: temporary users whose first week is after the log's first
  week, per week after the first (users of the first week were already
  there when logging began).
Both temporary figures count discarded users too: their jobs were real
load, and the kept users stand in for them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from wla.archive.kernel.clock import WEEK
from wla.archive.kernel.errors import ParameterError, UsageError

LONG_TERM, TEMPORARY, DISCARDED, RARE = 0, 1, 2, 3
CLASSES = ("long-term", "temporary", "discarded", "rare-behavior")


@dataclass(frozen=True)
class Triple:
    """A user's jobs submitted in [begin, end] (submit seconds, both ends in)."""

    user: int
    begin: float
    end: float


@dataclass(frozen=True)
class UserPools:
    members: np.ndarray  # indices into the log's jobs, pool user by pool user, each in submit order
    offsets: np.ndarray  # pool user u holds members[offsets[u]:offsets[u + 1]]
    user: np.ndarray  # the real user of each pool user
    kind: np.ndarray  # LONG_TERM, TEMPORARY, DISCARDED or RARE
    first: np.ndarray  # first and last submit of each pool user
    last: np.ndarray
    log_first: float
    log_last: float
    long_term_weeks: float
    edge_weeks: float
    triples: tuple[Triple, ...]
    unknown_user_jobs: int
    unknown_submit_jobs: int
    log_jobs: int
    # pools of several logs merged (mix.py): each pool user's own log's span and index, and the logs' pools
    span: np.ndarray | None = None
    origin: np.ndarray | None = None
    parts: tuple[UserPools, ...] = ()

    def spans(self) -> np.ndarray:
        """Per pool user, the span of its log (first submit to last): its restart gap's base."""
        if self.span is not None:
            return self.span
        return np.full(len(self.user), self.log_last - self.log_first)

    @property
    def weeks(self) -> int:
        """Weeks of the log, from the week of its first submit to that of its last."""
        return int(self.log_last // WEEK - self.log_first // WEEK) + 1

    def active_weeks(self) -> np.ndarray:
        return (self.last // WEEK - self.first // WEEK).astype(np.int64) + 1

    def jobs_of(self, u: int) -> np.ndarray:
        return self.members[self.offsets[u]:self.offsets[u + 1]]

    def of_kind(self, kind: int) -> np.ndarray:
        return np.flatnonzero(self.kind == kind)

    @property
    def initial_temporary(self) -> float:
        if self.parts:  # several logs: the sum of their figures
            return sum(p.initial_temporary for p in self.parts)
        temporary = (self.kind == TEMPORARY) | (self.kind == DISCARDED)
        return float(self.active_weeks()[temporary].sum()) / self.weeks

    @property
    def arrival_rate(self) -> float:
        if self.parts:
            return sum(p.arrival_rate for p in self.parts)
        if self.weeks < 2:
            return 0.0
        temporary = (self.kind == TEMPORARY) | (self.kind == DISCARDED)
        later = self.first[temporary] // WEEK > self.log_first // WEEK
        return float(later.sum()) / (self.weeks - 1)

    def summary(self) -> dict:
        """Users and jobs per class, and the log's figures resampling starts from."""
        sizes = np.diff(self.offsets)
        classes = {}
        for k, name in enumerate(CLASSES):
            picked = self.kind == k
            count = int(len(np.unique(self.user[picked]))) if k != RARE else int(picked.sum())
            classes[name] = {"users": count, "jobs": int(sizes[picked].sum())}
        return {
            "jobs": self.log_jobs,
            "classes": classes,
            "unknown_user_jobs": self.unknown_user_jobs,
            "unknown_submit_jobs": self.unknown_submit_jobs,
            "weeks": self.weeks,
            "long_term_users": int((self.kind == LONG_TERM).sum()),
            "temporary_active_per_week": self.initial_temporary,
            "temporary_arrivals_per_week": self.arrival_rate,
            "thresholds": {"long_term_weeks": self.long_term_weeks, "edge_weeks": self.edge_weeks},
            "rare_behavior": [{"user": t.user, "begin": t.begin, "end": t.end} for t in self.triples],
        }


def user_pools(submit: np.ndarray, user: np.ndarray, triples: tuple[Triple, ...] | list[Triple] = (),
               long_term_weeks: float = 12.0, edge_weeks: float = 4.0) -> UserPools:
    """Classify every user of a log (its submit times and user numbers, -1
    unknown): long-term when its first to last submit spans at least
    `long_term_weeks`; else temporary, and discarded when all its activity
    lies within `edge_weeks` of the log's start or of its end."""
    if not long_term_weeks > 0 or not edge_weeks >= 0:
        raise ParameterError("{long_term_weeks} must be positive and {edge_weeks} at least 0",
                             "long_term_weeks", "edge_weeks")
    submit = np.asarray(submit, dtype=np.float64)
    user = np.asarray(user, dtype=np.int64)
    triples = tuple(triples)
    known = np.isfinite(submit) & (submit >= 0)
    if not known.any():
        raise UsageError("the log has no job with a known submit time: there is nothing to resample")
    log_first, log_last = float(submit[known].min()), float(submit[known].max())
    rare = np.full(len(submit), -1, dtype=np.int64)
    for k, t in enumerate(triples):
        if not t.begin <= t.end:
            raise UsageError(f"rare-behavior triple {t.user}:{t.begin:g}:{t.end:g} ends before it begins")
        rare[known & (rare < 0) & (user == t.user) & (submit >= t.begin) & (submit <= t.end)] = k
    normal = known & (user >= 0) & (rare < 0)

    index = np.arange(len(submit))
    # normal users by number, then one pseudo-user per triple in the order given
    group = np.where(normal, user, -1)
    key_user = np.where(rare >= 0, np.iinfo(np.int64).max - len(triples) + rare, group)
    chosen = normal | (rare >= 0)
    order = index[chosen][np.lexsort((index[chosen], submit[chosen], key_user[chosen]))]
    keys = key_user[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(order) else np.zeros(0, np.int64)
    offsets = np.r_[starts, len(order)].astype(np.int64)
    first = submit[order[starts]] if len(order) else np.zeros(0)
    last = np.maximum.reduceat(submit[order], starts) if len(order) else np.zeros(0)
    is_rare = rare[order[starts]] >= 0 if len(order) else np.zeros(0, bool)
    owner = user[order[starts]] if len(order) else np.zeros(0, np.int64)

    kind = np.where(last - first >= long_term_weeks * WEEK, LONG_TERM, TEMPORARY)
    edge = edge_weeks * WEEK
    at_edge = (last <= log_first + edge) | (first >= log_last - edge)
    kind = np.where((kind == TEMPORARY) & at_edge, DISCARDED, kind)
    kind = np.where(is_rare, RARE, kind).astype(np.int8)
    return UserPools(
        members=order.astype(np.int64), offsets=offsets, user=owner.astype(np.int64), kind=kind,
        first=np.asarray(first, np.float64), last=np.asarray(last, np.float64),
        log_first=log_first, log_last=log_last, long_term_weeks=float(long_term_weeks),
        edge_weeks=float(edge_weeks), triples=triples,
        unknown_user_jobs=int((known & (user < 0) & (rare < 0)).sum()),
        unknown_submit_jobs=int((~known).sum()), log_jobs=len(submit))
