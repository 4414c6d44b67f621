"""Commands that evaluate a simulation beyond one run: shake."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from . import options, progress, text
from .app import app, context
from .present import show


@app.command("shake")
def shake_cmd(
    log: Optional[str] = options.SimLog,
    version: Optional[str] = options.Version,
    query: Optional[str] = options.SimQuery,
    policy: str = options.Policy,
    estimate: str = options.Estimate,
    overrun: str = options.Overrun,
    procs: Optional[int] = options.SimProcs,
    tau: float = options.Tau,
    warmup: float = options.Warmup,
    stop_at_last_arrival: bool = options.StopAtLastArrival,
    exclude: Optional[str] = options.NotMeasured,
    load_factor: float = options.LoadFactor,
    ties: str = options.Ties,
    passes: str = options.Passes,
    attribute: str = options.Attribute,
    degree: float = options.Degree,
    relative: float = options.Relative,
    absolute: bool = options.Absolute,
    jobs: float = options.ShakeJobs,
    runs: int = options.Runs,
    seed: int = options.ShakeSeed,
    workers: Optional[int] = options.ShakeWorkers,
    dask: Optional[str] = options.Dask,
    save_to: Optional[str] = options.ShakeSave,
    plot: Optional[Path] = options.ShakePlot,
    metric: str = options.Metric,
    run: Optional[int] = options.RunIndex,
    save_workload: Optional[Path] = options.SaveWorkload,
    as_json: bool = options.Json,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Simulate a workload and N shaken copies of it; print each metric's original value and spread."""
    from wla.archive import UsageError
    from wla.sim.evaluate.shake import Shaking, shake, shaking_notes
    from wla.sim.workload import from_archive

    if log is None and query is None:
        raise UsageError("give a log to shake, or --query SQL")
    if (run is None) != (save_workload is None):
        raise UsageError("--run and --save-workload go together: the run whose workload to write, and where")
    rel = None if absolute else relative
    ctx = context(archive)
    with ctx.reading() as a:
        workload = from_archive(a, log, version, query, procs, exclude)
    if save_workload is not None:
        from wla.sim.evaluate.workload_swf import write_workload

        shaking = Shaking(attribute, degree, rel, jobs, seed)
        if run < 0:
            raise UsageError(f"--run is 0 (the original) or a shaken run's number, not {run}")
        written = write_workload(shaking.workload(workload, run), save_workload,
                                 shaking_notes(shaking, run, workload.source))
        typer.echo(f"run {run}'s workload written to {written}", err=True)
        return
    with progress.display("shake", "runs", quiet=as_json) as shown:
        result = shake(workload, attribute=attribute, degree=degree, relative=rel, jobs=jobs, runs=runs,
                       seed=seed, workers=workers, dask=dask, progress=shown, policy=policy,
                       estimate=estimate, overrun=overrun, tau=tau, warmup=warmup,
                       stop_at_last_arrival=stop_at_last_arrival, load_factor=load_factor, ties=ties,
                       passes=passes)
    saved = None
    if save_to is not None:
        from wla.sim.save import save_frame

        if save_to.endswith(".parquet"):
            saved = save_frame(result.runs, result.to_json(), save_to)
        else:
            with ctx.writing() as a:
                saved = save_frame(result.runs, result.to_json(), save_to, a)
    if plot is not None:
        from wla.sim.evaluate.shake_plot import plot_shake

        plot_shake(result, plot, metric)
    show(result.summary(), as_json, text.shaking)
    if saved:
        typer.echo(f"runs saved to {saved}", err=True)
    if plot is not None:
        typer.echo(f"histogram of {metric} drawn to {plot}", err=True)
