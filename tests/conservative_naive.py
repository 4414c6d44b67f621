"""Conservative backfilling written as plainly as it can be, for small
workloads: a second implementation of the semantics of `sim/reference.py`,
sharing none of its code. Every hold is a (start, end, processors) triple;
the processors in use at a time are summed over them; a job's earliest
place is the first of now and the ends of holds at which it fits."""
from __future__ import annotations


def _fits(holds, t, length, procs, P):
    points = [t] + [a for a, b, p in holds if t < a < t + length]
    return all(sum(p for a, b, p in holds if a <= x < b) + procs <= P for x in points)


def _earliest(holds, now, procs, length, P):
    for t in sorted({now} | {b for a, b, p in holds if b > now}):
        if _fits(holds, t, length, procs, P):
            return t
    raise AssertionError("no place found")


def naive_conservative(submit, run, procs, estimate, P, overrun="truncate", user=None, last_k=0,
                       ties="log", passes="instant"):
    """Start times, first reservations and reservations moved later: the
    three things `reference.conservative_reference` returns."""
    n = len(submit)
    submit = [float(s) for s in submit]
    procs = [int(p) for p in procs]
    run = [float(r) for r in run]
    own = [float(e) for e in estimate]
    if overrun == "truncate":
        run = [min(r, e) for r, e in zip(run, own)]
    elif overrun == "extend":
        own = [max(r, e) for r, e in zip(run, own)]
    est = list(own)
    order = sorted(range(n), key=lambda j: (submit[j], j if ties == "log" else -j))
    start, first = [None] * n, [None] * n
    res = {}  # waiting job -> reservation, in arrival order
    running = {}  # job -> (start, estimated end)
    expiring = set()  # running jobs whose prediction has yet to run out
    done_runs = {}  # user -> run times of completed jobs
    arrived = 0
    delayed = 0
    last = None

    def holds(skip=None):
        out = [(s, e, procs[j]) for j, (s, e) in running.items()]
        return out + [(t, t + est[j], procs[j]) for j, t in res.items() if j != skip]

    while arrived < n or res:
        times = [start[j] + run[j] for j in running]
        times += [start[j] + est[j] for j in expiring]
        times += [submit[order[arrived]]] if arrived < n else []
        times += [t for t in res.values() if last is None or t > last]
        now = min(times)
        grown = False
        if last is None or now > last:
            grown = overrun == "keep" and any(e < now for s, e in running.values())
            last = now
        # the events of this instant, in the order they are applied
        events = [("end", j) for j in sorted(j for j in running if start[j] + run[j] == now)]
        events += [("expiry", j) for j in sorted(j for j in expiring if start[j] + est[j] == now)]
        while arrived < n and submit[order[arrived]] == now:
            events.append(("arrival", order[arrived]))
            arrived += 1
        batches = [[e] for e in events] if passes == "event" else [events]
        for batch in batches or [[]]:
            gave_back = False
            coming = []
            for kind, j in batch:
                if kind == "end":
                    s, e = running.pop(j)
                    expiring.discard(j)
                    gave_back = gave_back or e > now
                    done_runs.setdefault(user[j] if user is not None else 0, []).append(run[j])
                elif kind == "expiry":
                    expiring.discard(j)
                    running[j] = (start[j], start[j] + own[j])
                    grown = True
                else:
                    coming.append(j)
            if grown:
                placed = [(s, e, procs[j]) for j, (s, e) in running.items()]
                for j in list(res):
                    t = _earliest(placed, now, procs[j], est[j], P)
                    placed.append((t, t + est[j], procs[j]))
                    delayed += t > res[j]
                    res[j] = t
                grown = False
            elif gave_back:
                for j in list(res):
                    t = _earliest(holds(skip=j), now, procs[j], est[j], P)
                    assert t <= res[j]
                    res[j] = t
            for j in coming:
                past = done_runs.get(user[j] if user is not None else 0, [])[-last_k:] if last_k else []
                if past:
                    est[j] = min(sum(past) / len(past), own[j])
                t = _earliest(holds(), now, procs[j], est[j], P)
                res[j] = first[j] = t
            for j in [j for j, t in res.items() if t == now]:
                if procs[j] <= P - sum(procs[i] for i in running):
                    del res[j]
                    start[j] = now
                    running[j] = (now, now + est[j])
                    if est[j] < own[j] and run[j] > est[j]:
                        expiring.add(j)
    return start, first, delayed
