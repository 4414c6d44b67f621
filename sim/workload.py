"""What the simulator replays: a workload taken from a log, a version, a
query or a DataFrame, with the jobs it cannot simulate counted by reason.

Defaults of docs/pages/definitions/simulation.md, each recorded in the result:
- processors: wla.archive.kernel.processors (allocated when positive, else requested);
- estimate: requested time (field 9) when positive, else the run time;
- not simulated: unknown or zero run time, unknown processors, unknown or
  negative submit time, more processors than the machine (first reason that
  applies, in that order);
- P: the log's MaxProcs, else MaxNodes (the catalog's machine size).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from wla.archive.kernel.clock import LogClock
from wla.archive.kernel.errors import OptionError, ParameterError, UsageError
from wla.archive.kernel.processors import processors
from wla.archive.kernel.ranges import MAX_PROCESSORS, whole
from wla.archive.resolve import resolve
from wla.archive.store.catalog import log_facts
from wla.archive.store.file import Archive, one_line
from wla.archive.store.select import log_arrays, log_query

if TYPE_CHECKING:
    import pandas as pd

REASONS = (
    "unknown or zero run time",
    "unknown processors",
    "unknown or negative submit time",
    "more processors than the machine",
)
ESTIMATE_RULE = "requested time (field 9) when positive, else the run time"


@dataclass(frozen=True)
class Workload:
    """The simulated jobs in log order, and what was left out and why."""

    job: np.ndarray
    submit: np.ndarray
    run: np.ndarray
    procs: np.ndarray
    estimate: np.ndarray  # the user's: requested time, else run time
    user: np.ndarray  # -1 when unknown
    excluded: np.ndarray  # simulated, not measured
    P: int
    total: int
    not_simulated: dict[str, int]
    source: dict = field(default_factory=dict)
    prev: np.ndarray | None = None  # each job's preceding job (field 17) as an index here, -1 for none
    think: np.ndarray | None = None  # its think time (field 18), 0 when unknown
    dependencies: dict = field(default_factory=dict)  # jobs with a preceding job, and those whose is not here

    def __len__(self) -> int:
        return len(self.job)


class Columns:
    """A table as DuckDB's numpy columns, read like a DataFrame's (`columns`,
    `frame[name]`, `len`): a log read from the archive needs no pandas."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.arrays = arrays
        self.columns = list(arrays)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]

    def __len__(self) -> int:
        return len(next(iter(self.arrays.values()))) if self.arrays else 0


def _numbers(column: Any) -> np.ndarray | None:
    """A numpy column of numbers as doubles, NaN where NULL; None for
    anything else (a DataFrame's column, text), which pandas converts."""
    if not isinstance(column, np.ndarray) or column.dtype.kind not in "iuf":
        return None
    if isinstance(column, np.ma.MaskedArray):
        return column.astype(np.float64).filled(np.nan)
    return column.astype(np.float64)


def _column(frame: pd.DataFrame | Columns, name: str) -> np.ndarray:
    """A column as doubles, NaN where unknown (or everywhere, if absent)."""
    if name not in frame.columns:
        return np.full(len(frame), np.nan)
    numbers = _numbers(frame[name])
    if numbers is not None:
        return numbers
    import pandas as pd

    return pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def _ids(frame: pd.DataFrame | Columns, name: str, default: np.ndarray) -> np.ndarray:
    """An identifier column as int64, exactly (a double holds only 53 bits),
    -1 where unknown; `default` when the column is absent."""
    if name not in frame.columns:
        return default
    column = frame[name]
    if isinstance(column, np.ndarray) and column.dtype.kind == "i" and not isinstance(column, np.ma.MaskedArray):
        return column.astype(np.int64)
    import pandas as pd

    if pd.api.types.is_integer_dtype(column.dtype) and not column.hasnans:
        values = column.to_numpy(dtype=np.int64)
    else:
        floats = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        fits = np.abs(floats) < 2.0**63
        values = np.where(fits, floats, -1).astype(np.int64)
    return values


DEPENDENCY_LOST = "preceding job not simulated"


