"""Commands that evaluate a simulation beyond one run: shake, sweep."""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import List, Optional

import typer

from . import options, progress, text
from .app import app, context
from .present import show, warn


def _save(ctx, frame, summary: str, target: Optional[str], force: bool = False) -> Optional[str]:
    """--save: a Parquet file, or a table of the archive (opened to write only now)."""
    if target is None:
        return None
    from wla.sim.save import save_frame

    if target.endswith(".parquet"):
        return save_frame(frame, summary, target, force=force)
    with ctx.writing() as a:
        return save_frame(frame, summary, target, a)


def _check_save(target: Optional[str], force: bool) -> None:
    """Before the study runs: a --save file it may not replace is refused now, not after."""
    from wla.sim.save import check_target

    check_target(target, force)


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
    check: bool = options.Check,
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
    force: bool = options.Force,
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
    _check_save(save_to, force)
    if (run is None) != (save_workload is None):
        raise UsageError("--run and --save-workload go together: the run whose workload to write, and where")
    rel = None if absolute else relative
    ctx = context(archive)
    with ctx.reading() as a:
        workload = from_archive(a, log, version, query, procs, exclude)
    if save_workload is not None:
        from wla.sim.evaluate.workload_swf import write_workload

        shaking = Shaking.checked(attribute, degree, rel, jobs, seed)
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
                       passes=passes, check=check)
    saved = _save(ctx, result.runs, result.to_json(), save_to, force)
    if plot is not None:
        from wla.sim.evaluate.shake_plot import plot_shake

        plot_shake(result, plot, metric)
    show(result.summary(), as_json, text.shaking)
    warn(result.warnings)
    if check:
        typer.echo(f"all {runs + 1} schedules checked: valid", err=True)
    if saved:
        typer.echo(f"runs saved to {saved}", err=True)
    if plot is not None:
        typer.echo(f"histogram of {metric} drawn to {plot}", err=True)


def _layered(ctx: typer.Context, given: dict, config: dict) -> dict:
    """The command line's values where it was given them, else the file's,
    else the defaults."""
    out = dict(given)
    for key, value in config.items():
        if not _on_command_line(ctx, key):
            out[key] = value
    return out


def _on_command_line(ctx: typer.Context, key: str) -> bool:
    source = ctx.get_parameter_source(key)
    return source is not None and source.name == "COMMANDLINE"


