"""The policies in plain Python: the executable specification of the fast core.

Semantics (docs/pages/definitions/simulation.md), written out so that a reader can check them line
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

With feedback (`pred`, `think` given), a job that depends on another (its
preceding job, field 17) is not submitted at its own submit time: it
arrives when its preceding job has ended in the simulation plus its think
time (field 18), and never before its own submit time; a job without one
arrives at its submit time. Arrivals of one instant, trace and released
alike, keep the order of the jobs' trace arrivals; the queue's order is the
order of arrival. A job released by a termination at now with no think
time arrives at now, after that instant's terminations.

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
- conservative (Mu'alem and Feitelson's, the compressing algorithm): a job
  gets its reservation when it arrives, the earliest time from now at which
  its processors are free for its whole estimate, given the running jobs
  (each holding its processors until its estimated end) and every
  reservation already made. At one instant: every termination; then, if a
  job ended before its estimated end (the rest of its hold is given back),
  the queue is compressed once, in arrival order: each waiting job's
  reservation is removed and the job placed again at its earliest fit given
  all the others, which is never later; then the arrivals, in order, each
  placed; then every job whose reservation is now starts, in arrival order,
  if its processors are really free. When an estimate grows (under keep, a
  running job past its estimated end holds its processors until now at
  every later instant; a prediction runs out), the running job's hold is
  extended and every waiting job is placed again in arrival order, beside
  the running jobs and those placed before it: only then may a reservation
  move later, and such moves are counted. `passes="event"` does the same
  after each single event.
"""
from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass

import numpy as np
from wla.archive.kernel.ranges import MAX_COUNT, whole

from .settings import LOAD_FACTORS, OVERRUNS, PASSES, POLICIES, TIES, SimSettings  # noqa: F401 (the reference's names)


def check_options(policy: str, overrun: str, ties: str = "log", passes: str = "instant", *,
                  procs: int | None = None, tau: float | None = None, warmup: float | None = None,
                  load_factor: float | None = None, seed: int | None = None, last_k: int | None = None) -> None:
    """Refuse a setting the simulator does not have: a name not among the
    choices, a number outside its range (settings.py). Numbers left None are
    not checked; every entry point checks what it is given here."""
    given = dict(procs=procs, tau=tau, warmup=warmup, load_factor=load_factor, seed=seed)
    SimSettings(policy=policy, overrun=overrun, ties=ties, passes=passes,
                **{k: v for k, v in given.items() if v is not None}).checked()
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


class Arrivals:
    """The jobs' arrivals in order: each job without a preceding job at its
    submit time, trace order breaking ties; each job with one when that job
    has ended plus its think time, never before its submit time. `rank` is
    each arrived job's place in the order of arrival."""

    def __init__(self, submit: np.ndarray, ties: str = "log", pred=None, think=None):
        self.submit = submit
        order = [int(j) for j in arrival_order(submit, ties)]
        self.trace_rank = {j: r for r, j in enumerate(order)}
        n = len(submit)
        dependent = np.zeros(n, bool) if pred is None else np.asarray(pred) >= 0
        self.stream = [j for j in order if not dependent[j]]
        self.children: dict[int, list[int]] = {}
        for j in order:
            if dependent[j]:
                self.children.setdefault(int(pred[j]), []).append(j)
        self.think = None if think is None else np.asarray(think, dtype=np.float64)
        self.released: list[tuple[float, int, int]] = []  # heap of (arrival, trace rank, job)
        self.k = 0
        self.left = n
        self.arrive = np.full(n, np.nan)
        self.rank: dict[int, int] = {}

    def next_time(self) -> float:
        t = self.submit[self.stream[self.k]] if self.k < len(self.stream) else np.inf
        return min(t, self.released[0][0]) if self.released else t

    def pop(self, now: float) -> int | None:
        """The next job arriving at now, or None."""
        a = self.stream[self.k] if self.k < len(self.stream) and self.submit[self.stream[self.k]] == now else None
        if self.released and self.released[0][0] == now and (a is None or self.released[0][1] < self.trace_rank[a]):
            _, _, j = heapq.heappop(self.released)
        elif a is not None:
            j = a
            self.k += 1
        else:
            return None
        self.arrive[j] = now
        self.rank[j] = len(self.rank)
        self.left -= 1
        return j

    def ended(self, j: int, now: float) -> None:
        """Job j ended at now: the jobs that wait for it are released."""
        for c in self.children.get(j, ()):
            t = max(float(self.submit[c]), now + float(self.think[c]))
            heapq.heappush(self.released, (t, self.trace_rank[c], c))


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


def simulate_reference(submit, run, procs, estimate, P: int, policy: str = "easy",
                       overrun: str = "truncate", user=None, last_k: int = 0,
                       ties: str = "log", passes: str = "instant", pred=None, think=None) -> np.ndarray:
    """Start time of every job (NaN where it never started: it cannot, if the
    input was checked). Inputs are arrays in log order; `user` is needed only
    with `last_k` > 0; `pred` (each job's preceding job as an index, -1 for
    none) and `think` simulate with feedback."""
    return reference_schedule(submit, run, procs, estimate, P, policy, overrun, user, last_k, ties, passes,
                              pred, think)[0]


