"""Commands of user-level resampling: users (the pools), resample, stats, validate."""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import List, Optional

import typer
from wla.archive.kernel.errors import OptionError
from wla.sim.evaluate.resample.settings import ResampleSettings
from wla.sim.settings import SimSettings

from . import options, progress, text
from .app import app, context
from .present import show, warn
from .settings import takes


@app.command("users")
def users_cmd(
    log: str = options.Log,
    version: Optional[str] = options.Version,
    long_term_weeks: float = options.LongTermWeeks,
    edge_weeks: float = options.EdgeWeeks,
    rb: List[str] = options.RareBehavior,
    rb_from_flurries: bool = options.RareFromFlurries,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    archive: Optional[Path] = options.Archive,
) -> None:
    """The log's users by class (long-term, temporary, discarded, rare-behavior): resampling's pools."""
    from wla.archive.resolve import resolve
    from wla.sim.evaluate.resample.triples import log_triples
    from wla.sim.evaluate.resample.workload import read_source

    with progress.display("users", quiet=as_json), context(archive).reading() as a:
        name = resolve(a, log, version).name
        src = read_source(a, name, None, log_triples(a, name, rb), rb_from_flurries, long_term_weeks, edge_weeks)
    show(src.pools.summary(), as_json, partial(text.users, log=src.name), wide=wide)


