"""A sweep: a grid of simulation parameters (grid.py), each point simulated
once as is (run 0) and on `runs` shaken workloads (run i shaken by (seed, i),
the same workload at every point that shakes alike, so points compare on
equal terms; a grid of the shaking's own settings, degree, jobs and
attribute, shakes each point its own way). Runs
are done in run order (every point's single run first) on any executor;
each finished run goes to the journal at once, so an interrupted sweep
resumes with `resume=True` and ends with the same table as one never
interrupted."""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from wla.archive.kernel.errors import OptionError, ParameterError, UsageError
from wla.archive.kernel.progress import Progress, tell
from wla.archive.kernel.units import count

from ..settings import SimSettings
from ..simulate import check_settings, simulate
from ..workload import Workload, kept_dependencies
from .executors import executor
from .grid import PARAMETERS, RESAMPLE_PARAMETERS, SHAKE_PARAMETERS, options_at, points
from .journal import Journal
from .resample.study import Resampling, run_seed
from .settings import ShakeSettings, split
from .shake import Shaking
from .summary import METRIC_NAMES, RANGES, RUN_COLUMNS, SATURATED, metric_values, summarize, unsaturated

if TYPE_CHECKING:
    import pandas as pd

WIDER = "more processors than the machine"
# (point, run) simulations of one sweep: its table (14 numbers a row) stays
# under 2 GB, and at SDSC-SP2's pace it is two days of one core's work.
MAX_SIMULATIONS = 10_000_000


def resized(workload: Workload, P: int) -> Workload:
    """The workload on a machine of P processors: jobs wider than it are
    not simulated (and counted so). Jobs the log's own machine could not
    hold were never in the workload."""
    if P == workload.P:
        return workload
    if P < 1:
        raise OptionError("grid", f"procs: a machine has at least 1 processor, not {P}")
    keep = workload.procs <= P
    dropped = int((~keep).sum())
    counts = dict(workload.not_simulated)
    counts[WIDER] = counts.get(WIDER, 0) + dropped
    return replace(workload, job=workload.job[keep], submit=workload.submit[keep], run=workload.run[keep],
                   procs=workload.procs[keep], estimate=workload.estimate[keep], user=workload.user[keep],
                   excluded=workload.excluded[keep], P=int(P), not_simulated=counts,
                   **kept_dependencies(workload, keep))


@dataclass(frozen=True)
class SweepStudy:
    """What every task shares: sent to each worker once."""

    workloads: dict  # machine size -> workload
    default_procs: int
    shaking: Shaking
    sim: SimSettings  # each point edits it
    points: list
    resampling: Resampling | None = None  # runs 1.. resampled instead of shaken

    def shaking_at(self, point: dict) -> Shaking:
        """The shaking of a point's runs: the study's, with the point's degree,
        jobs and attribute."""
        return point_shaking(self.shaking, point)

    def workload(self, point: dict, run: int) -> Workload:
        procs = point.get("procs", self.default_procs)
        if run == 0:
            key: tuple = (procs, run)
        elif self.resampling is None:
            key = (procs, run, self.shaking_at(point))
        else:
            key = (procs, run, point.get("load"), point.get("rb_npw"))
        global _LAST
        if _LAST is not None and _LAST[0] is self and _LAST[1] == key:
            return _LAST[2]  # the points of one run share its workload: make it once per worker
        if run == 0:
            made = self.workloads[procs]  # the log itself
        elif self.resampling is None:
            made = self.shaking_at(point).workload(self.workloads[procs], run)
        else:
            made = resized(self.resampling.workload(run, point.get("load"), point.get("rb_npw")), procs)
        _LAST = (self, key, made)
        return made


_LAST: tuple | None = None


def point_shaking(shaking: Shaking, point: dict) -> Shaking:
    """`shaking` with the degree, jobs and attribute a point sets, checked as
    a study's settings are."""
    if not any(name in point for name in SHAKE_PARAMETERS):
        return shaking
    set_ = {name: point.get(name, getattr(shaking, name)) for name in SHAKE_PARAMETERS}
    try:
        return Shaking.checked(set_["attribute"], set_["degree"], shaking.relative, set_["jobs"], shaking.seed)
    except OptionError as e:
        raise OptionError("grid", f"{e.name}: {e.problem}") from None


def sweep_run(study: SweepStudy, item: tuple[int, int]) -> tuple[float, ...]:
    """The metrics of one (point, run) (a task: runs in any process)."""
    p, run = item
    point = study.points[p]
    result = simulate(study.workload(point, run), study.sim.edit(**options_at(point, study.resampling is not None)))
    return metric_values(result.metrics)


