"""One resampled workload, by the five steps of docs/pages/definitions/resampling.md.

Choices where docs/pages/definitions/resampling.md is silent, each stated in docs/pages/resampling.md:
- length: the log's span, first submit to last, in whole weeks (half up);
- counts: load x long-term users is rounded half up; the initial temporary
  users and the weekly arrivals are binomial over the temporary pool (n =
  its users, p = target / n: load x the log's weekly average, load x its
  arrival rate), so their numbers are randomized around the targets;
- the initial users and each week's arrivals are drawn without replacement
  (weighted by active weeks for the initial temporary users, uniformly for
  arrivals) by exponential keys: key = log(u) / weight, the largest win;
- arrivals come in weeks 1 to W-1 (week 0 has the initial users); of a
  week's arrivals each is a rare-behavior user with probability
  RB_NPW / rate (binomial), so RB_NPW a week on average and the total stays;
- a long-term user restarts max(1, round((log length - its activity) /
  week)) weeks after the week of its last job;
- replica r of a long-term user picked R times starts at week
  (k0 + r * A // R) mod A of its A active weeks, k0 drawn once: as far
  apart as its activity allows (with phase 'cycle', of the A - 1 + gap
  weeks of its cycle, a start in the gap meaning its next pass begins at
  the cycle's end);
- jobs whose shifted submit falls at or after week W are not taken;
- with weights (a class favored, favor.py) every draw of a user is by
  weight: the initial temporary users by active weeks x weight, each
  week's arrivals by weight, and the long-term users drawn independently
  with replacement by weight (drawn once each in turn, a favored one would
  come no more often than another).
Every draw comes from one PCG64 stream seeded with `seed`, in this order:
long-term users, their start weeks, the number of initial temporary users,
which they are, their start weeks, then week by week the arrivals.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

import numpy as np
from wla.archive.kernel.clock import WEEK
from wla.archive.kernel.errors import OptionError, ParameterError, UsageError

from ...seeds import stream
from .pools import LONG_TERM, RARE, TEMPORARY, UserPools
from .settings import MAX_USERS, MAX_WEEKS, PHASES, ResampleSettings  # noqa: F401 (named here before)

if TYPE_CHECKING:
    import pandas as pd

@dataclass(frozen=True)
class Plan:
    """What a resampled workload takes from the log, row by row in its submit order."""

    source: np.ndarray  # index of the log's job
    submit: np.ndarray  # shifted submit time
    segment: np.ndarray  # one pass of one user instance over its jobs
    instance: np.ndarray  # one (source user, replica)
    instance_user: np.ndarray  # per instance: the real user
    instance_replica: np.ndarray
    instance_rare: np.ndarray
    figures: dict  # the numbers used: weeks, users, rate, draws


def half_up(x: float) -> int:
    return int(Decimal(repr(float(x))).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _pick(rng: np.random.Generator, weights: np.ndarray, k: int) -> np.ndarray:
    """k of len(weights) positions without replacement, each chosen with
    probability proportional to its weight at every draw (Efraimidis and
    Spirakis), in the order drawn."""
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    keys = np.log(rng.random(len(weights))) / weights
    return np.argsort(-keys, kind="stable")[:k]


class _Builder:
    def __init__(self, pools: UserPools, submit: np.ndarray, weeks: int):
        self.pools, self.submit, self.weeks = pools, submit, weeks
        self.parts: list[tuple[np.ndarray, np.ndarray, int]] = []  # (job indices, shifted submits, instance)
        self.instances: list[tuple[int, int, bool]] = []
        self.replicas: dict[int, int] = {}
        self.end = weeks * WEEK

    def instance(self, u: int) -> int:
        owner = int(self.pools.user[u])
        replica = self.replicas.get(owner, 0)
        self.replicas[owner] = replica + 1
        self.instances.append((owner, replica, bool(self.pools.kind[u] == RARE)))
        return len(self.instances) - 1

    def segment(self, u: int, from_week: int, shift: int, inst: int) -> None:
        """The user's jobs from its source week `from_week` on, moved by `shift` weeks."""
        jobs = self.pools.jobs_of(u)
        times = self.submit[jobs]
        start = np.searchsorted(times, from_week * WEEK, side="left")
        moved = times[start:] + shift * WEEK
        keep = int(np.searchsorted(moved, self.end, side="left"))
        if keep:
            self.parts.append((jobs[start:start + keep], moved[:keep], inst))

    def plan(self, figures: dict) -> Plan:
        if self.parts:
            source = np.concatenate([p[0] for p in self.parts])
            submit = np.concatenate([p[1] for p in self.parts])
            segment = np.concatenate([np.full(len(p[0]), i, np.int64) for i, p in enumerate(self.parts)])
            instance = np.asarray([p[2] for p in self.parts], np.int64)[segment]
        else:
            source, submit, segment, instance = (np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64),
                                                 np.zeros(0, np.int64))
        order = np.lexsort((np.arange(len(source)), submit))
        inst = np.asarray(self.instances, dtype=object).reshape(-1, 3)
        return Plan(source[order], submit[order], segment[order], instance[order],
                    np.asarray(inst[:, 0], np.int64), np.asarray(inst[:, 1], np.int64),
                    np.asarray(inst[:, 2], bool), figures)


