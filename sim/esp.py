"""ESP-style workloads and the ESP efficiency score (docs/pages/definitions/simulation.md, "ESP efficiency").

An ESP run submits a fixed mix of job types in a few batches, plus
full-machine jobs at set times, and scores the resulting schedule by
efficiency = sum p_j t_j / (P x T). Because a machine always drains at the
end, the score is also offered with the idle-at-end (IAE) of a Most Work
First reference schedule taken out of the denominator.
"""
from __future__ import annotations

import csv
import heapq
import math
from collections import deque
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from wla.archive.kernel import ranges, units
from wla.archive.kernel.errors import InputError, ParameterError, UsageError
from wla.archive.swf.rawfile import open_regular

from .seeds import stream

if TYPE_CHECKING:
    from .result import SimResult

EXAMPLE_MIX = Path(__file__).with_name("esp_mix.csv")
# The 230-job ESP table as published (its source in the file's comment lines).
PUBLISHED_MIX = Path(__file__).with_name("esp_published.csv")
MIXES = {"example": EXAMPLE_MIX, "published": PUBLISHED_MIX}
MIX_COLUMNS = ("type", "fraction", "run", "count")
# The MWF reference schedule keeps a time per processor: 2**24 of them take
# about 10 s and 1 GB, which bounds the machine an ESP run may have.
MAX_ESP_PROCESSORS = 2**24
# Times in seconds up to 2**53, where every whole second is an exact double.
MAX_SECONDS = 2**53