@app.command("sweep")
def sweep_cmd(
    ctx: typer.Context,
    log: Optional[str] = options.SimLog,
    version: Optional[str] = options.Version,
    query: Optional[str] = options.SimQuery,
    grid: List[str] = options.Grid,
    config: Optional[Path] = options.SweepConfig,
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
    runs: int = options.SweepRuns,
    seed: int = options.ShakeSeed,
    workers: Optional[int] = options.ShakeWorkers,
    dask: Optional[str] = options.Dask,
    save_to: Optional[str] = options.SweepSave,
    force: bool = options.Force,
    resume: bool = options.Resume,
    plot: Optional[str] = options.SweepPlot,
    plot_to: Optional[Path] = options.SweepPlotTo,
    metric: str = options.SweepMetric,
    resample: bool = options.Resample,
    weeks: Optional[int] = options.Weeks,
    phase: str = options.Phase,
    rb: List[str] = options.RareBehavior,
    rb_from_flurries: bool = options.RareFromFlurries,
    as_json: bool = options.Json,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Simulate a grid of parameters, each point once as is and N times shaken (or resampled); store and plot
    the curves."""
    from wla.archive import UsageError
    from wla.sim.evaluate.grid import PARAMETERS, parse_grid
    from wla.sim.evaluate.summary import METRIC_NAMES
    from wla.sim.evaluate.sweep import sweep
    from wla.sim.workload import from_archive

    given = dict(log=log, version=version, query=query, policy=policy, estimate=estimate, overrun=overrun,
                 procs=procs, tau=tau, warmup=warmup, stop_at_last_arrival=stop_at_last_arrival, exclude=exclude,
                 load_factor=load_factor, ties=ties, passes=passes, attribute=attribute, degree=degree,
                 relative=relative, absolute=absolute, jobs=jobs, runs=runs, seed=seed)
    grids: list = []
    from_file: dict = {}
    if config is not None:
        from wla.sim.evaluate.sweep_config import read_config

        from_file, grids = read_config(config)
        given = _layered(ctx, given, from_file)
    named: set[str] = set()
    for written in grid:  # the command line's grids replace the file's of the same name
        name, values = parse_grid(written)
        if name in named:
            raise UsageError(f"--grid {name} is given twice; give each parameter's values in one --grid")
        named.add(name)
        grids = [(n, v) for n, v in grids if n != name] + [(name, values)]
    if not grids:
        raise UsageError("give at least one --grid NAME=VALUES (or a --config file with a [grid] table)")
    if given["log"] is None and given["query"] is None:
        raise UsageError("give a log to sweep, or --query SQL")
    if (plot is None) != (plot_to is None):
        raise UsageError("--plot METRIC and -o FILE.png go together")
    if metric not in METRIC_NAMES:
        raise UsageError(f"--metric is one of {', '.join(METRIC_NAMES)}, not {metric!r}")
    if resume and save_to is None:
        raise UsageError("--resume finishes the sweep that --save names: give --save too")
    swept = {PARAMETERS[n][0] for n, _ in grids} | {n for n, _ in grids}
    sim_keys = ("policy", "estimate", "overrun", "tau", "warmup", "stop_at_last_arrival", "load_factor", "ties",
                "passes")
    for key in sim_keys:
        if key in swept and (_on_command_line(ctx, key) or key in from_file):
            raise UsageError(f"--{key.replace('_', '-')} is swept by a --grid; do not also give it")
    sim_options = {k: given[k] for k in sim_keys if k not in swept}
    if "procs" in swept and given["procs"] is not None:
        raise UsageError("--procs is swept by --grid procs; do not also give it")
    g = given
    ctx_archive = context(archive)
    resampling = None
    if not resample and (weeks is not None or rb or rb_from_flurries):
        raise UsageError("--weeks, --rb and --rb-from-flurries shape resampled workloads: give --resample")
    with ctx_archive.reading() as a:
        workload = from_archive(a, g["log"], g["version"], g["query"], g["procs"], g["exclude"])
        if resample:
            resampling = _resampling(a, g, weeks, phase, rb, rb_from_flurries)
    _check_save(save_to, force)
    journal = _journal_path(Path(ctx_archive.path), save_to) if save_to is not None else None
    with progress.display("sweep", "runs", quiet=as_json, rate=True) as shown:
        result = sweep(workload, grids, runs=g["runs"], seed=g["seed"], attribute=g["attribute"],
                       degree=g["degree"], relative=None if g["absolute"] else g["relative"], jobs=g["jobs"],
                       workers=workers, dask=dask, journal=journal, resume=resume, progress=shown,
                       resample=resampling, **sim_options)
    saved = _save(ctx_archive, result.table, result.to_json(), save_to, force)
    if saved:
        Path(journal).unlink(missing_ok=True)  # the table is kept: the runs need no journal
    if plot is not None:
        from wla.sim.evaluate.sweep_plot import plot_sweep

        plot_sweep(result, plot, plot_to)
    show(result.summary(), as_json, partial(text.sweep, metric=metric))
    warn(result.warnings)
    if saved:
        typer.echo(f"{len(result.table):,} runs saved to {saved}", err=True)
    if plot is not None:
        typer.echo(f"{plot} against {grids[0][0]} drawn to {plot_to}", err=True)


def _resampling(a, g: dict, weeks: Optional[int], phase: str, rb: List[str], rb_from_flurries: bool):
    """The log read once for a resampled sweep."""
    from wla.archive import UsageError
    from wla.archive.resolve import resolve
    from wla.sim.evaluate.resample.generate import ResampleSettings
    from wla.sim.evaluate.resample.study import Resampling
    from wla.sim.evaluate.resample.workload import read_source

    from .resampling import triples

    if g["log"] is None or g["exclude"] is not None:
        raise UsageError("--resample resamples a log (LOG or LOG@VERSION), not a --query, and takes no --exclude")
    name = resolve(a, g["log"], g["version"]).name
    src = read_source(a, name, None, triples(rb, a, name), rb_from_flurries)
    return Resampling(src, ResampleSettings(weeks=weeks, phase=phase))


def _journal_path(archive_path: Path, save_to: str) -> Path:
    """Where a sweep's runs are recorded as they finish: beside the Parquet
    file, or beside the archive for a table."""
    if save_to.endswith(".parquet"):
        return Path(save_to + ".journal")
    return archive_path.with_name(f"{archive_path.name}.{save_to}.sweep-journal")


@app.command("compare")
def compare_cmd(
    log: Optional[str] = options.SimLog,
    side_a: List[str] = options.SideA,
    side_b: List[str] = options.SideB,
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
    force: bool = options.Force,
    as_json: bool = options.Json,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Compare two configurations on the same shaken workloads: does the difference survive shaking?"""
    from wla.archive import UsageError
    from wla.sim.evaluate.compare import Configuration, compare, parse_side
    from wla.sim.workload import from_archive

    if log is None and query is None:
        raise UsageError("give a log to compare on, or --query SQL")
    _check_save(save_to, force)
    if not side_a and not side_b:
        raise UsageError("say how A and B differ: --a KEY=VALUE and/or --b KEY=VALUE, e.g. --b policy=conservative")
    common = dict(policy=policy, estimate=estimate, overrun=overrun, tau=tau, warmup=warmup,
                  stop_at_last_arrival=stop_at_last_arrival, load_factor=load_factor, ties=ties, passes=passes)
    ctx = context(archive)
    sides = []
    with ctx.reading() as a:
        for which, settings in (("a", side_a), ("b", side_b)):
            source, own = parse_side(settings, which)
            name = " ".join(settings) if settings else "as given"
            workload = from_archive(a, log, source.get("version"), query, source.get("procs", procs),
                                    source.get("exclude", exclude))
            sides.append(Configuration(name, workload, {**common, **own}))
    with progress.display("compare", "runs", quiet=as_json) as shown:
        result = compare(sides[0], sides[1], runs=runs, seed=seed, attribute=attribute, degree=degree,
                         relative=None if absolute else relative, jobs=jobs, workers=workers, dask=dask,
                         progress=shown)
    saved = _save(ctx, result.runs, result.to_json(), save_to, force)
    show(result.summary(), as_json, text.comparison)
    warn(result.warnings)
    if saved:
        typer.echo(f"runs saved to {saved}", err=True)