@app.command("resample")
@takes(resample=ResampleSettings)
def resample_cmd(
    log: str = options.Log,
    version: Optional[str] = options.Version,
    resample: ResampleSettings = ResampleSettings(),
    rb: List[str] = options.RareBehavior,
    rb_from_flurries: bool = options.RareFromFlurries,
    name: Optional[str] = options.ResampleName,
    mix: List[str] = options.ResampleMix,
    procs: Optional[int] = options.MixProcs,
    long_term_weeks: float = options.LongTermWeeks,
    edge_weeks: float = options.EdgeWeeks,
    as_json: bool = options.Json,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Generate a workload from the log's users (definitions: Resampling) and store it as a log."""
    from wla.archive.analysis.diagnosis.warnings import log_warnings
    from wla.archive.resolve import resolve
    from wla.sim.evaluate.resample.store import resample_log
    from wla.sim.evaluate.resample.triples import log_triples

    settings = resample
    with progress.display("resample", quiet=as_json), context(archive).writing() as a:
        source = resolve(a, log, version).name
        warnings = log_warnings(a, source)
        stored, r = resample_log(a, source, name=name, settings=settings, rb=log_triples(a, source, rb),
                                 rb_from_flurries=rb_from_flurries, long_term_weeks=long_term_weeks,
                                 edge_weeks=edge_weeks, mix=mix, procs=procs)
    data = {"name": stored, "source": r.source, "jobs": len(r), "rare_behavior_jobs": int(r.rare.sum()),
            "users": int(r.jobs["user_id"].nunique()), **r.parameters, "warnings": warnings}
    show(data, as_json, text.resampled)
    warn(warnings)


@app.command("stats")
def stats_cmd(
    log: str = options.Log,
    version: Optional[str] = options.Version,
    start: Optional[str] = options.StatsFrom,
    end: Optional[str] = options.StatsTo,
    years: Optional[str] = options.StatsYears,
    plot_dir: Optional[Path] = options.StatsPlot,
    match: str = options.StackMatch,
    hurst_fit: str = options.HurstFit,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    archive: Optional[Path] = options.Archive,
) -> None:
    """The statistics that validate a workload: locality, Hurst, per-user distributions, cycles, stability;
    of the whole workload or of the jobs submitted in a window (--from/--to, --years)."""
    from wla.archive.analysis.diagnosis.warnings import log_warnings
    from wla.sim.evaluate.resample.workload import read_source
    from wla.sim.evaluate.validate import log_statistics

    with progress.display("stats", quiet=as_json):
        with context(archive).reading() as a:
            src = read_source(a, log, version)
            warnings = log_warnings(a, src.name)
        data = {**log_statistics(src, match, hurst_fit, start=start, end=end, years=years), "warnings": warnings}
        drawn = []
        if plot_dir is not None:
            from wla.archive.analysis.stats.plot import write_plots

            named = src.name if "window" not in data else f"{src.name}-{_tag(data['window'])}"
            drawn = write_plots(data["statistics"], plot_dir, named)
    show(data, as_json, text.statistics, wide=wide)
    warn(warnings)
    for path in drawn:
        typer.echo(f"drew {path}", err=True)


def _tag(window: dict) -> str:
    """A window in a file name: `year-3`, `years-5-to-6`, `from-1998-05-01`."""
    import re

    return re.sub(r"[^0-9A-Za-z]+", "-", window["label"]).strip("-")


@app.command("validate")
@takes(resample=(ResampleSettings, {n: None for n in ("long_term", "temporary", "arrival_rate", "rb_npw", "seed")}),
       sim=(SimSettings, {n: None for n in SimSettings.names() if n not in ("policy", "feedback")}))
def validate_cmd(
    log: str = options.Log,
    version: Optional[str] = options.Version,
    runs: int = options.ValidateRuns,
    seed: int = options.ValidateSeed,
    resample: ResampleSettings = ResampleSettings(),
    rb: List[str] = options.RareBehavior,
    rb_from_flurries: bool = options.RareFromFlurries,
    mix: List[str] = options.ResampleMix,
    procs: Optional[int] = options.MixProcs,
    sim: SimSettings = SimSettings(),
    workers: Optional[int] = options.ShakeWorkers,
    dask: Optional[str] = options.Dask,
    plot_dir: Optional[Path] = options.ValidatePlot,
    overlay: Optional[str] = options.OverlayVary,
    overlay_runs: int = options.OverlayRuns,
    normalize_users: bool = options.NormalizeUsers,
    save: Optional[str] = options.ValidateSave,
    force: bool = options.Force,
    match: str = options.StackMatch,
    hurst_fit: str = options.HurstFit,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Resample the log N times and set each workload's statistics and simulated metrics against the log's."""
    from wla.archive.analysis.diagnosis.warnings import log_warnings
    from wla.archive.resolve import resolve
    from wla.sim.evaluate.resample.store import mixed_source
    from wla.sim.evaluate.resample.triples import log_triples
    from wla.sim.evaluate.validate import validate

    from .evaluation import _check_save, _save

    _check_save(save, force)
    if overlay is not None and plot_dir is None:
        raise OptionError("overlay", "is drawn into --plot-dir: give it too")
    from wla.sim.evaluate.overlay import parse_vary

    vary = None if overlay is None else parse_vary(overlay)  # refused before any work
    ctx = context(archive)
    with ctx.reading() as a:
        name = resolve(a, log, version).name
        warnings = log_warnings(a, name)
        src = mixed_source(a, name, None, log_triples(a, name, rb), rb_from_flurries, mix=mix, procs=procs)
    ov = None
    if plot_dir is not None:  # first: a setting it refuses is refused before the simulations
        from wla.sim.evaluate.overlay import overlay as overlay_of

        with progress.display("overlay", "workloads", quiet=as_json, rate=True) as shown:
            ov = overlay_of(src, runs=overlay_runs, seed=seed, settings=resample, vary=vary, progress=shown)
    with progress.display("validate", "workloads", quiet=as_json, rate=True) as shown:
        result = validate(src, runs=runs, seed=seed, settings=resample, workers=workers, dask=dask,
                          progress=shown, match=match, hurst_fit=hurst_fit, sim=sim)
    saved = _save(ctx, result.runs, result.to_json(), save, force)
    drawn, overlaid = [], {}
    if ov is not None:
        from wla.sim.evaluate.overlay_plot import plot_overlay
        from wla.sim.evaluate.validate_plot import plot_validation

        drawn = plot_validation(result, plot_dir) + plot_overlay(ov, plot_dir, normalized=normalize_users)
        overlaid = {"overlay": ov.summary()["groups"]}
    warnings += result.warnings
    show({**result.summary(), **overlaid, "warnings": warnings}, as_json, text.validation, wide=wide)
    warn(warnings)
    if saved:
        typer.echo(f"{len(result.runs):,} rows saved to {saved}", err=True)
    for path in drawn:
        typer.echo(f"drew {path}", err=True)
