"""The users of several logs as one source to resample (the resampling
paper's section 6.5.1, mixing traces): docs/pages/reproductions/baselines.md.

- Each log's users are classified in its own pools (long-term, temporary,
  discarded, rare-behavior) against its own start, end and length: the
  12-week and 4-week rules are about the window each log was recorded in.
- Clocks: the workload keeps the first log's clock. Every other log's
  submits move by the part of a week that puts its local weekday and time
  of day on the first log's (its wall clock at submit 0 set against the
  first log's, so Monday 9:00 stays Monday 9:00; a log without a
  UnixStartTime is not moved, and the weekday is then not kept). Whole
  weeks are then counted on that one clock, as for one log.
- Users are numbered apart: log k's user u becomes u + the offset of log k
  (one more than the largest user number of the logs before it), kept in
  the stored workload's parameters so every user can be traced back.
- Defaults: long-term users, initial temporary users and arrivals a week
  are the sums of the logs' own figures (load 1 is every log's population
  at once; --load 0.5 halves it), and the length is the first log's.
- A long-term user restarts after its own log's length minus its activity.
- The machine is the one asked for; jobs wider than it are not simulated
  (counted as any log's are).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np
from wla.archive.kernel.clock import DAY, WEEK, LogClock, local_time
from wla.archive.kernel.errors import UsageError
from wla.archive.kernel.ranges import whole

from .pools import Triple, UserPools
from .workload import SourceLog


def week_phase(clock: LogClock) -> float | None:
    """Seconds from the local Monday 00:00 before submit 0 to submit 0 (None: no start time)."""
    when = local_time(clock, 0.0)
    if when is None:
        return None
    return when.weekday() * DAY + when.hour * 3600 + when.minute * 60 + when.second


def mix_sources(sources: Sequence[SourceLog], P: int) -> SourceLog:
    """One source holding every log's users, on a machine of P processors."""
    import pandas as pd

    if len(sources) < 2:
        raise UsageError("mixing takes two logs or more")
    names = [s.name for s in sources]
    if len(set(names)) < len(names):
        raise UsageError(f"a log is named twice in the mix: {', '.join(names)}")
    P = whole("procs", P, 1, 2**31 - 1)
    phases = [week_phase(s.clock) for s in sources]
    aligned = all(p is not None for p in phases)
    frames, parts, mix = [], [], []
    job_offset, user_offset = 0, 0
    pieces: dict[str, list[np.ndarray]] = {k: [] for k in ("members", "sizes", "user", "kind", "first", "last",
                                                         "span", "origin")}
    triples: list[Triple] = []
    for k, s in enumerate(sources):
        shift = float((phases[k] - phases[0]) % WEEK) if aligned else 0.0
        jobs = s.jobs.copy()
        submit = jobs["submit"].to_numpy(np.float64)
        jobs["submit"] = np.where(np.isfinite(submit) & (submit >= 0), submit + shift, submit)
        users = jobs["user_id"].to_numpy(np.int64)
        jobs["user_id"] = np.where(users >= 0, users + user_offset, users)
        frames.append(jobs)
        p = s.pools
        pieces["members"].append(p.members + job_offset)
        pieces["sizes"].append(np.diff(p.offsets))
        pieces["user"].append(p.user + user_offset)
        pieces["kind"].append(p.kind)
        pieces["first"].append(p.first + shift)
        pieces["last"].append(p.last + shift)
        pieces["span"].append(p.spans())
        pieces["origin"].append(np.full(len(p.user), k, np.int64))
        triples += [Triple(t.user + user_offset, t.begin + shift, t.end + shift) for t in p.triples]
        parts.append(p)
        mix.append({"log": s.name, "user_offset": user_offset, "shift_seconds": shift,
                    "machine_size": s.P, "jobs": len(s.jobs)})
        job_offset += len(s.jobs)
        known = users[users >= 0]
        user_offset += int(known.max()) + 1 if len(known) else 0
    first = sources[0].pools
    sizes = np.concatenate(pieces["sizes"])
    pools = UserPools(
        members=np.concatenate(pieces["members"]), offsets=np.r_[0, np.cumsum(sizes)].astype(np.int64),
        user=np.concatenate(pieces["user"]), kind=np.concatenate(pieces["kind"]),
        first=np.concatenate(pieces["first"]), last=np.concatenate(pieces["last"]),
        log_first=first.log_first, log_last=first.log_last, long_term_weeks=first.long_term_weeks,
        edge_weeks=first.edge_weeks, triples=tuple(triples),
        unknown_user_jobs=sum(p.unknown_user_jobs for p in parts),
        unknown_submit_jobs=sum(p.unknown_submit_jobs for p in parts), log_jobs=job_offset,
        span=np.concatenate(pieces["span"]), origin=np.concatenate(pieces["origin"]), parts=tuple(parts))
    facts = {**sources[0].facts, "machine_size": P, "mix": mix, "weekday_kept": aligned}
    jobs = pd.concat(frames, ignore_index=True)
    return replace(sources[0], name="+".join(names), jobs=jobs, P=P, pools=pools, facts=facts)
