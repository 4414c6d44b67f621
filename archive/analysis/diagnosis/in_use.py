"""Processors in use over a log's time, as its jobs are written (start =
submit + wait, end = start + run): the step function two detectors read to
tell a real schedule (it keeps within the machine) from arrivals that never
waited or from processors shared by several jobs at once."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class InUse:
    """`level[i]` processors are in use from `times[i]` to `times[i + 1]`;
    `over[i]` is the time before `times[i]` spent above `capacity`."""

    times: np.ndarray
    level: np.ndarray
    over: np.ndarray
    capacity: float

    @property
    def span(self) -> float:
        return float(self.times[-1] - self.times[0]) if len(self.times) else 0.0

    def over_share(self) -> float:
        """The share of the log's time with more processors in use than the machine has."""
        return float(self.over[-1] / self.span) if self.span > 0 else 0.0

    def peak(self) -> int:
        """The most processors in use over a stretch of time (not at an instant two events share)."""
        lasting = np.diff(self.times) > 0
        return int(self.level[:-1][lasting].max()) if lasting.any() else 0

    def over_factor(self) -> float:
        """Processors in use while over capacity, on average, as a multiple of the capacity."""
        dur = np.diff(self.times)
        above = self.level[:-1] > self.capacity
        time = dur[above].sum()
        return float((self.level[:-1][above] * dur[above]).sum() / time / self.capacity) if time > 0 else 0.0

    def over_during(self, start: np.ndarray, end: np.ndarray) -> np.ndarray:
        """The time each interval [start, end) spent with the machine over capacity."""
        return self._over_at(end) - self._over_at(start)

    def _over_at(self, t: np.ndarray) -> np.ndarray:
        i = np.clip(np.searchsorted(self.times, t, side="right") - 1, 0, len(self.times) - 1)
        partial = np.where(self.level[i] > self.capacity, t - self.times[i], 0.0)
        return self.over[i] + partial


def in_use(start: np.ndarray, end: np.ndarray, procs: np.ndarray, capacity: float) -> InUse:
    """The step function of processors in use by jobs running from `start` to
    `end` on `procs` processors (a job ending when another starts frees its
    processors first)."""
    times = np.concatenate([end, start]).astype(np.float64)
    delta = np.concatenate([-procs, procs]).astype(np.float64)
    order = np.argsort(times, kind="stable")  # ends (first in the concatenation) before starts at a tie
    times, level = times[order], np.cumsum(delta[order])
    dur = np.diff(times)
    over = np.concatenate([[0.0], np.cumsum(np.where(level[:-1] > capacity, dur, 0.0))])
    return InUse(times, level, over, float(capacity))


def written_schedule(jobs: dict[str, np.ndarray], known_waits: bool) -> tuple[np.ndarray, ...]:
    """The jobs that ran (run > 0 on > 0 processors, known submit) as
    written: their mask, starts, ends and sizes. With `known_waits` only jobs
    whose wait is known; otherwise an unknown wait counts as none."""
    wait = jobs["wait"]
    ran = (jobs["run"] > 0) & (jobs["procs"] > 0) & (jobs["submit"] >= 0)
    if known_waits:
        ran &= wait >= 0
    start = jobs["submit"][ran] + np.maximum(wait[ran], 0)
    return ran, start, start + jobs["run"][ran], jobs["procs"][ran]