def _number(text: str, path: str, line: int, column: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(path, line, f"{column} is not a number", text) from None
    if not math.isfinite(value):
        raise InputError(path, line, f"{column} is not a finite number", text)
    return value


def read_mix(path: str | Path) -> pd.DataFrame:
    """A job mix from CSV (header type,fraction,run,count), checked row by row
    so that a mistake is reported as FILE:LINE rather than as a bad workload.
    Lines starting with # are comments (a mix cites its source there)."""
    name = str(path)
    try:  # a regular file only: a FIFO would wait for a writer forever
        with open(open_regular(name), newline="", encoding="utf-8-sig") as f:
            rows = [(n, cells) for n, cells in enumerate(csv.reader(f), start=1)
                    if any(c.strip() for c in cells) and not cells[0].lstrip().startswith("#")]
    except UnicodeDecodeError:
        raise InputError(name, None, "not UTF-8 text") from None
    except csv.Error as e:
        raise InputError(name, None, f"not CSV ({e})") from None
    except OSError as e:
        raise InputError(name, None, f"cannot read file ({e.strerror or e})") from None
    if not rows:
        raise InputError(name, 1, "empty file: no header row")
    header_line, header = rows[0]
    header = [h.strip() for h in header]
    missing = [c for c in MIX_COLUMNS if c not in header]
    if missing:
        raise InputError(name, header_line, f"missing column(s) {', '.join(missing)}; expected {','.join(MIX_COLUMNS)}")
    where = {c: header.index(c) for c in MIX_COLUMNS}

    out: dict[str, list] = {c: [] for c in MIX_COLUMNS}
    for line, cells in rows[1:]:
        text = ",".join(cells)
        if len(cells) != len(header):
            raise InputError(name, line, f"{len(cells)} fields, the header has {len(header)}", text)
        kind = cells[where["type"]].strip()
        if not kind:
            raise InputError(name, line, "empty type", text)
        fraction = _number(cells[where["fraction"]].strip(), name, line, "fraction")
        if not 0 < fraction <= 1:
            raise InputError(name, line, "fraction must be in (0, 1]", text)
        run = _number(cells[where["run"]].strip(), name, line, "run")
        if run <= 0:
            raise InputError(name, line, "run must be > 0", text)
        count = cells[where["count"]].strip()
        try:
            count_value = int(count)
        except ValueError:
            raise InputError(name, line, "count is not an integer", text) from None
        if count_value < 1:
            raise InputError(name, line, "count must be >= 1", text)
        for column, value in zip(MIX_COLUMNS, (kind, fraction, run, count_value)):
            out[column].append(value)
    if not out["type"]:
        raise InputError(name, header_line, "empty mix: a header but no job rows")
    return pd.DataFrame({
        "type": pd.Series(out["type"], dtype=str),
        "fraction": pd.Series(out["fraction"], dtype=float),
        "run": pd.Series(out["run"], dtype=float),
        "count": pd.Series(out["count"], dtype=int),
    })


def mix_path(mix: str | Path | None) -> Path:
    """The file of a mix given by name (`example`, `published`) or by path;
    none given is the example."""
    if mix is None:
        return EXAMPLE_MIX
    return MIXES.get(str(mix), Path(mix))


def esp_workload(mix: pd.DataFrame, procs: int, seed: int, full_arrivals: Sequence[float],
                 batches: int = 3, gap: float = 600.0) -> pd.DataFrame:
    """The jobs of `mix` as an ESP-style submission on `procs` processors.

    Ordinary jobs are shuffled (by `seed`, so a run can be repeated) and
    submitted in `batches` equal batches `gap` seconds apart; full-machine
    jobs (fraction 1) arrive at `full_arrivals`, which the benchmark fixes.
    """
    ranges.whole("procs", procs, 1, MAX_ESP_PROCESSORS)
    ranges.whole("seed", seed, 0, ranges.MAX_SEED)
    ranges.whole("batches", batches, 1, ranges.MAX_COUNT)
    ranges.number("gap", gap, 0, MAX_SECONDS)
    arrivals = [ranges.number("full_arrivals", t, 0, MAX_SECONDS) for t in full_arrivals]

    fraction = mix["fraction"].to_numpy(dtype=float)
    count = mix["count"].to_numpy(dtype=int)
    row = np.repeat(np.arange(len(mix)), count)  # one entry per job: its mix row
    full = fraction[row] == 1.0
    ordinary, whole = row[~full], row[full]
    if len(whole) != len(arrivals):
        given = f"{units.count(len(arrivals), 'arrival time')} {'was' if len(arrivals) == 1 else 'were'} given"
        raise ParameterError(f"the mix has {units.count(len(whole), 'full-machine job')} but {given} "
                             "({full_arrivals} T, once per job)", "full_arrivals")

    ordinary = ordinary[stream(seed).permutation(len(ordinary))]
    parts = np.array_split(ordinary, batches)
    rows = np.concatenate([ordinary, whole])
    submit = np.concatenate([np.full(len(p), b * gap) for b, p in enumerate(parts)] + [np.array(arrivals)])
    order = np.argsort(submit, kind="stable")  # full-machine jobs come last among equal times
    rows, submit = rows[order], submit[order]

    width = np.maximum(1, np.floor(fraction * procs + 0.5)).astype(int)
    run = mix["run"].to_numpy(dtype=float)[rows]
    return pd.DataFrame({
        "job": np.arange(1, len(rows) + 1),
        "submit": submit.astype(float),
        "run": run,
        "procs": width[rows],
        "req_time": run.copy(),
        "user": rows + 1,
        "type": mix["type"].astype(str).to_numpy()[rows],
    })


def _jobs(run: ArrayLike, procs: ArrayLike, P: int) -> tuple[np.ndarray, np.ndarray]:
    run = np.asarray(run, dtype=float)
    procs = np.asarray(procs)
    if run.shape != procs.shape or run.ndim != 1:
        raise UsageError("run and procs must be one-dimensional and of the same length")
    ranges.whole("P", P, 1, MAX_ESP_PROCESSORS)
    if not np.all(np.isfinite(run) & (run >= 0)):
        raise UsageError("run times must be finite and >= 0")
    if np.any(procs != np.floor(procs)) or np.any(procs < 1):
        raise UsageError("procs must be integers >= 1")
    procs = procs.astype(int)
    if np.any(procs > P):
        raise UsageError(f"a job needs {procs.max()} processors, more than the machine's {P}")
    return run, procs


def mwf_schedule(run: ArrayLike, procs: ArrayLike, P: int) -> tuple[np.ndarray, np.ndarray]:
    """The Most Work First reference schedule: (start per job, last busy time
    per processor, 0 for one never used).

    All jobs are available at 0 and ranked by work, largest first (ties by
    index). Whenever processors free up, every pending job that fits is
    started in rank order on the lowest-numbered free processors; a job that
    does not fit does not block smaller ones behind it.
    """
    run, procs = _jobs(run, procs, P)
    rank = np.lexsort((np.arange(len(run)), -(run * procs)))
    # Pending jobs by width, each queue in rank order: the first job that fits
    # is the best-ranked head among widths <= free, found in O(distinct widths).
    waiting: dict[int, deque[int]] = {}
    for j in rank:
        waiting.setdefault(int(procs[j]), deque()).append(int(j))
    widths = sorted(waiting)
    position = np.empty(len(run), dtype=int)
    position[rank] = np.arange(len(run))

    start = np.zeros(len(run))
    last = np.zeros(P)
    free = np.ones(P, dtype=bool)
    ends: list[tuple[float, int, np.ndarray]] = []  # (end, job, processors)
    now = 0.0
    while True:
        n_free = int(free.sum())
        while True:
            heads = [waiting[w][0] for w in widths if w <= n_free and waiting[w]]
            if not heads:
                break
            j = min(heads, key=lambda k: position[k])
            waiting[int(procs[j])].popleft()
            cpus = np.flatnonzero(free)[: procs[j]]
            free[cpus] = False
            n_free -= int(procs[j])
            start[j] = now
            last[cpus] = now + run[j]  # a processor's jobs run one after another
            heapq.heappush(ends, (now + run[j], j, cpus))
        if not ends:
            break  # nothing running: every job fits an idle machine, so none waits
        now = ends[0][0]
        while ends and ends[0][0] == now:
            free[heapq.heappop(ends)[2]] = True
    return start, last


def idle_at_end(run: ArrayLike, procs: ArrayLike, P: int) -> float:
    """IAE: processor time left idle while the MWF schedule drains, the part
    of P x T that no scheduler could have filled with this set of jobs."""
    _, last = mwf_schedule(run, procs, P)
    return float(np.sum(last.max(initial=0.0) - last))


def processor_last_use(start: ArrayLike, run: ArrayLike, procs: ArrayLike, P: int) -> np.ndarray:
    """Last busy instant of each processor (nan for one never used) when each
    job, at its start, takes the lowest-numbered free processors: the
    simulator counts processors, this places them, as the T_pi of the
    critique's section 3.4 need."""
    run, procs = _jobs(run, procs, P)
    start = np.asarray(start, dtype=float)
    last = np.full(P, np.nan)
    free = np.ones(P, dtype=bool)
    ends: list[tuple[float, int, np.ndarray]] = []
    for j in sorted(range(len(run)), key=lambda k: (start[k], k)):
        while ends and ends[0][0] <= start[j]:  # ends before starts at the same instant
            free[heapq.heappop(ends)[2]] = True
        cpus = np.flatnonzero(free)[: procs[j]]
        if len(cpus) < procs[j]:
            raise UsageError(f"the schedule holds more than {P} processors at {start[j]:g}")
        free[cpus] = False
        last[cpus] = start[j] + run[j]
        heapq.heappush(ends, (start[j] + run[j], j, cpus))
    return last


def largest_first_no_reuse(run: ArrayLike, procs: ArrayLike, P: int) -> np.ndarray:
    """Start times of the critique's pathological schedule: jobs by width,
    widest first (ties by index), each started when the one before ends, so
    that a processor once idle is never used again. Every processor is busy
    from 0 to its last use: the sum-of-T_pi score is 1, yet the jobs run one
    at a time."""
    run, procs = _jobs(run, procs, P)
    order = np.lexsort((np.arange(len(run)), -procs))
    start = np.empty(len(run))
    start[order] = np.concatenate([[0.0], np.cumsum(run[order])[:-1]]) if len(run) else []
    return start


@dataclass(frozen=True)
class EspScore:
    """A schedule's ESP scores. Denominators: `efficiency` P x T;
    `corrected` P x T - IAE of MWF; `by_processor` the sum over processors
    of T_pi (test start to the processor's last use, 0 if never used).
    With a boot time B: `official` is ESP's own score, work / (P x (T + B));
    `amortized` charges the test only its share of a boot when boots are
    `between_boots` apart, work / (P x (T + B x T / between_boots)).
    ESP's rule that the second full-configuration job (by submission) ends
    within 90% of the test: its end and 0.9 T, both from the test's start."""

    work: float
    elapsed: float
    efficiency: float
    idle_at_end: float
    corrected: float
    mwf_makespan: float
    busy_span: float
    by_processor: float
    boot: float = 0.0
    official: float | None = None
    between_boots: float | None = None
    amortized: float | None = None
    second_full_end: float | None = None
    second_full_limit: float | None = None
    second_full_in_time: bool | None = None

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def esp_efficiency(submit: ArrayLike, start: ArrayLike, run: ArrayLike, procs: ArrayLike, P: int,
                   boot: float = 0.0, between_boots: float | None = None,
                   full: ArrayLike | None = None) -> EspScore:
    """The ESP scores of a schedule: work / (P x T), work / (P x T - IAE) and
    work / sum T_pi, T from the first submission to the last end; with the
    boot time in, whole (ESP's) and amortized over the time between boots."""
    ranges.number("boot", boot, 0, MAX_SECONDS)
    if between_boots is not None:
        ranges.number("between_boots", between_boots, 1, MAX_SECONDS)
    run_a, procs_a = _jobs(run, procs, P)
    submit = np.asarray(submit, dtype=float)
    start = np.asarray(start, dtype=float)
    if submit.shape != run_a.shape or start.shape != run_a.shape:
        raise UsageError("submit, start, run and procs must have the same length")
    if len(run_a) == 0:
        raise UsageError("no jobs to score")
    work = float(np.sum(procs_a * run_a))
    t0 = float(np.min(submit))
    elapsed = float(np.max(start + run_a) - t0)
    if elapsed <= 0:
        raise UsageError("the schedule takes no time: efficiency is undefined")
    _, last = mwf_schedule(run_a, procs_a, P)
    makespan = float(last.max())
    iae = float(np.sum(makespan - last))
    capacity = P * elapsed
    if capacity - iae <= 0:
        raise UsageError("P x T is not larger than the MWF idle-at-end: the corrected efficiency is undefined")
    second = _second_full(submit, start + run_a, full)
    used = processor_last_use(start, run_a, procs_a, P)
    span = float(np.nansum(used - t0))
    return EspScore(work=work, elapsed=elapsed, efficiency=work / capacity, idle_at_end=iae,
                    corrected=work / (capacity - iae), mwf_makespan=makespan, busy_span=span,
                    by_processor=work / span if span > 0 else float("nan"), boot=boot,
                    official=work / (P * (elapsed + boot)), between_boots=between_boots,
                    amortized=None if between_boots is None else
                    work / (P * (elapsed + boot * elapsed / between_boots)),
                    second_full_end=None if second is None else second - t0,
                    second_full_limit=None if second is None else 0.9 * elapsed,
                    second_full_in_time=None if second is None else bool(second - t0 <= 0.9 * elapsed))


def _second_full(submit: np.ndarray, end: np.ndarray, full: ArrayLike | None) -> float | None:
    """The end of the second full-configuration job by submission (ties by
    index), None with fewer than two."""
    if full is None:
        return None
    full = np.asarray(full, dtype=bool)
    if full.shape != submit.shape:
        raise UsageError("full must have one entry per job")
    which = [j for j in sorted(range(len(submit)), key=lambda k: (submit[k], k)) if full[j]]
    return float(end[which[1]]) if len(which) >= 2 else None


def run_esp(mix: pd.DataFrame, procs: int, policy: str = "easy", seed: int = 0,
            full_arrivals: Sequence[float] = (), full_first: bool = False, boot: float = 0.0,
            between_boots: float | None = None, **options) -> tuple["SimResult", EspScore]:
    """Build the ESP workload, simulate it (every job measured: the score is
    about the whole schedule) and score the schedule both ways. With
    `full_first`, full-configuration jobs have ESP's top priority
    (esp_priority.py)."""
    from .simulate import simulate

    jobs = esp_workload(mix, procs, seed, full_arrivals)
    options = {"warmup": 0.0, "stop_at_last_arrival": False, **options}
    result = simulate(jobs, policy=policy, procs=procs, seed=seed, **options)
    full = jobs["type"].isin(mix["type"][mix["fraction"] == 1.0]).to_numpy()
    if full_first:
        result = _full_first(result, full, procs)
    score = esp_efficiency(result.submit, result.start, result.run, result.procs, procs, boot, between_boots, full)
    return result, score


def _full_first(result: "SimResult", full: np.ndarray, P: int) -> "SimResult":
    """The simulated result with the start times of the full-configuration
    priority rule, its metrics recomputed the same way."""
    from dataclasses import replace

    from .esp_priority import full_first_schedule
    from .metrics import job_metrics, measured, summarize
    from .saturation import saturation

    s = result.sim_settings
    if s.estimate not in ("user", "exact"):
        raise ParameterError("full-configuration priority uses the run times as estimates: "
                             "{estimate} is user or exact here, not %s" % s.estimate, "estimate")
    start = full_first_schedule(result.submit, result.run, result.procs, P, full, s.policy)
    if s.check:  # the valid-schedule invariants (EASY's head guarantee is about arrival order: not this queue's)
        from . import invariants

        invariants.check(result.job, result.submit, start, result.run, result.procs, P)
    end = start + result.run
    per_job = job_metrics(result.submit, start, result.run, s.tau)
    order = np.lexsort((np.arange(len(start)), result.submit))
    measure = measured(result.submit, end, order, np.zeros(len(start), dtype=bool), s.warmup,
                       s.stop_at_last_arrival)
    metrics = summarize(per_job, measure, start, end, result.procs, result.submit, P)
    metrics["saturation"] = saturation(result.submit, start, end, order, s.backlog)
    settings = {**result.settings, "priority": "full-configuration jobs first, never delayed"}
    return replace(result, settings=settings, metrics=metrics, start=start, end=end, wait=per_job.wait,
                   response=per_job.response, bounded_slowdown=per_job.bounded_slowdown, measured=measure.mask,
                   estimate=result.run.copy())