def dependencies(job: np.ndarray, submit: np.ndarray, prev_job: np.ndarray,
                 think: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict]:
    """Each job's preceding job (field 17, a job number) as an index among
    these jobs, -1 for none, and its think time (field 18; 0 when unknown).
    A number held by several jobs names the last of them to arrive before
    this one; a preceding job not among these jobs, or arriving after this
    one (by submit time, then place), counts as none: so no job waits for
    itself, even through others."""
    n = len(job)
    pred = np.full(n, -1, np.int64)
    wants = np.flatnonzero(prev_job >= 0)
    if len(wants):
        rank = np.empty(n, np.int64)
        rank[np.lexsort((np.arange(n), submit))] = np.arange(n)
        numbers, dense = np.unique(job, return_inverse=True)
        key = dense.astype(np.int64) * n + rank
        by = np.argsort(key)
        keys = key[by]
        at = np.searchsorted(numbers, prev_job[wants])
        found = (at < len(numbers)) & (numbers[np.minimum(at, len(numbers) - 1)] == prev_job[wants])
        target = np.minimum(at, len(numbers) - 1) * n + rank[wants]
        pos = np.searchsorted(keys, target) - 1  # the last with that number arriving before
        ok = found & (pos >= 0) & (keys[np.maximum(pos, 0)] // n == np.minimum(at, len(numbers) - 1))
        pred[wants[ok]] = by[pos[ok]]
    gap = np.where(np.isnan(think) | (think < 0), 0.0, think)
    counts = {"with a preceding job": int((pred >= 0).sum()), DEPENDENCY_LOST: int(len(wants) - (pred >= 0).sum())}
    return pred, np.where(pred >= 0, gap, 0.0), counts


def kept_dependencies(w: Workload, keep: np.ndarray) -> dict:
    """`prev`, `think` and `dependencies` of the workload's jobs that `keep`
    marks: a preceding job left out counts as none."""
    if w.prev is None:
        return {}
    index = np.full(len(w) + 1, -1, np.int64)  # old index -> new, -1 (at [-1]) for none
    index[np.flatnonzero(keep)] = np.arange(int(keep.sum()))
    pred = index[w.prev[keep]]
    lost = int(((w.prev[keep] >= 0) & (pred < 0)).sum())
    counts = dict(w.dependencies)
    counts["with a preceding job"] = int((pred >= 0).sum())
    counts[DEPENDENCY_LOST] = counts.get(DEPENDENCY_LOST, 0) + lost
    return {"prev": pred, "think": np.where(pred >= 0, w.think[keep], 0.0), "dependencies": counts}


def _known(values: np.ndarray) -> np.ndarray:
    """Positive values, NaN elsewhere (SWF writes -1 for unknown)."""
    return np.where(values > 0, values, np.nan)


def exclusion_mask(frame: pd.DataFrame, exclude: str | None, clock: LogClock = LogClock()) -> np.ndarray:
    """The jobs a predicate picks, evaluated by DuckDB over the frame."""
    if exclude is None:
        return np.zeros(len(frame), dtype=bool)
    import duckdb
    from sqlglot import exp
    from wla.archive.kernel.statements import run
    from wla.archive.store.predicate import predicate_condition

    cond = predicate_condition(exclude, clock)
    con = duckdb.connect()
    try:
        con.register("workload", frame)
        query = exp.select(exp.func("coalesce", cond, exp.false()).as_("x")).from_("workload")
        picked = run(con, query).fetchnumpy()["x"]
    except duckdb.Error as e:
        raise OptionError("exclude", f"{exclude!r} does not apply to this workload: {one_line(e)}") from None
    finally:
        con.close()
    return np.asarray(picked, dtype=bool)


def from_frame(frame: pd.DataFrame | Columns, procs: int | None = None, exclude: str | None = None,
               clock: LogClock = LogClock(), source: dict | None = None) -> Workload:
    """A workload from columns named as in the archive (submit, run, procs
    and/or req_procs, req_time, user_id, job); an `excluded` column, if
    present, marks jobs to simulate but not measure."""
    columns = set(frame.columns)
    need = [c for c in ("submit", "run") if c not in columns]
    need += [] if columns & {"procs", "req_procs"} else ["procs or req_procs"]
    if need:
        raise UsageError(f"the workload lacks {', '.join(need)} (columns: {', '.join(map(str, frame.columns))})")
    if procs is None:
        raise ParameterError("the machine size is unknown: give the number of processors ({procs})", "procs")
    procs = whole("procs", procs, 1, MAX_PROCESSORS)  # given, or the log's machine size
    n = len(frame)
    submit = _column(frame, "submit")
    run = _known(_column(frame, "run"))
    width = processors(_column(frame, "procs"), _column(frame, "req_procs"))
    req_time = _known(_column(frame, "req_time"))
    estimate = np.where(np.isnan(req_time), run, req_time)
    users = next((c for c in ("user_id", "user") if c in frame.columns), None)
    user = _ids(frame, users or "user_id", np.full(n, -1, dtype=np.int64))
    user = np.where(user < 0, -1, user)
    job = _ids(frame, "job", np.arange(1, n + 1, dtype=np.int64))
    excluded = exclusion_mask(frame, exclude, clock)
    if "excluded" in frame.columns:
        marked = frame["excluded"]
        excluded = excluded | (marked if isinstance(marked, np.ndarray) else marked.fillna(False)).astype(bool)

    reason = np.full(n, -1)
    checks = (np.isnan(run), np.isnan(width), np.isnan(submit) | (submit < 0), width > procs)
    for i, bad in enumerate(checks):
        reason[(reason == -1) & bad] = i
    keep = reason == -1
    prev_job = _ids(frame, "prev_job", np.full(n, -1, dtype=np.int64))
    pred, think, linked = dependencies(job[keep], submit[keep], prev_job[keep], _column(frame, "think")[keep])
    return Workload(
        job=job[keep],
        submit=submit[keep],
        run=run[keep],
        procs=width[keep].astype(np.int64),
        estimate=estimate[keep],
        user=user[keep],
        excluded=excluded[keep],
        P=int(procs),
        total=n,
        not_simulated={r: int((reason == i).sum()) for i, r in enumerate(REASONS)},
        source=dict(source or {}),
        prev=pred,
        think=think,
        dependencies=linked,
    )


def from_archive(archive: Archive, log: str | None = None, version: str | None = None,
                 query: str | None = None, procs: int | None = None,
                 exclude: str | None = None) -> Workload:
    """A log, a version of it (LOG@VERSION, or LOG and `version`, which may be
    'original'; see wla.archive.resolve) or the rows of a read-only query.
    A query needs `procs` unless its rows hold a `log` column naming one log,
    whose machine size is then used."""
    if (log is None) == (query is None):
        raise ParameterError("simulate a log (optionally {version}) or a {query}, not both", "version", "query")
    if query is not None:
        if version is not None:
            raise ParameterError("{version} applies to a log, not to a {query}", "version", "query")
        frame = archive.sql(query)
        name = None
        if "log" in frame.columns and frame["log"].nunique() == 1:
            name = str(frame["log"].iloc[0])
        facts = log_facts(archive, name) if name else {}
        source = {"query": query}
    else:
        name = resolve(archive, log, version).name
        facts = log_facts(archive, name)
        # all 18 fields, for --exclude (which DuckDB evaluates over a DataFrame)
        frame = archive.df(log_query(archive, name)) if exclude is not None else Columns(log_arrays(archive, name))
        source = {"log": name}
        rare = _rare_behavior(archive, name, frame)
        if rare is not None:  # a resampled log: its rare-behavior jobs are simulated, not measured
            frame = frame.assign(excluded=rare) if exclude is not None else Columns({**frame.arrays, "excluded": rare})
            source["rare_behavior_jobs"] = int(rare.sum())
    machine = procs if procs is not None else facts.get("machine_size")
    clock = LogClock(facts.get("unix_start_time"), facts.get("tz"))
    source["procs_from"] = "given" if procs is not None else (
        facts.get("machine_size_source") or "unknown")
    source["exclude"] = exclude
    return from_frame(frame, machine, exclude, clock, source)


def _rare_behavior(archive: Archive, name: str, frame: pd.DataFrame | Columns) -> np.ndarray | None:
    """The rare-behavior flag of each job of a resampled log, None for any other log."""
    [(kind,)] = archive.con.execute("SELECT kind FROM logs WHERE name = ?", [name]).fetchall()
    if kind != "resampled":
        return None
    flags = archive.con.execute(
        "SELECT j.job, r.rare FROM jobs AS j JOIN resampled_jobs AS r USING (log_id, job) "
        "WHERE j.log_id = ? ORDER BY j.line_no", [archive.log_id(name)]).fetchnumpy()
    rare = np.asarray(flags["rare"], dtype=bool)
    if len(rare) != len(frame) or not np.array_equal(np.asarray(flags["job"]), np.asarray(frame["job"])):
        raise UsageError(f"{name}: the archive's resampled_jobs does not match the log's jobs")
    return rare
