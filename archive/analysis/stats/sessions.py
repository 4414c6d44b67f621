"""Session similarity (the resampling paper, section 3, Figs. 1 and 2, Tables
II-IV; docs/pages/reproductions/sessions.md): are a user's jobs more alike
within a session, and in nearby sessions, than far apart? If so, locality
spans sessions, and resampling keeps whole users rather than sessions.

Two jobs' similarity on an attribute is min/max of their values (1 when
both are 0). Two sessions' similarity is its mean over all pairs of a job
from each (`identical`: the share of pairs of equal values); a session with
itself pairs each job with every other, never with itself. A user's
similarity at distance d is the mean over all its pairs of jobs d sessions
apart (the k-th and the (k+d)-th among all its sessions), or, weighing
sessions, the mean over its pairs of sessions d apart of their similarity.
Sessions are those of the per-user statistics (`users.py`): a job opens a
new one when it comes more than the gap after the latest end of the user's
jobs so far.

No pair is visited: a user's jobs are walked once in increasing value, and
each job adds prefix/v (the sum of the smaller values already seen in the
other session, over its own) for every session at distance d. The walk is
O(jobs x distances), so the paper's 1000 shuffles cost seconds.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from wla.archive.kernel.errors import UsageError
from wla.archive.kernel.jit import njit
from wla.archive.kernel.processors import processors
from wla.archive.kernel.ranges import MAX_COUNT, MAX_SEED, number, whole

from .users import SESSION_GAP, job_ends

# Attribute -> what it is (the paper's three: Tables II, III and IV).
ATTRIBUTES = {"procs": "processors", "req_time": "requested run time", "run": "run time"}
STATISTICS = ("mean", "identical")
SHUFFLES = ("jobs", "sessions")
WEIGHS = ("sessions", "pairs")
WEIGH = "pairs"  # nearer the paper's Tables II-IV than session pairs weighing the same (docs/pages/reproductions)
DISTANCES = 10  # Fig. 1's distances: 0 to 10 sessions apart
REPEATS = 1000  # the paper's shuffles for Fig. 2
SEED = 0
EQUAL = 1e-9  # similarities closer than this are equal (the middle column of Tables II-IV)


@dataclass(frozen=True)
class Sessions:
    """Jobs of known user and submit, sorted by user then submit (ties in
    the log's order): `order` indexes the input, `user` numbers users
    0..u-1 (`ids` their user ids), `session` numbers sessions 0..s-1
    consecutively within each user; `session_user` is each session's user."""

    order: np.ndarray
    user: np.ndarray
    session: np.ndarray
    session_user: np.ndarray
    ids: np.ndarray
    gap: float


def split_sessions(user_id: np.ndarray, submit: np.ndarray, end: np.ndarray,
                   gap: float = SESSION_GAP) -> Sessions:
    """Each job's user and session by the rule of `users.py` (a new session
    when the submit comes more than `gap` seconds after the latest end of
    the user's earlier jobs), with a running maximum instead of a loop."""
    gap = number("gap", gap, 0, None)
    user_id = np.asarray(user_id, dtype=np.float64)
    submit = np.asarray(submit, dtype=np.float64)
    end = np.asarray(end, dtype=np.float64)
    keep = np.flatnonzero(np.isfinite(submit) & (submit >= 0) & np.isfinite(user_id) & (user_id >= 0))
    ids, user = np.unique(user_id[keep].astype(np.int64), return_inverse=True)
    sort = np.lexsort((submit[keep], user))  # stable: ties keep the log's order
    order, user = keep[sort], user[sort]
    s, e = submit[order], end[order]
    e = np.where(np.isfinite(e), e, s)
    # The latest end so far within each user: each user's ends lifted above every earlier user's.
    span = float(e.max() - s.min() + 1.0) if len(e) else 1.0
    latest = np.maximum.accumulate(e + user * span) - user * span
    opens = np.ones(len(order), dtype=bool)
    opens[1:] = (user[1:] != user[:-1]) | (s[1:] - latest[:-1] > gap)
    session = np.cumsum(opens) - 1
    return Sessions(order, user, session, user[opens], ids, float(gap))


def _column(jobs: Any, name: str) -> np.ndarray:
    """A column as doubles, NaN where unknown (pandas, maybe nullable, or an array)."""
    if name not in (jobs.columns if hasattr(jobs, "columns") else jobs.keys()):
        raise UsageError(f"the jobs have no {name} column")
    v = jobs[name]
    return v.to_numpy(dtype=np.float64, na_value=np.nan) if hasattr(v, "to_numpy") else np.asarray(v, np.float64)


def attribute_values(jobs: Any, attribute: str) -> np.ndarray:
    """An attribute per job, NaN where unknown (negative or absent):
    processors as the kernel counts them (allocated, else requested)."""
    if attribute not in ATTRIBUTES:
        raise UsageError(f"attribute must be one of {', '.join(ATTRIBUTES)}, not {attribute!r}")
    if attribute == "procs":
        return processors(_column(jobs, "procs"), _column(jobs, "req_procs"))
    v = _column(jobs, attribute)
    return np.where(v >= 0, v, np.nan)


@njit(cache=True)
def _walk(session: np.ndarray, value: np.ndarray, session_user: np.ndarray,
          distances: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Jobs sorted by user then value: per session s and distance d, the sum
    of min/max and the count of equal values over the pairs of a job of s
    and a job of s+d (at d = 0, pairs of two jobs of s), and the jobs of s."""
    n = len(session_user)
    total = np.zeros((n, distances + 1))
    equal = np.zeros((n, distances + 1))
    prefix = np.zeros(n)
    count = np.zeros(n)
    last = np.full(n, -1.0)
    run = np.zeros(n)
    for j in range(len(session)):
        s = session[j]
        v = value[j]
        u = session_user[s]
        for d in range(distances + 1):
            t = s + d  # a later session: the pair is counted in row s
            if t < n and session_user[t] == u:
                total[s, d] += prefix[t] / v if v > 0 else count[t]  # earlier values are all 0
                if last[t] == v:
                    equal[s, d] += run[t]
            t = s - d  # an earlier one: the pair is counted in its row
            if d > 0 and t >= 0 and session_user[t] == u:
                total[t, d] += prefix[t] / v if v > 0 else count[t]
                if last[t] == v:
                    equal[t, d] += run[t]
        prefix[s] += v
        count[s] += 1
        if last[s] == v:
            run[s] += 1
        else:
            last[s] = v
            run[s] = 1
    return total, equal, count


@njit(cache=True)
def _mix(session: np.ndarray, user: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The session labels shuffled within each user (Fisher-Yates, one
    uniform draw per job), so every session keeps its size."""
    out = session.copy()
    i = 0
    n = len(out)
    while i < n:
        k = i
        while k < n and user[k] == user[i]:
            k += 1
        for a in range(i, k - 1):
            b = a + int(draws[a] * (k - a))
            out[a], out[b] = out[b], out[a]
        i = k
    return out


def _pairs(count: np.ndarray, session_user: np.ndarray, distances: int) -> np.ndarray:
    n = len(count)
    out = np.zeros((n, distances + 1))
    out[:, 0] = count * (count - 1) / 2
    for d in range(1, min(distances, n - 1) + 1):
        same = session_user[d:] == session_user[:n - d]
        out[:n - d, d] = np.where(same, count[:n - d] * count[d:], 0.0)
    return out


def _by_value(sessions: Sessions, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The valued jobs sorted by user then value: session, value, user."""
    values = np.asarray(values, dtype=np.float64)
    known = np.flatnonzero(np.isfinite(values) & (values >= 0))
    order = known[np.lexsort((values[known], sessions.user[known]))]
    return sessions.session[order], values[order], sessions.user[order]


def pair_sums(sessions: Sessions, values: np.ndarray, distances: int = DISTANCES,
              statistic: str = "mean") -> tuple[np.ndarray, np.ndarray]:
    """sessions x (distances + 1), twice: per session and distance d, the
    sum of the pairs' similarities (min/max, or 1 for equal values) with
    the session d later of the same user, and the number of those pairs (at
    d = 0, pairs of two jobs of the session). `values` is per job in
    `sessions.order`; a job without a value is in no pair."""
    if statistic not in STATISTICS:
        raise UsageError(f"statistic must be one of {', '.join(STATISTICS)}, not {statistic!r}")
    distances = whole("distances", distances, 0, MAX_COUNT)
    session, value, _ = _by_value(sessions, values)
    total, equal, count = _walk(session, value, sessions.session_user, distances)
    return (total if statistic == "mean" else equal), _pairs(count, sessions.session_user, distances)


def session_similarity(sessions: Sessions, values: np.ndarray, distances: int = DISTANCES,
                       statistic: str = "mean") -> np.ndarray:
    """sessions x (distances + 1): each session's similarity with the one d
    later of the same user; NaN where either has no valued job (at d = 0,
    fewer than two)."""
    sums, pairs = pair_sums(sessions, values, distances, statistic)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pairs > 0, sums / pairs, np.nan)


def pooled_similarity(sessions: Sessions, sums: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """users x distances: each user's pairs of jobs at each distance pooled,
    every pair weighing the same (large sessions weigh more than with
    `user_similarity`), NaN where it has none."""
    users = len(sessions.ids)
    out = np.full((users, sums.shape[1]), np.nan)
    for d in range(sums.shape[1]):
        total = np.bincount(sessions.session_user, weights=sums[:, d], minlength=users)
        count = np.bincount(sessions.session_user, weights=pairs[:, d], minlength=users)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[:, d] = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return out


def per_user(sessions: Sessions, values: np.ndarray, distances: int = DISTANCES, statistic: str = "mean",
             weigh: str = WEIGH) -> np.ndarray:
    """users x (distances + 1): each user's similarity at each distance,
    its session pairs weighing the same (`sessions`) or its job pairs
    (`pairs`)."""
    if weigh not in WEIGHS:
        raise UsageError(f"weigh must be one of {', '.join(WEIGHS)}, not {weigh!r}")
    sums, pairs = pair_sums(sessions, values, distances, statistic)
    if weigh == "pairs":
        return pooled_similarity(sessions, sums, pairs)
    with np.errstate(divide="ignore", invalid="ignore"):
        return user_similarity(sessions, np.where(pairs > 0, sums / pairs, np.nan))


def user_similarity(sessions: Sessions, similarity: np.ndarray) -> np.ndarray:
    """users x distances: the mean of each user's defined session
    similarities at each distance, NaN where it has none."""
    users = len(sessions.ids)
    out = np.full((users, similarity.shape[1]), np.nan)
    for d in range(similarity.shape[1]):
        ok = np.isfinite(similarity[:, d])
        count = np.bincount(sessions.session_user[ok], minlength=users)
        total = np.bincount(sessions.session_user[ok], weights=similarity[ok, d], minlength=users)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[:, d] = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return out


def locality_table(per_user: np.ndarray) -> dict:
    """Tables II-IV: among the users whose similarity is defined at
    distances 0, 1 and 2, the shares more similar at the shorter distance,
    equal (within EQUAL) and more similar at the longer, for 0 vs 1 and 1
    vs 2; `constant`: those similar as 1 at all three (one value only)."""
    if per_user.shape[1] < 3:
        raise UsageError("the table compares distances 0, 1 and 2: give distances of 2 or more")
    rows = per_user[np.all(np.isfinite(per_user[:, :3]), axis=1), :3]
    out: dict[str, Any] = {"users": int(len(rows)),
                           "constant": int(np.all(np.abs(rows - 1.0) <= EQUAL, axis=1).sum())}
    for near, far in ((0, 1), (1, 2)):
        diff = rows[:, near] - rows[:, far]
        shares = [float(np.mean(x)) if len(rows) else None
                  for x in (diff > EQUAL, np.abs(diff) <= EQUAL, diff < -EQUAL)]
        out[f"{near} vs {far}"] = dict(zip(("shorter", "equal", "longer"), shares))
    return out


def curve(per_user: np.ndarray) -> dict:
    """Fig. 1's curves: per distance the users with a value, and the mean
    and the median over them."""
    out: dict[str, list] = {"users": [], "mean": [], "median": []}
    for column in per_user.T:
        v = column[np.isfinite(column)]
        out["users"].append(int(len(v)))
        out["mean"].append(float(v.mean()) if len(v) else None)
        out["median"].append(float(np.median(v)) if len(v) else None)
    return out


def shuffled(sessions: Sessions, how: str, rng: np.random.Generator) -> Sessions:
    """The null model. `jobs`: each user's jobs mixed among its sessions,
    every session keeping its size (the paper's Fig. 2). `sessions`: each
    user's sessions in a random order (distance 0 as in the log)."""
    if how not in SHUFFLES:
        raise UsageError(f"shuffle must be one of {', '.join(SHUFFLES)}, not {how!r}")
    if how == "jobs":
        session = _mix(sessions.session, sessions.user, rng.random(len(sessions.session)))
    else:
        n = len(sessions.session_user)
        new = np.empty(n, dtype=np.int64)
        new[np.lexsort((rng.random(n), sessions.session_user))] = np.arange(n)
        session = new[sessions.session]
    return Sessions(sessions.order, sessions.user, session, sessions.session_user, sessions.ids, sessions.gap)


def _mean(values: np.ndarray) -> float | None:
    values = values[np.isfinite(values)]
    return float(values.mean()) if len(values) else None


@njit(cache=True)
def _null(session: np.ndarray, value: np.ndarray, user: np.ndarray, session_user: np.ndarray, users: int,
          repeats: int, identical: bool, pooled: bool, seed: int) -> np.ndarray:
    """`repeats` times: each user's jobs mixed among its sessions in place
    (Fisher-Yates; mixing a mixed order again gives an order as random),
    then the mean over users of their mean distance-0 similarity."""
    np.random.seed(seed)
    labels = session.copy()
    n, sessions = len(labels), len(session_user)
    out = np.empty(repeats)
    for r in range(repeats):
        i = 0
        while i < n:
            k = i
            while k < n and user[k] == user[i]:
                k += 1
            for a in range(i, k - 1):
                b = a + int(np.random.random() * (k - a))
                labels[a], labels[b] = labels[b], labels[a]
            i = k
        total = np.zeros(sessions)
        prefix = np.zeros(sessions)
        count = np.zeros(sessions)
        last = np.full(sessions, -1.0)
        run = np.zeros(sessions)
        for j in range(n):
            s = labels[j]
            v = value[j]
            if identical:
                if last[s] == v:
                    total[s] += run[s]
                    run[s] += 1
                else:
                    last[s] = v
                    run[s] = 1
            else:
                total[s] += prefix[s] / v if v > 0 else count[s]
            prefix[s] += v
            count[s] += 1
        user_total = np.zeros(users)
        user_count = np.zeros(users)
        for s in range(sessions):
            if count[s] > 1:
                pairs = count[s] * (count[s] - 1) / 2
                user_total[session_user[s]] += total[s] if pooled else total[s] / pairs
                user_count[session_user[s]] += pairs if pooled else 1
        mean, defined = 0.0, 0
        for u in range(users):
            if user_count[u] > 0:
                mean += user_total[u] / user_count[u]
                defined += 1
        out[r] = mean / defined if defined else np.nan
    return out


def null_distribution(sessions: Sessions, values: np.ndarray, repeats: int = REPEATS, statistic: str = "mean",
                      rng: np.random.Generator | None = None, weigh: str = WEIGH) -> np.ndarray:
    """Fig. 2: the mean over users of the distance-0 similarity, once per
    shuffle of each user's jobs among its sessions (every session keeping
    its size)."""
    repeats = whole("repeats", repeats, 0, MAX_COUNT)
    rng = rng if rng is not None else np.random.default_rng(SEED)
    session, value, user = _by_value(sessions, values)
    return _null(session.astype(np.int32), value, user.astype(np.int32), sessions.session_user,
                 len(sessions.ids), repeats, statistic == "identical", weigh == "pairs", int(rng.integers(2**31)))


@dataclass
class AttributeSimilarity:
    """One attribute: Fig. 1's curves and Tables II-IV's row for the log
    and for one shuffle, and Fig. 2's distance-0 means over the shuffles."""

    attribute: str
    jobs: int
    log: dict
    shuffled: dict
    table: dict
    shuffled_table: dict
    null: np.ndarray

    def as_dict(self, detail: bool = True) -> dict:
        null, at0 = self.null, self.log["mean"][0]
        finite = null[np.isfinite(null)]
        summary = {"repeats": int(len(null)), "mean": _mean(null),
                   "max": float(finite.max()) if len(finite) else None,
                   "at_least_log": int((finite >= at0).sum()) if at0 is not None else None}
        return {"attribute": self.attribute, "jobs": self.jobs, "log": self.log, "shuffled": self.shuffled,
                "table": self.table, "shuffled_table": self.shuffled_table,
                "null": {**summary, **({"values": null.tolist()} if detail else {})}}


@dataclass
class SessionReport:
    """Every attribute's results and the settings they were computed with."""

    users: int
    sessions: int
    settings: dict
    attributes: list[AttributeSimilarity]

    def as_dict(self, detail: bool = True) -> dict:
        """With `detail`, every shuffle's value too (what Fig. 2 draws)."""
        return {"users": self.users, "sessions": self.sessions, "settings": self.settings,
                "attributes": [a.as_dict(detail) for a in self.attributes]}


def session_report(jobs: Any, attributes: tuple[str, ...] = tuple(ATTRIBUTES), distances: int = DISTANCES,
                   statistic: str = "mean", shuffle: str = "jobs", repeats: int = REPEATS, seed: int = SEED,
                   gap: float = SESSION_GAP, weigh: str = WEIGH) -> SessionReport:
    """Section 3 for `jobs` (the archive's columns user_id, submit, wait,
    run, procs, req_procs, req_time): per attribute Fig. 1's curves for
    distances 0..`distances` and the locality table, of the log and of one
    `shuffle`, and the distance-0 mean over `repeats` job shuffles (Fig. 2).
    The same seed gives the same shuffles."""
    distances = whole("distances", distances, 2, MAX_COUNT)
    repeats = whole("repeats", repeats, 0, MAX_COUNT)
    seed = whole("seed", seed, 0, MAX_SEED)
    gap = number("gap", gap, 0, None)
    for a in attributes:
        attribute_values({"procs": [], "req_procs": [], "req_time": [], "run": []}, a)  # names checked first
    if statistic not in STATISTICS:
        raise UsageError(f"statistic must be one of {', '.join(STATISTICS)}, not {statistic!r}")
    if shuffle not in SHUFFLES:
        raise UsageError(f"shuffle must be one of {', '.join(SHUFFLES)}, not {shuffle!r}")
    if weigh not in WEIGHS:
        raise UsageError(f"weigh must be one of {', '.join(WEIGHS)}, not {weigh!r}")
    submit = _column(jobs, "submit")
    sessions = split_sessions(_column(jobs, "user_id"), submit,
                              job_ends(submit, _column(jobs, "wait"), _column(jobs, "run")), gap)
    results = []
    for a, attribute in enumerate(attributes):
        values = attribute_values(jobs, attribute)[sessions.order]
        users = per_user(sessions, values, distances, statistic, weigh)
        rng = np.random.default_rng([seed, a])
        mixed = per_user(shuffled(sessions, shuffle, rng), values, distances, statistic, weigh)
        null = null_distribution(sessions, values, repeats, statistic, rng, weigh)
        results.append(AttributeSimilarity(attribute, int(np.isfinite(values).sum()), curve(users), curve(mixed),
                                           locality_table(users), locality_table(mixed), null))
    settings = {"distances": distances, "statistic": statistic, "weigh": weigh, "shuffle": shuffle,
                "repeats": int(repeats), "seed": seed, "gap": float(sessions.gap)}
    return SessionReport(len(sessions.ids), len(sessions.session_user), settings, results)


def warm() -> None:
    """Compile the walk, the null model and the jobs' shuffle (or load them
    from numba's cache) for the argument types real runs give them."""
    s = split_sessions(np.array([1.0, 1.0, 2.0]), np.array([0.0, 5000.0, 1.0]), np.array([10.0, 5010.0, 2.0]))
    v = np.array([2.0, 4.0, 1.0])
    session_similarity(s, v, 1)
    null_distribution(s, v, 1)
    shuffled(s, "jobs", np.random.default_rng(0))