def reference_schedule(submit, run, procs, estimate, P: int, policy: str = "easy",
                       overrun: str = "truncate", user=None, last_k: int = 0,
                       ties: str = "log", passes: str = "instant", pred=None,
                       think=None) -> tuple[np.ndarray, np.ndarray]:
    """Start and arrival time of every job (`simulate_reference`'s
    arguments): with feedback a job may arrive after its submit time."""
    check_options(policy, overrun, ties, passes, procs=P, last_k=last_k)
    if policy == "conservative":
        c = conservative_reference(submit, run, procs, estimate, P, overrun, user, last_k, ties, passes, pred, think)
        return c.start, c.arrive
    submit = np.asarray(submit, dtype=np.float64)
    procs = np.asarray(procs, dtype=np.int64)
    run, own = apply_overrun(run, estimate, overrun)
    est = own.copy()  # what the scheduler believes; predictions replace it
    history: dict[int, list[float]] = {}
    n = len(submit)
    arrivals = Arrivals(submit, ties, pred, think)
    start = np.full(n, np.nan)
    running: list[_Running] = []
    ends: list[tuple[float, int]] = []  # heap of (real end, job)
    expiries: list[tuple[float, int]] = []  # heap of (prediction runs out, job)
    queue: list[int] = []
    free = P
    while arrivals.left or queue:
        now = min(ends[0][0] if ends else np.inf, expiries[0][0] if expiries else np.inf, arrivals.next_time())
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
            arrivals.ended(j, now)
        # -- expiries: a prediction ran out; the job's own estimate is back
        while expiries and expiries[0][0] == now and budget:
            budget -= 1
            _, j = heapq.heappop(expiries)
            for r in running:
                if r.job == j:
                    r.est_end = r.start + own[j]
        # -- arrivals: each takes its last-k estimate and joins the queue's tail
        while budget and (j := arrivals.pop(now)) is not None:
            budget -= 1
            est[j] = _predicted(j, history, user, last_k, own)
            queue.append(j)
        for j in _pass(queue, running, free, now, procs, est, policy, overrun):
            free = _start(j, now, free, queue, running, ends, expiries, start, run, procs, est, own)
    return start, arrivals.arrive


def _predicted(j: int, history: dict[int, list[float]], user, last_k: int, own) -> float:
    """A job's estimate on arrival: with last-k, the mean run time of its
    user's last k completed jobs, never more than its own estimate."""
    past = history.get(int(user[j]), [])[-last_k:] if last_k else []
    return min(sum(past) / len(past), own[j]) if past else own[j]


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
    """The jobs one scheduling pass of FCFS or EASY starts, in the order it
    starts them."""
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


# -- conservative backfilling ------------------------------------------------


class Profile:
    """Free processors from now on, as a step function: `free[i]` processors
    are free from `times[i]` until `times[i + 1]`, the last count for ever.
    No two neighbouring steps have the same count, so every time at which a
    job can first fit is a step."""

    def __init__(self, now: float, free: int):
        self.times, self.free = [now], [free]

    def advance(self, now: float) -> None:
        """Forget what is before now."""
        i = bisect.bisect_right(self.times, now) - 1
        del self.times[:i], self.free[:i]
        self.times[0] = now

    def _step(self, t: float) -> int:
        i = bisect.bisect_left(self.times, t)
        assert i > 0 or self.times[0] == t, "a hold that starts before now"
        if i == len(self.times) or self.times[i] != t:
            self.times.insert(i, t)
            self.free.insert(i, self.free[i - 1])
        return i

    def _merge(self, i: int) -> None:
        if 0 < i < len(self.times) and self.free[i] == self.free[i - 1]:
            del self.times[i], self.free[i]

    def hold(self, start: float, end: float, procs: int) -> None:
        """Take `procs` processors over [start, end) (give them back when
        negative)."""
        if end <= start:
            return
        i, k = self._step(start), self._step(end)
        for x in range(i, k):
            self.free[x] -= procs
        self._merge(k)
        self._merge(i)

    def earliest(self, procs: int, length: float) -> float:
        """The earliest time from now at which `procs` processors stay free
        for `length`."""
        c = 0
        while True:
            end = self.times[c] + length
            i = c
            while i < len(self.times) and self.times[i] < end and self.free[i] >= procs:
                i += 1
            if i == len(self.times) or self.times[i] >= end:
                return self.times[c]
            c = i + 1  # every start up to step i overlaps it

    def room_before(self, procs: int, t: float) -> bool:
        """Whether `procs` processors are free at some step before t. A job
        reserved at t fits earlier only then: every earlier place starts in
        such a step, and nothing of the job's own hold lies before t."""
        i = bisect.bisect_left(self.times, t)
        return i > 0 and max(self.free[:i]) >= procs


@dataclass(frozen=True)
class ConservativeRun:
    """Per job, in log order: its start time and the reservation it got on
    arrival; and how many times a reservation moved later (only ever when an
    estimate grew)."""

    start: np.ndarray
    first_reservation: np.ndarray
    delayed: int
    arrive: np.ndarray | None = None  # when each job arrived (its submit time, unless it waited for another)


