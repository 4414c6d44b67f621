"""The policies in plain Python: the executable specification of the fast core.

Semantics (simulation.md), written out so that a reader can check them line
by line:

- Jobs are given in log order; their arrivals keep that order when submit
  times are equal (`ties="log"`), or reverse it (`ties="reverse"`, as an
  event queue that pops the last pushed first would).
- At each instant, every termination and every arrival of that instant is
  applied first, then one scheduling pass runs (`passes="instant"`); or a
  pass follows each single event (`passes="event"`: terminations, then
  expiries, then arrivals, each kind in order).
- A job holds its processors over [start, start + run), run being already
  cut to the estimate when the overrun mode is `truncate`.
- The estimated end of a running job is start + estimate; under `keep`, once
  a job has passed its estimate, its estimated end counts as now.
- With a last-k predictor, a job's estimate is fixed when it arrives: the
  mean run time of its user's last k completed jobs (completions at one
  instant in log order), never more than its own estimate, which it keeps
  without history. A job still running when its prediction runs out gets its
  own estimate back at that instant: that is an event, like an arrival.

Policies, each one scheduling pass at time `now` over the queue (arrival
order):

- fcfs: start jobs from the head while they fit; stop at the first that
  does not.
- easy: as fcfs; then, if the head does not fit, its shadow time is the
  earliest estimated end at which the processors free by then (every job
  ending at or before it counts) suffice, and the extra processors are those
  free at the shadow time beyond the head's need. Every later job, in order,
  starts if it fits now and either ends (now + estimate) no later than the
  shadow time, or else uses no more than the extra processors, which it then
  consumes.
- conservative: reservations are rebuilt at every pass: each queued job in
  order is placed at the earliest time from now on at which it fits, for its
  estimate, beside the running jobs and the reservations before it; a job
  whose place is now starts if its processors are really free (under keep,
  a job past its estimate is reserved around as if it ended now, yet it
  still holds its processors).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
from wla.archive.errors import UsageError
from wla.archive.ranges import MAX_COUNT, MAX_PROCESSORS, MAX_SEED, number, whole

POLICIES = ("fcfs", "easy", "conservative")
OVERRUNS = ("truncate", "extend", "keep")
TIES = ("log", "reverse")
PASSES = ("instant", "event")
# Load factors from a millionth to a million: beyond, arrivals collapse into
# one instant or spread over millions of years, and the times lose meaning.
LOAD_FACTORS = (1e-6, 1e6)


def check_options(policy: str, overrun: str, ties: str = "log", passes: str = "instant", *,
                  procs: int | None = None, tau: float | None = None, warmup: float | None = None,
                  load_factor: float | None = None, seed: int | None = None, last_k: int | None = None) -> None:
    """Refuse a setting the simulator does not have: a name not among the
    choices, a number outside its range (README, "Semantics"). Numbers left
    None are not checked; every entry point checks what it is given here."""
    for value, allowed, what in ((policy, POLICIES, "policy"), (overrun, OVERRUNS, "overrun mode"),
                                 (ties, TIES, "tie order"), (passes, PASSES, "pass rule")):
        if value not in allowed:
            raise UsageError(f"unknown {what} {value!r}; one of {', '.join(allowed)}")
    if procs is not None:
        whole("procs", procs, 1, MAX_PROCESSORS)
    if tau is not None:
        number("tau", tau, 0, low_open=True)
    if warmup is not None:
        number("warmup", warmup, 0, 1, high_open=True)
    if load_factor is not None:
        number("load_factor", load_factor, *LOAD_FACTORS)
    if seed is not None:
        whole("seed", seed, 0, MAX_SEED)
    if last_k is not None:
        whole("last_k", last_k, 0, MAX_COUNT)


def apply_overrun(run, estimate, overrun: str) -> tuple[np.ndarray, np.ndarray]:
    """Run times and estimates as the overrun mode makes them: truncate cuts
    the run at the estimate, extend raises the estimate to the run."""
    run = np.asarray(run, dtype=np.float64)
    own = np.asarray(estimate, dtype=np.float64)
    if overrun == "truncate":
        run = np.minimum(run, own)
    elif overrun == "extend":
        own = np.maximum(own, run)
    return run, own


def arrival_order(submit: np.ndarray, ties: str = "log") -> np.ndarray:
    """Job indices by submit time; equal times in log order or its reverse."""
    index = np.arange(len(submit))
    return np.lexsort((index if ties == "log" else -index, submit))


@dataclass
class _Running:
    job: int
    end: float  # real end
    est_end: float  # start + estimate
    procs: int
    start: float = 0.0


def _est_end(r: _Running, now: float, overrun: str) -> float:
    if overrun == "keep" and r.est_end < now:
        return now
    return r.est_end


def _shadow(running: list[_Running], free: int, need: int, now: float,
            overrun: str) -> tuple[float, int]:
    """The head's shadow time and the extra processors at it."""
    ends = sorted((_est_end(r, now, overrun), r.procs) for r in running)
    avail, i = free, 0
    while i < len(ends):
        t = ends[i][0]
        while i < len(ends) and ends[i][0] == t:  # every job ending at t counts
            avail += ends[i][1]
            i += 1
        if avail >= need:
            return t, avail - need
    raise AssertionError("a job wider than the machine reached the queue")


def _fits_from(profile: list[tuple[float, int]], start: float, length: float, procs: int) -> bool:
    """Whether `procs` processors are free over [start, start + length) in a
    step profile of (time, free processors from then on)."""
    for i, (t, free) in enumerate(profile):
        nxt = profile[i + 1][0] if i + 1 < len(profile) else float("inf")
        if nxt <= start or t >= start + length:
            continue
        if free < procs:
            return False
    return True


