"""Commands that look for what cleaning might fix: quality, flurries, load, capacity."""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import List, Optional

import typer
from wla.archive.kernel.figure_files import figure_format

from . import options, progress, text
from .app import app, context
from .present import show


def _jobs(log: str, version: Optional[str], where: Optional[str], exclude: Optional[str],
          archive: Optional[Path]):
    """The jobs, the log's facts, and the clock arguments analyses take; the
    archive is closed again before anything is computed."""
    from wla.archive.analysis.jobs import log_jobs
    from wla.archive.resolve import resolve

    with context(archive).reading() as a:
        jobs, facts = log_jobs(a, resolve(a, log, version).name, where, exclude)
    return jobs, facts, {"unix_start_time": facts["unix_start_time"], "tz": facts["tz"]}


def _dated(clock: dict, frame, columns: list[str]):
    """Submit-clock seconds shown as the log's local time, when it is known."""
    from wla.archive.kernel.clock import local_time, log_clock

    if clock["unix_start_time"] is None:
        return frame
    out = frame.copy()
    at = log_clock(clock["unix_start_time"], clock["tz"])
    for c in columns:
        out[c] = [local_time(at, t).strftime("%Y-%m-%d %H:%M:%S") for t in out[c]]
    return out


def _wrote(plot: Optional[Path], as_json: bool) -> None:
    if plot and not as_json:
        typer.echo(f"wrote {plot}")


@app.command("quality")
def quality_cmd(
    logs: Optional[List[str]] = options.Logs,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    plot_dir: Optional[Path] = options.QualityPlot,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Inconsistency counts, utilization and its exceptions, dependencies (fields 17 and 18), what the
    experience paper's figures show, the header audit, the diagnosis (what is wrong with the log beyond its
    jobs) and the known issues, per log."""
    from wla.archive.analysis.caveats import known_issues
    from wla.archive.analysis.diagnosis.diagnose import diagnose
    from wla.archive.analysis.header_audit import header_audit
    from wla.archive.analysis.quality import quality
    from wla.archive.resolve import resolve

    with progress.display("quality", quiet=as_json), context(archive).reading() as a:
        frame = quality(a, [resolve(a, log).name for log in logs] if logs else None)
        frame["header_audit"] = [header_audit(a, name) for name in frame["name"]]
        frame["diagnosis"] = [[f.as_dict() for f in diagnose(a, name)] for name in frame["name"]]
        frame["known_issues"] = [[i.to_dict() for i in known_issues(a, name)] for name in frame["name"]]
        logs_jobs = ([_log_jobs(a, name) for name in frame["name"]] if plot_dir is not None else [])
    show(frame, as_json, text.quality, wide=wide)
    for name, (jobs, clock) in zip(frame["name"], logs_jobs):
        from wla.archive.analysis.workload_plot import write_figures

        for path, absent in write_figures(jobs, clock, plot_dir, name):
            typer.echo(f"drew {path}" if absent is None else f"not drawn {path}: {absent}", err=True)


def _log_jobs(a, name: str):
    """A log's jobs and clock, for its figures."""
    from wla.archive.analysis.jobs import log_jobs
    from wla.archive.kernel.clock import log_clock

    jobs, facts = log_jobs(a, name)
    return jobs, log_clock(facts["unix_start_time"], facts["tz"])


@app.command("flurries")
def flurries_cmd(
    log: str = options.Log,
    version: Optional[str] = options.Version,
    candidate: float = options.Candidate,
    large: float = options.Large,
    dominance: float = options.Dominance,
    top: int = options.Top,
    plot: Optional[Path] = options.Plot,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    where: Optional[str] = options.Where,
    exclude: Optional[str] = options.Exclude,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Flurry candidates: user-weeks and user-days far above the average, dominant users."""
    if plot:
        figure_format(plot, "plot")  # before any work: the format follows the extension
    from wla.archive.analysis.flurries import flurries

    with progress.display("flurries", quiet=as_json):
        jobs, facts, clock = _jobs(log, version, where, exclude, archive)
        report = flurries(jobs, candidate, large, dominance, top, **clock)
        if plot:
            from wla.archive.analysis.flurries_plot import plot_flurries  # matplotlib only when drawing

            plot_flurries(jobs, plot, title=f"{facts['name']}: jobs per week", **clock)
    show(report, as_json, partial(text.flurries, log=facts["name"]), wide=wide)
    if plot and not as_json:
        typer.echo(f"\nwrote {plot}")


@app.command("load")
def load_cmd(
    log: str = options.Log,
    version: Optional[str] = options.Version,
    capacity: Optional[int] = options.Capacity,
    level: Optional[float] = options.Level,
    plot: Optional[Path] = options.Plot,
    as_json: bool = options.Json,
    where: Optional[str] = options.Where,
    exclude: Optional[str] = options.Exclude,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Daily and weekly utilization, and a suggested trim point for the trim rule."""
    if plot:
        figure_format(plot, "plot")  # before any work: the format follows the extension
    from wla.archive.analysis.load import load_profile
    from wla.archive.store.catalog import machine_size

    with progress.display("load", quiet=as_json):
        jobs, facts, clock = _jobs(log, version, where, exclude, archive)
        report = load_profile(jobs, machine_size(facts, capacity, "give --capacity N"), level, **clock)
        if plot:
            from wla.archive.analysis.load_plot import plot_load  # matplotlib only when drawing

            plot_load(report, plot, title=f"{facts['name']}: utilization", **clock)
    show(report, as_json, partial(text.load, log=facts["name"]))
    _wrote(plot, as_json)


@app.command("capacity")
def capacity_cmd(
    log: str = options.Log,
    version: Optional[str] = options.Version,
    capacity: Optional[int] = options.Capacity,
    slack: float = options.Slack,
    threshold: float = options.Threshold,
    solve: bool = options.Solve,
    node_limit: int = options.NodeLimit,
    size_limit: int = options.SizeLimit,
    plot: Optional[Path] = options.Plot,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    where: Optional[str] = options.Where,
    exclude: Optional[str] = options.Exclude,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Utilization exceptions, their components, the observed ceiling, and what the capacity rule would delete."""
    if plot:
        figure_format(plot, "plot")  # before any work: the format follows the extension
    from wla.archive.analysis.capacity import capacity_report
    from wla.archive.analysis.capacity.choice import capacity_deletions  # scipy only here
    from wla.archive.store.catalog import machine_size

    with progress.display("capacity", "programs", quiet=as_json) as shown:
        jobs, facts, clock = _jobs(log, version, where, exclude, archive)
        size = machine_size(facts, capacity, "give --capacity N")
        data = {"report": capacity_report(jobs, size, slack)}
        if solve and data["report"].judged:  # without start times the rule refuses to run
            data["rule"] = capacity_deletions(jobs, size, slack=slack, threshold=threshold, node_limit=node_limit,
                                              size_limit=size_limit, **clock, progress=shown)
        if plot:
            from wla.archive.analysis.capacity.plot import plot_capacity

            plot_capacity(jobs, size, plot, title=f"{facts['name']}: daily utilization", **clock)
    show(data, as_json, partial(text.capacity, log=facts["name"], dated=partial(_dated, clock)), wide=wide)
    _wrote(plot, as_json)