@dataclass(frozen=True)
class SweepResult:
    settings: dict  # the grids, the shaking, simulate()'s options
    source: dict
    table: pd.DataFrame  # one row per (point, run), in that order
    points: list  # per point: its parameters, and per metric the single run and the shaken summaries

    @property
    def warnings(self) -> list[str]:
        from .summary import saturated_note

        saturated = sum(p["saturated"]["runs"] for p in self.points)
        runs = self.settings.get("runs", 0) * len(self.points)
        note = saturated_note(saturated, runs, "resampled runs" if self.settings.get("resampling") else "shaken runs")
        return [note] if note else []

    def summary(self) -> dict:
        return {"source": self.source, "settings": self.settings, "points": self.points}

    def to_json(self) -> str:
        return json.dumps({"source": self.source, "settings": self.settings}, indent=2)


def sweep(workload: Workload, grids: list[tuple[str, list]], settings: ShakeSettings | None = None,
          sim: SimSettings | None = None, *, workers: int | None = None, dask: str | None = None,
          journal: str | Path | None = None, resume: bool = False, progress: Progress | None = None,
          resample: Resampling | None = None, **changes: Any) -> SweepResult:
    """Simulate every point of `grids` (from grid.parse_grid; each point an
    edit of `sim`) once unshaken and `settings.runs` times shaken; keywords
    edit either settings (`runs=3, policy="fcfs"`). With a `journal` file,
    each run is recorded as it finishes and `resume` finishes an interrupted
    sweep; the journal is left for the caller to remove once the table is
    kept. With `resample` (the log `workload` is of, read by
    resample.read_source), runs 1.. are resampled workloads instead of
    shaken ones (study.py: run i's seed), run 0 the log itself, and the
    grids' load and rb_npw set the resampling. sweep_setup.py makes a
    sweep whole from a command line's or a config file's words."""
    settings, sim = split(settings, sim, changes)
    shaking = settings.shaking()
    runs, seed = settings.runs, settings.seed
    shaken_grids = [n for n, _ in grids if n in SHAKE_PARAMETERS]
    if resample is not None and shaken_grids:
        raise ParameterError("{grid} %s shakes the runs; a sweep with {resample} resamples them instead"
                             % ", ".join(shaken_grids), "grid", "resample")
    if resample is not None:
        resample = Resampling(resample.source, replace(resample.settings, seed=seed))
    if runs < 0:
        raise OptionError("runs", f"is at least 0, not {runs}")
    if resume and journal is None:
        raise ParameterError("{resume} finishes the sweep that {journal} records: give {journal} too",
                             "resume", "journal")
    grid_points = points(grids)
    n = len(grid_points)
    if n * (runs + 1) > MAX_SIMULATIONS:
        raise UsageError(f"{count(n, 'point')} x {runs + 1:,} runs each (the single and {runs:,} "
                         f"more) are {n * (runs + 1):,} simulations; a sweep does at most "
                         f"{MAX_SIMULATIONS:,}: fewer points or runs, or several sweeps")
    resampled = resample is not None
    fixed = {k: v for k, v in sim.as_dict().items() if v != SimSettings.default(k)}
    fixed.update({k: v for k, v in settings.as_dict().items()
                  if k in SHAKE_PARAMETERS and v != ShakeSettings.default(k)})
    clash = sorted(n for n, _ in grids if PARAMETERS[n][0] in fixed and not (resampled and n in RESAMPLE_PARAMETERS))
    if clash:
        raise ParameterError(f"{', '.join('{%s}' % PARAMETERS[n][0] for n in clash)} is swept by a grid; do not "
                             "also give it a value of its own", *(PARAMETERS[n][0] for n in clash))
    sizes = sorted({pt.get("procs", workload.P) for pt in grid_points})
    workloads = {P: resized(workload, P) for P in sizes}
    study = SweepStudy(workloads, workload.P, shaking, sim.edit(procs=None, exclude=None), grid_points, resample)
    for pt in grid_points if shaken_grids else ():
        study.shaking_at(pt)  # every point's shaking, refused before any run
    for values in {tuple(sorted(options_at(pt, resampled).items())) for pt in grid_points}:
        check_settings(study.sim, **dict(values))  # every point's settings, before any process starts
    if study.resampling is not None and runs:
        for load, rb_npw in sorted({(pt.get("load"), pt.get("rb_npw")) for pt in grid_points}, key=str):
            study.resampling.workload(1, load, rb_npw)  # settings refused here, not in a worker
    shown = shaking.as_dict()
    for name in shaken_grids:  # set per point: the grid says how
        shown[{"jobs": "jobs_pct"}.get(name, name)] = None
    settings = {"grids": {n: v for n, v in grids}, "points": len(grid_points), "runs": runs,
                "shaking": None if resampled else shown,
                "resampling": resample.as_dict() if resampled else None, "simulate": _fixed(sim, grids)}
    spec = {"source": workload.source, "workload": workload_digest(workload), "settings": settings}
    book = Journal(journal, json.loads(json.dumps(spec, default=str)), resume, points=len(grid_points), runs=runs,
                   width=len(RUN_COLUMNS)) if journal else None
    memory: dict[tuple[int, int], tuple[float, ...]] = {}
    total = len(grid_points) * (runs + 1)
    done_before = len(book.done) if book else 0
    todo = [(p, r) for r in range(runs + 1) for p in range(len(grid_points))
            if not (book and (p, r) in book.done)]
    done = done_before
    tell(progress, done, total, "")
    try:
        with executor(workers, dask) as ex:
            for item, row in ex.results(sweep_run, study, todo):
                if book:
                    book.add(*item, row)
                else:
                    memory[item] = row
                done += 1
                tell(progress, done, total, "")
        rows = book.rows() if book else ((p, r, v) for (p, r), v in memory.items())
        table = _table(rows, grid_points, grids, runs, seed, resampled)
    finally:
        if book:
            book.close()
    return SweepResult(settings=settings, source=dict(workload.source), table=table,
                       points=_summaries(table, grid_points))