def _reserve(profile: list[tuple[float, int]], start: float, length: float, procs: int) -> None:
    for point in (start, start + length):
        if all(t != point for t, _ in profile):
            before = max((p for p in profile if p[0] < point), key=lambda p: p[0])
            profile.append((point, before[1]))
    profile.sort()
    for i, (t, free) in enumerate(profile):
        if start <= t < start + length:
            profile[i] = (t, free - procs)


def _conservative(queue: list[int], running: list[_Running], free: int, now: float, procs, est,
                  overrun: str) -> list[int]:
    profile = [(now, free)]
    for r in sorted(running, key=lambda r: _est_end(r, now, overrun)):
        t = _est_end(r, now, overrun)
        if t == profile[-1][0]:
            profile[-1] = (t, profile[-1][1] + r.procs)
        else:
            profile.append((t, profile[-1][1] + r.procs))
    starts = []
    for j in queue:
        for t, _ in sorted(profile):
            if t >= now and _fits_from(profile, t, est[j], procs[j]):
                _reserve(profile, t, est[j], procs[j])
                # Under keep, a job past its estimate is reserved around as if
                # it ended now, but still holds its processors: a job placed at
                # now starts only if they are really free.
                if t == now and procs[j] <= free:
                    starts.append(j)
                    free -= procs[j]
                break
    return starts


def simulate_reference(submit, run, procs, estimate, P: int, policy: str = "easy",
                       overrun: str = "truncate", user=None, last_k: int = 0,
                       ties: str = "log", passes: str = "instant") -> np.ndarray:
    """Start time of every job (NaN where it never started: it cannot, if the
    input was checked). Inputs are arrays in log order; `user` is needed only
    with `last_k` > 0."""
    check_options(policy, overrun, ties, passes, procs=P, last_k=last_k)
    submit = np.asarray(submit, dtype=np.float64)
    procs = np.asarray(procs, dtype=np.int64)
    run, own = apply_overrun(run, estimate, overrun)
    est = own.copy()  # what the scheduler believes; predictions replace it
    history: dict[int, list[float]] = {}
    n = len(submit)
    order = [int(j) for j in arrival_order(submit, ties)]
    start = np.full(n, np.nan)
    running: list[_Running] = []
    ends: list[tuple[float, int]] = []  # heap of (real end, job)
    expiries: list[tuple[float, int]] = []  # heap of (prediction runs out, job)
    queue: list[int] = []
    free, k = P, 0
    while k < n or queue:
        now = min(ends[0][0] if ends else np.inf, expiries[0][0] if expiries else np.inf,
                  submit[order[k]] if k < n else np.inf)
        if now == np.inf:  # only jobs wider than the machine are left
            break
        budget = 1 if passes == "event" else 1 << 62  # events applied before the pass
        # -- ends: terminations at now free their processors (and feed last-k)
        while ends and ends[0][0] == now and budget:
            budget -= 1
            _, j = heapq.heappop(ends)
            running = [r for r in running if r.job != j]
            free += procs[j]
            if last_k:
                history.setdefault(int(user[j]), []).append(run[j])
        # -- expiries: a prediction ran out; the job's own estimate is back
        while expiries and expiries[0][0] == now and budget:
            budget -= 1
            _, j = heapq.heappop(expiries)
            for r in running:
                if r.job == j:
                    r.est_end = r.start + own[j]
        # -- arrivals: each takes its last-k estimate and joins the queue's tail
        while k < n and submit[order[k]] == now and budget:
            budget -= 1
            j = order[k]
            if last_k:
                past = history.get(int(user[j]), [])[-last_k:]
                if past:
                    est[j] = min(sum(past) / len(past), own[j])
            queue.append(j)
            k += 1
        for j in _pass(queue, running, free, now, procs, est, policy, overrun):
            free = _start(j, now, free, queue, running, ends, expiries, start, run, procs, est, own)
    return start


def _start(j: int, now: float, free: int, queue: list[int], running: list[_Running],
           ends: list, expiries: list, start, run, procs, est, own) -> int:
    """Start job j at `now`: it takes its processors, runs until its real
    end, is believed to end at now + estimate, and leaves the queue. Returns
    the processors still free."""
    queue.remove(j)
    start[j] = now
    running.append(_Running(j, now + run[j], now + est[j], int(procs[j]), now))
    heapq.heappush(ends, (now + run[j], j))
    if est[j] < own[j] and run[j] > est[j]:  # a prediction that runs out before the job ends
        heapq.heappush(expiries, (now + est[j], j))
    return free - int(procs[j])


def _pass(queue, running, free, now, procs, est, policy, overrun) -> list[int]:
    """The jobs one scheduling pass starts, in the order it starts them."""
    if policy == "conservative":
        return _conservative(queue, running, free, now, procs, est, overrun)
    starts = []
    i = 0
    while i < len(queue) and procs[queue[i]] <= free:
        starts.append(queue[i])
        free -= procs[queue[i]]
        i += 1
    if policy == "fcfs" or i == len(queue):
        return starts
    now_running = running + [_Running(j, np.inf, now + est[j], int(procs[j])) for j in starts]
    shadow, extra = _shadow(now_running, free, int(procs[queue[i]]), now, overrun)
    for j in queue[i + 1:]:
        if procs[j] > free:
            continue
        if now + est[j] <= shadow:
            starts.append(j)
            free -= procs[j]
        elif procs[j] <= extra:
            starts.append(j)
            free -= procs[j]
            extra -= procs[j]
    return starts