def plan(pools: UserPools, submit: np.ndarray, settings: ResampleSettings,
         weights: np.ndarray | None = None) -> Plan:
    """Which jobs of the log a resampled workload holds, and when; `weights`
    (per pool user, favor.py) bias every draw of a user toward the heavier."""
    s = settings.checked()
    weeks = s.weeks if s.weeks is not None else default_weeks(pools)
    long_pool, temp_pool, rare_pool = pools.of_kind(LONG_TERM), pools.of_kind(TEMPORARY), pools.of_kind(RARE)
    n_long = half_up(s.load * (s.long_term if s.long_term is not None else len(long_pool)))
    initial = s.load * (s.temporary if s.temporary is not None else pools.initial_temporary)
    rate = s.load * (s.arrival_rate if s.arrival_rate is not None else pools.arrival_rate)
    _check(n_long, initial, rate, s.rb_npw, len(long_pool), len(temp_pool), len(rare_pool))
    rng = stream(s.seed)
    b = _Builder(pools, submit, weeks)
    active = pools.active_weeks()
    first_week = (pools.first // WEEK).astype(np.int64)
    last_week = (pools.last // WEEK).astype(np.int64)

    # 1 and 4: every long-term user once before any twice; replicas far apart
    rounds = -(-n_long // len(long_pool)) if n_long else 0
    chosen = np.concatenate([rng.permutation(long_pool) for _ in range(rounds)])[:n_long] if rounds else []
    if weights is not None and n_long:  # biased: each long-term user drawn independently, by its weight
        w = weights[long_pool]
        chosen = rng.choice(long_pool, size=n_long, replace=True, p=w / w.sum())
    users, times = np.unique(np.asarray(chosen, np.int64), return_counts=True)
    picked = dict(zip(users.tolist(), times.tolist()))
    length = pools.spans()  # each user's own log's span (logs mixed: mix.py)
    gaps = {u: max(1, half_up((length[u] - (pools.last[u] - pools.first[u])) / WEEK))  # 3: restart
            for u in dict.fromkeys(int(u) for u in chosen)}
    k0 = {u: int(rng.integers(active[u] if s.phase == "activity" else active[u] - 1 + gaps[u])) for u in gaps}
    seen: dict[int, int] = {}
    for u in (int(u) for u in chosen):
        r = seen.get(u, 0)
        seen[u] = r + 1
        gap = gaps[u]
        span = int(active[u]) if s.phase == "activity" else int(active[u]) - 1 + gap
        offset = (k0[u] + r * span // picked[u]) % span
        inst = b.instance(u)
        if offset < active[u]:  # within its activity: its jobs from that week on
            start = int(first_week[u]) + offset
            shift = -start
            b.segment(u, start, shift, inst)
        else:  # in its restart gap: its next pass begins span - offset weeks from now
            shift = span - offset - int(first_week[u])
            b.segment(u, int(first_week[u]), shift, inst)
        while True:
            begin = int(last_week[u]) + shift + gap  # output week of the next pass's first job
            if begin >= weeks:
                break
            shift = begin - int(first_week[u])
            b.segment(u, int(first_week[u]), shift, inst)

    # 1: initial temporary users, as many as the log's weekly average on
    # average, weighted by active weeks, each from a random week of its own
    n_initial = int(rng.binomial(len(temp_pool), initial / len(temp_pool))) if initial > 0 and len(temp_pool) else 0
    weight = np.ones(len(pools.user)) if weights is None else weights
    for u in (int(temp_pool[i]) for i in _pick(rng, active[temp_pool] * weight[temp_pool], n_initial)):
        start = int(first_week[u] + rng.integers(active[u]))
        b.segment(u, start, -start, b.instance(u))

    # 2: weekly arrivals, never the same user twice in a week
    arrived = rare_arrived = 0
    ones_t, ones_r = weight[temp_pool], np.ones(len(rare_pool))
    for w in range(1, weeks):
        n = int(rng.binomial(len(temp_pool), rate / len(temp_pool))) if rate > 0 else 0
        k = min(int(rng.binomial(n, s.rb_npw / rate)), len(rare_pool)) if n and s.rb_npw > 0 else 0
        for pool, ones, count in ((rare_pool, ones_r, k), (temp_pool, ones_t, n - k)):
            for u in (int(pool[i]) for i in _pick(rng, ones, count)):
                b.segment(u, int(first_week[u]), w - int(first_week[u]), b.instance(u))
        arrived += n - k
        rare_arrived += k
    figures = {"weeks": weeks, "long_term_users": n_long, "initial_temporary_users": n_initial,
               "arrival_rate": rate, "rb_npw": s.rb_npw, "temporary_arrivals": arrived,
               "rare_behavior_arrivals": rare_arrived,
               "distinct_long_term_users": len(picked)}
    return b.plan(figures)


def default_weeks(pools: UserPools) -> int:
    """The log's span, first submit to last, in whole weeks (half up, at
    least one): a workload of this length holds as many jobs as the log on
    average, where counting the calendar weeks it touches would add up to two."""
    return max(1, half_up((pools.log_last - pools.log_first) / WEEK))


def _check(n_long: int, initial: float, rate: float, rb_npw: float, longs: int, temps: int, rares: int) -> None:
    if n_long and not longs:
        raise UsageError("the log has no long-term user to resample (see `wla users`)")
    if initial > temps and (temps or half_up(initial)):  # less than half a user from an empty pool: none
        raise ParameterError(f"{initial:g} initial temporary users asked for, but the pool holds {temps} "
                             "(lower {load} or {temporary})", "load", "temporary")
    if rate > temps:
        raise ParameterError(f"an arrival rate of {rate:g} temporary users a week is more than the pool's {temps} "
                             "users (lower {load} or {arrival_rate})", "load", "arrival_rate")
    if rb_npw > rate:
        raise OptionError("rb_npw", f"{rb_npw:g} exceeds the temporary arrival rate {rate:g}")
    if rb_npw > 0 and not rares:
        raise ParameterError("{rb_npw} needs rare-behavior users: give {rb} USER:BEGIN:END or {rb_from_flurries}",
                             "rb_npw", "rb", "rb_from_flurries")


def assemble(jobs: pd.DataFrame, p: Plan) -> pd.DataFrame:
    """The resampled jobs with every field of the log: renumbered in submit
    order, users numbered by instance in order of first appearance, a
    preceding job kept when it is in the same pass of the same instance."""
    import pandas as pd
    from wla.archive.swf.fields import COLUMNS

    out = jobs.iloc[p.source][list(COLUMNS)].reset_index(drop=True)
    n = len(out)
    number = np.arange(1, n + 1, dtype=np.int64)
    seen = pd.unique(p.instance)  # in order of first appearance
    user_of = np.empty(len(p.instance_user), np.int64)
    user_of[seen] = np.arange(1, len(seen) + 1)
    source_job = out["job"].to_numpy(np.int64)
    keys = pd.DataFrame({"segment": p.segment, "job": source_job, "new": number}).drop_duplicates(
        ["segment", "job"], keep="first")
    prev = pd.DataFrame({"segment": p.segment, "job": out["prev_job"].to_numpy(np.int64)})
    mapped = prev.merge(keys, on=["segment", "job"], how="left")["new"].to_numpy()
    has_prev = ~np.isnan(mapped) & (out["prev_job"].to_numpy() > 0)
    out["job"] = number
    out["submit"] = p.submit
    out["user_id"] = user_of[p.instance]
    out["prev_job"] = np.where(has_prev, np.nan_to_num(mapped), -1).astype(np.int64)
    out["think"] = np.where(has_prev, out["think"].to_numpy(np.float64), -1.0)
    return out