def _fixed(sim: SimSettings, grids: list[tuple[str, list]]) -> dict:
    """The settings every point shares, as the sweep's record shows them:
    those not swept; the workload's own (procs, exclude) are its source's,
    and checking schedules or counting the backlog another way only when asked."""
    swept = {PARAMETERS[n][0] for n, _ in grids}
    return {k: v for k, v in sim.as_dict().items() if k not in swept and k not in ("procs", "exclude")
            and not (k in ("check", "backlog") and v == SimSettings.default(k))}


def workload_digest(workload: Workload) -> str:
    """The sha256 of what is simulated: a journal of another workload (the
    log re-ingested differently, another query) is not resumed."""
    import hashlib

    h = hashlib.sha256(str(workload.P).encode())
    for name in ("job", "submit", "run", "procs", "estimate", "user", "excluded"):
        h.update(np.ascontiguousarray(getattr(workload, name)).tobytes())
    return h.hexdigest()


def _table(rows, grid_points: list[dict], grids: list[tuple[str, list]], runs: int, seed: int,
           resampled: bool = False) -> pd.DataFrame:
    import pandas as pd

    n_points = len(grid_points)
    values = np.full((n_points * (runs + 1), len(RUN_COLUMNS)), np.nan)
    seen = np.zeros(n_points * (runs + 1), dtype=bool)
    for p, r, row in rows:
        k = p * (runs + 1) + r
        values[k] = row
        seen[k] = True
    if not seen.all():
        raise UsageError(f"the sweep is missing {int((~seen).sum()):,} runs")
    point = np.repeat(np.arange(n_points), runs + 1)
    run = np.tile(np.arange(runs + 1), n_points)
    frame = pd.DataFrame({"point": point})
    for name, _ in grids:
        frame[name] = [grid_points[p][name] for p in point]
    frame["run"] = run
    frame["seed"] = np.full(len(run), seed, dtype=np.int64)
    frame["shaken" if not resampled else "resampled"] = run > 0
    if resampled:  # `wla resample LOG --seed S` makes run i's workload again
        frame["workload_seed"] = [run_seed(seed, r) if r else -1 for r in run]
    for k, name in enumerate(RUN_COLUMNS):
        frame[name] = values[:, k]
    return frame


def _summaries(table: pd.DataFrame, grid_points: list[dict]) -> list[dict]:
    out = []
    runs_per = len(table) // max(len(grid_points), 1)
    values = table[list(RUN_COLUMNS)].to_numpy()
    for p, point in enumerate(grid_points):
        block = values[p * runs_per:(p + 1) * runs_per]
        kept = unsaturated(block[1:])
        out.append({"point": p, **point,
                    "saturated": {"single": bool(block[0, SATURATED] == 1), "runs": len(block) - 1 - len(kept)},
                    "metrics": {name: summarize(kept[:, k], float(block[0, k]), RANGES[name])
                                for k, name in enumerate(METRIC_NAMES)}})
    return out