def conservative_reference(submit, run, procs, estimate, P: int, overrun: str = "truncate", user=None,
                           last_k: int = 0, ties: str = "log", passes: str = "instant", pred=None,
                           think=None) -> ConservativeRun:
    """Conservative backfilling as the module's docstring says; the same
    arguments as `simulate_reference`."""
    check_options("conservative", overrun, ties, passes, procs=P, last_k=last_k)
    submit = np.asarray(submit, dtype=np.float64)
    procs = [int(p) for p in np.asarray(procs, dtype=np.int64)]
    run, own = apply_overrun(run, estimate, overrun)
    est = own.copy()
    history: dict[int, list[float]] = {}
    n = len(submit)
    arrivals = Arrivals(submit, ties, pred, think)
    rank = arrivals.rank  # place in the order of arrival, given on arrival
    start, first, res = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    running: dict[int, float] = {}  # job -> estimated end
    ends: list[tuple[float, int]] = []  # heap of (real end, job)
    expiries: list[tuple[float, int]] = []  # heap of (prediction runs out, job)
    due: list[tuple[float, int, int]] = []  # heap of (reservation, arrival rank, job)
    waiting: list[int] = []  # arrival order
    due_now: list[tuple[int, int]] = []  # (rank, job) reserved at now, not started
    profile = Profile(float(submit.min()) if n else 0.0, P)
    free, delayed, last, grown = P, 0, -np.inf, False

    def reserve(j: int, t: float) -> None:
        res[j] = t
        heapq.heappush(due, (t, rank[j], j))

    while arrivals.left or waiting:
        while due and (not np.isnan(start[due[0][2]]) or res[due[0][2]] != due[0][0] or due[0][0] <= last):
            heapq.heappop(due)  # no longer a reservation to come
        now = min(ends[0][0] if ends else np.inf, expiries[0][0] if expiries else np.inf,
                  arrivals.next_time(), due[0][0] if due else np.inf)
        if now == np.inf:  # only jobs wider than the machine are left
            break
        if now > last:
            # under keep, a job past its estimated end holds its processors
            # until now at least: its hold grew since the last instant
            grown = grown or (overrun == "keep" and any(e < now for e in running.values()))
            profile.advance(now)
            due_now.clear()
            last = now
        budget = 1 if passes == "event" else 1 << 62  # events applied before the pass
        gave_back = False
        arrived = []
        # -- terminations; the rest of a hold is given back
        while ends and ends[0][0] == now and budget:
            budget -= 1
            _, j = heapq.heappop(ends)
            free += procs[j]
            e = running.pop(j)
            if e > now:
                profile.hold(now, e, -procs[j])
                gave_back = True
            if last_k:
                history.setdefault(int(user[j]), []).append(run[j])
            arrivals.ended(j, now)
        # -- expiries: a prediction ran out, the job holds until its own estimate
        while expiries and expiries[0][0] == now and budget:
            budget -= 1
            _, j = heapq.heappop(expiries)
            running[j] = start[j] + own[j]
            profile.hold(now, running[j], procs[j])
            grown = True
        while budget and (j := arrivals.pop(now)) is not None:
            budget -= 1
            arrived.append(j)
        # -- the pass
        if grown:  # every waiting job placed again, beside those before it
            profile = Profile(now, P)
            for j, e in running.items():
                profile.hold(now, e, procs[j])
            for j in waiting:
                t = profile.earliest(procs[j], est[j])
                profile.hold(t, t + est[j], procs[j])
                delayed += t > res[j]
                reserve(j, t)
            grown = False
        elif gave_back:  # compression: each waiting job at its earliest fit beside all the others
            for j in waiting:
                r = res[j]
                if profile.room_before(procs[j], r):
                    profile.hold(r, r + est[j], -procs[j])
                    t = profile.earliest(procs[j], est[j])
                    assert t <= r, "compression moved a reservation later"
                    profile.hold(t, t + est[j], procs[j])
                    if t < r:
                        reserve(j, t)
        for j in arrived:  # arrivals: each gets its reservation
            if procs[j] > P:
                continue  # wider than the machine: it never starts (checked input has none)
            est[j] = _predicted(j, history, user, last_k, own)
            t = profile.earliest(procs[j], est[j])
            profile.hold(t, t + est[j], procs[j])
            reserve(j, t)
            first[j] = t
            waiting.append(j)
        while due and due[0][0] == now:
            t, r, j = heapq.heappop(due)
            if res[j] == t and (r, j) not in due_now:
                bisect.insort(due_now, (r, j))
        for r, j in list(due_now):  # reservations at now: start, when the processors really are free
            if res[j] == now and np.isnan(start[j]) and procs[j] <= free:
                free -= procs[j]
                start[j] = now
                due_now.remove((r, j))
                waiting.remove(j)
                running[j] = now + est[j]
                heapq.heappush(ends, (now + run[j], j))
                if est[j] < own[j] and run[j] > est[j]:  # a prediction that runs out before the job ends
                    heapq.heappush(expiries, (now + est[j], j))
    return ConservativeRun(start, first, delayed, arrivals.arrive)
