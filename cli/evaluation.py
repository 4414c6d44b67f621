"""Commands that evaluate a simulation beyond one run: shake, sweep, compare."""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import List, Optional

import typer
from wla.archive.kernel.figure_files import figure_format
from wla.sim.evaluate.settings import ShakeSettings
from wla.sim.settings import SimSettings

from . import options, progress, text
from .app import app, context
from .present import show, warn
from .settings import option, takes


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


SHAKEN_SIM = {"seed": None, "backlog": None}  # the study's seed seeds the simulation too


@app.command("shake")
@takes(sim=(SimSettings, SHAKEN_SIM), shake=ShakeSettings)
def shake_cmd(
    log: Optional[str] = options.SimLog,
    version: Optional[str] = options.Version,
    query: Optional[str] = options.SimQuery,
    sim: SimSettings = SimSettings(),
    shake: ShakeSettings = ShakeSettings(),
    absolute: bool = options.Absolute,
    workers: Optional[int] = options.ShakeWorkers,
    dask: Optional[str] = options.Dask,
    save: Optional[str] = options.ShakeSave,
    force: bool = options.Force,
    plot: Optional[Path] = options.ShakePlot,
    metric: str = options.Metric,
    run: Optional[int] = options.RunIndex,
    save_workload: Optional[Path] = options.SaveWorkload,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Simulate a workload and N shaken copies of it; print each metric's original value and spread."""
    from wla.archive import UsageError
    from wla.sim.evaluate.shake import shake as shake_workload
    from wla.sim.evaluate.shake import shaking_notes
    from wla.sim.evaluate.summary import check_metric
    from wla.sim.workload import from_archive

    if log is None and query is None:
        raise UsageError("give a log to shake, or --query SQL")
    _check_save(save, force)
    if plot is not None:
        figure_format(plot, "plot")  # before the runs: the format follows the extension
        check_metric(metric)
    if (run is None) != (save_workload is None):
        raise UsageError("--run and --save-workload go together: the run whose workload to write, and where")
    if absolute:
        shake = shake.edit(relative=None)
    ctx = context(archive)
    with ctx.reading() as a:
        workload = from_archive(a, log, version, query, sim.procs, sim.exclude)
    if save_workload is not None:
        from wla.sim.evaluate.workload_swf import write_workload

        shaking = shake.shaking()
        written = write_workload(shaking.workload(workload, run), save_workload,
                                 shaking_notes(shaking, run, workload.source))
        typer.echo(f"run {run}'s workload written to {written}", err=True)
        return
    with progress.display("shake", "runs", quiet=as_json) as shown:
        result = shake_workload(workload, shake, sim, workers=workers, dask=dask, progress=shown)
    saved = _save(ctx, result.runs, result.to_json(), save, force)
    if plot is not None:
        from wla.sim.evaluate.shake_plot import plot_shake

        plot_shake(result, plot, metric)
    show(result.summary(), as_json, text.shaking, wide=wide)
    warn(result.warnings)
    if sim.check:
        typer.echo(f"all {shake.runs + 1} schedules checked: valid", err=True)
    if saved:
        typer.echo(f"runs saved to {saved}", err=True)
    if plot is not None:
        typer.echo(f"histogram of {metric} drawn to {plot}", err=True)


def _given(ctx: typer.Context, **values: object) -> dict:
    """The values given on the command line (the library layers them over a config file's)."""
    out = {}
    for key, value in values.items():
        source = ctx.get_parameter_source(key)
        if source is not None and source.name == "COMMANDLINE":
            out[key] = value
    return out


SWEPT_SIM = {"check": None, "backlog": None, "seed": None}  # a sweep checks no schedule; its seed is the study's


@app.command("sweep")
@takes(sim=(SimSettings, SWEPT_SIM),
       shake=(ShakeSettings, {"runs": option(ShakeSettings, "runs", help="Shaken runs per point (each point is "
                                                                         "also simulated unshaken)")}))
def sweep_cmd(
    ctx: typer.Context,
    log: Optional[str] = options.SimLog,
    version: Optional[str] = options.Version,
    query: Optional[str] = options.SimQuery,
    grid: List[str] = options.Grid,
    config: Optional[Path] = options.SweepConfig,
    sim: SimSettings = SimSettings(),
    shake: ShakeSettings = ShakeSettings(),
    absolute: bool = options.Absolute,
    workers: Optional[int] = options.ShakeWorkers,
    dask: Optional[str] = options.Dask,
    save: Optional[str] = options.SweepSave,
    force: bool = options.Force,
    resume: bool = options.Resume,
    plot: Optional[Path] = options.SweepPlot,
    histograms: Optional[Path] = options.SweepHistograms,
    plot_runs: Optional[Path] = options.SweepPlotRuns,
    metric: List[str] = options.SweepMetric,
    resample: bool = options.Resample,
    weeks: Optional[int] = options.Weeks,
    phase: str = options.Phase,
    rb: List[str] = options.RareBehavior,
    rb_from_flurries: bool = options.RareFromFlurries,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Simulate a grid of parameters, each point once as is and N times shaken (or resampled); store and plot
    the curves."""
    from wla.archive import UsageError
    from wla.sim.evaluate.grid import is_settings_sweep
    from wla.sim.evaluate.summary import METRIC_NAMES, check_metric
    from wla.sim.evaluate.sweep import sweep
    from wla.sim.evaluate.sweep_setup import journal_for, resampling_for, sweep_setup
    from wla.sim.workload import from_archive

    given = _given(ctx, log=log, version=version, query=query, absolute=absolute,
                   **shake.as_dict(), **{k: v for k, v in sim.as_dict().items() if k not in SWEPT_SIM})
    setup = sweep_setup(grid, config, **given)
    settings_swept = is_settings_sweep([n for n, _ in setup.grids])
    if plot is not None and str(plot) in METRIC_NAMES:  # the spelling before: --plot METRIC -o FILE
        raise UsageError(f"--plot takes the figure's file: --plot FILE.png --metric {plot}")
    if plot is not None:
        figure_format(plot, "plot")  # before the runs: the format follows the extension
    if histograms is not None:
        figure_format(histograms, "histograms")
        if setup.shake.runs < 1:
            raise UsageError("--histograms draws the distribution of each point's runs: give --runs 1 or more")
    if plot_runs is not None:
        from wla.sim.evaluate.sweep_runs_plot import panels

        figure_format(plot_runs, "plot_runs")
        panels(setup.grids, len(metric))
        if setup.shake.runs < 1:
            raise UsageError("--plot-runs draws the shaken runs: give --runs 1 or more")
    for name in metric:
        check_metric(name, parameter="shown_metric")
    ctx_archive = context(archive)
    journal = journal_for(ctx_archive.path, save, resume)
    with ctx_archive.reading() as a:
        workload = from_archive(a, setup.log, setup.version, setup.query, setup.sim.procs, setup.sim.exclude)
        resampling = resampling_for(a, setup, resample, weeks, phase, rb, rb_from_flurries)
    _check_save(save, force)
    with progress.display("sweep", "runs", quiet=as_json, rate=True) as shown:
        result = sweep(workload, setup.grids, setup.shake, setup.sim, workers=workers, dask=dask, journal=journal,
                       resume=resume, progress=shown, resample=resampling)
    saved = _save(ctx_archive, result.table, result.to_json(), save, force)
    if saved:
        Path(journal).unlink(missing_ok=True)  # the table is kept: the runs need no journal
    if plot is not None:
        from wla.sim.evaluate.sweep_plot import plot_sweep

        plot_sweep(result, metric if settings_swept else metric[0], plot)
    if plot_runs is not None:
        from wla.sim.evaluate.sweep_runs_plot import plot_runs as draw_runs

        draw_runs(result, metric, plot_runs)
    if histograms is not None:
        from wla.sim.evaluate.sweep_histograms import plot_histograms

        plot_histograms(result, metric[0], histograms)
    show(result.summary(), as_json, partial(text.sweep, metric=metric), wide=wide)
    warn(result.warnings)
    if saved:
        typer.echo(f"{len(result.table):,} runs saved to {saved}", err=True)
    if plot is not None:
        drawn = (f"span, distance and concentration of {', '.join(metric)} by degree and jobs" if settings_swept
                 else f"{metric[0]} against {setup.grids[0][0]}")
        typer.echo(f"{drawn} drawn to {plot}", err=True)
    if plot_runs is not None:
        typer.echo(f"each point's runs of {', '.join(metric)} against its single run drawn to {plot_runs}",
                   err=True)
    if histograms is not None:
        typer.echo(f"each point's runs drawn to {histograms}", err=True)


@app.command("compare")
@takes(sim=(SimSettings, {"seed": None, "check": None, "backlog": None}), shake=ShakeSettings)
def compare_cmd(
    ctx: typer.Context,
    log: Optional[str] = options.SimLog,
    side_a: List[str] = options.SideA,
    side_b: List[str] = options.SideB,
    degrees: Optional[str] = options.Degrees,
    metric: str = options.DegreesMetric,
    query: Optional[str] = options.SimQuery,
    sim: SimSettings = SimSettings(),
    shake: ShakeSettings = ShakeSettings(),
    absolute: bool = options.Absolute,
    workers: Optional[int] = options.ShakeWorkers,
    dask: Optional[str] = options.Dask,
    save: Optional[str] = options.ShakeSave,
    force: bool = options.Force,
    resample: bool = options.CompareResample,
    load: float = options.ResampleLoad,
    rb_npw: float = options.RbNpw,
    weeks: Optional[int] = options.Weeks,
    phase: str = options.Phase,
    rb: List[str] = options.RareBehavior,
    rb_from_flurries: bool = options.RareFromFlurries,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Compare two configurations on the same shaken (or resampled) workloads: does the difference survive?"""
    from wla.archive import UsageError
    from wla.sim.evaluate.compare import Configuration, compare, parse_side
    from wla.sim.evaluate.compare_degrees import compare_degrees, parse_degrees
    from wla.sim.workload import from_archive

    if log is None and query is None:
        raise UsageError("give a log to compare on, or --query SQL")
    _resampled_compare_words(ctx, resample, degrees, query, absolute, side_a + side_b, sim.exclude)
    if degrees is not None:
        parse_degrees(degrees)  # before any workload is read
    _check_save(save, force)
    if not side_a and not side_b:
        raise UsageError("say how A and B differ: --a KEY=VALUE and/or --b KEY=VALUE, e.g. --b policy=conservative")
    if absolute:
        shake = shake.edit(relative=None)
    ctx = context(archive)
    sides = []
    with ctx.reading() as a:
        for which, written in (("a", side_a), ("b", side_b)):
            source, own = parse_side(written, which)
            name = " ".join(written) if written else "as given"
            workload = from_archive(a, log, source.get("version"), query, source.get("procs", sim.procs),
                                    source.get("exclude", sim.exclude))
            sides.append(Configuration(name, workload, sim.edit(**own, procs=workload.P,
                                                                exclude=workload.source.get("exclude"))))
        if resample:
            resampling = _compare_resampling(a, log, load, rb_npw, weeks, phase, rb, rb_from_flurries)
    with progress.display("compare", "runs", quiet=as_json) as shown:
        if resample:
            from wla.sim.evaluate.compare_resampled import compare_resampled

            result = compare_resampled(sides[0], sides[1], resampling, runs=shake.runs, seed=shake.seed,
                                       workers=workers, dask=dask, progress=shown)
        elif degrees is None:
            result = compare(sides[0], sides[1], shake, workers=workers, dask=dask, progress=shown)
        else:
            result = compare_degrees(sides[0], sides[1], parse_degrees(degrees), shake, metric=metric,
                                     workers=workers, dask=dask, progress=shown)
    saved = _save(ctx, result.runs, result.to_json(), save, force)
    show(result.summary(), as_json, text.comparison if degrees is None else text.comparison_degrees, wide=wide)
    warn(result.warnings)
    if saved:
        typer.echo(f"runs saved to {saved}", err=True)


# What a resampled comparison cannot take: shaking's settings (the runs are
# resampled, not shaken), a query (resampling reads a log's users) and side
# keys that would make A's workloads other than B's. --load is the
# resampling's (users multiplied, as `wla resample --load` and a resampled
# sweep's --grid load); --load-factor stays simulate()'s, for both sides.
SHAKING_ONLY = ("attribute", "degree", "relative", "jobs")
RESAMPLING_ONLY = ("load", "rb_npw", "weeks", "phase", "rb", "rb_from_flurries")
NOT_PAIRED = ("version", "exclude")


def _resampled_compare_words(ctx: typer.Context, resample: bool, degrees: Optional[str], query: Optional[str],
                             absolute: bool, written: List[str], exclude: Optional[str]) -> None:
    """Refuse, before anything is read, the options a comparison of its kind does not take."""
    from wla.archive import UsageError

    given = _given(ctx, **{k: None for k in SHAKING_ONLY + RESAMPLING_ONLY})
    if not resample:
        if given.keys() & set(RESAMPLING_ONLY):
            raise UsageError(f"{', '.join('--' + k.replace('_', '-') for k in RESAMPLING_ONLY if k in given)} "
                             "shape resampled workloads: give --resample")
        return
    shaking = [f"--{k}" for k in SHAKING_ONLY if k in given] + (["--absolute"] if absolute else []) + \
        (["--degrees"] if degrees is not None else [])
    if shaking:
        raise UsageError(f"--resample compares on resampled workloads, not shaken ones: {', '.join(shaking)} "
                         "shake; leave them out")
    if query is not None:
        raise UsageError("--resample resamples a log's users: give LOG (or LOG@VERSION), not --query")
    if exclude is not None:  # its predicate names the log's jobs, not a resampled workload's
        raise UsageError("--resample takes no --exclude: a resampled workload's jobs are not the log's")
    keys = sorted({w.partition("=")[0].strip() for w in written} & set(NOT_PAIRED))
    if keys:
        raise UsageError(f"with --resample both sides run the same workloads: {', '.join(k + '=' for k in keys)} "
                         "would make A's other than B's (give LOG@VERSION for a version of both)")


def _compare_resampling(a, log: str, load: float, rb_npw: float, weeks: Optional[int], phase: str,
                        rb: List[str], rb_from_flurries: bool):
    """The log read once and the settings every resampled workload of the comparison takes."""
    from wla.archive.resolve import resolve
    from wla.sim.evaluate.resample.settings import ResampleSettings
    from wla.sim.evaluate.resample.study import Resampling
    from wla.sim.evaluate.resample.triples import log_triples
    from wla.sim.evaluate.resample.workload import read_source

    name = resolve(a, log, None).name
    src = read_source(a, name, None, log_triples(a, name, rb), rb_from_flurries)
    return Resampling(src, ResampleSettings(weeks=weeks, load=load, rb_npw=rb_npw, phase=phase).checked())
