"""The last-k predictor's memory in the compiled cores: each user's last k
run times, in a ring (completions at one instant in log order)."""
from __future__ import annotations

import numpy as np
from wla.archive.kernel.jit import njit


@njit(cache=True, nogil=True)
def memory(n_users, last_k):
    """Each user's ring of run times, how many it holds, and where the next goes."""
    users = max(n_users, 1)
    return np.zeros((users, max(last_k, 1))), np.zeros(users, np.int64), np.zeros(users, np.int64)


@njit(cache=True, nogil=True)
def remember(hist, hcount, hpos, u, last_k, run):
    """A job of user u completed after `run` seconds."""
    hist[u, hpos[u]] = run
    hpos[u] = (hpos[u] + 1) % last_k
    if hcount[u] < last_k:
        hcount[u] += 1


@njit(cache=True, nogil=True)
def predict(hist, hcount, hpos, u, last_k, own):
    """The mean of user u's last k run times, never more than `own`, which
    stands without history."""
    c = hcount[u]
    if c == 0:
        return own
    s = 0.0
    first = (hpos[u] - c) % last_k
    for i in range(c):
        s += hist[u, (first + i) % last_k]
    mean = s / c
    return mean if mean < own else own
