"""Commands that look for what cleaning might fix: flurries, capacity, load."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import pandas as pd
import typer
from wla.archive import UsageError
from wla.archive import open as open_archive
from wla.archive.analysis.flurries import flurries
from wla.archive.analysis.jobs import log_jobs
from wla.archive.analysis.load import load_profile, local_time, log_clock

from .app import ArchiveOpt, ExcludeOpt, WhereOpt, app, archive_path
from .render import frame_text

PlotOpt = typer.Option(None, "--plot", readable=False, help="Draw a PNG to this file")
JsonOpt = typer.Option(False, "--json", help="Print JSON")
CapacityOpt = typer.Option(None, "--capacity", help="Processors of the machine [default: the log's machine size]")


def _capacity(facts: dict, capacity: Optional[int]) -> int:
    size = capacity if capacity is not None else facts["machine_size"]  # --capacity 0 is refused, not ignored
    if size is None:
        raise UsageError(f"{facts['name']} has no machine size: give --capacity N, "
                         f"or set it with `wla set {facts['name']} max-procs N`")
    return int(size)


def _jobs(log: str, where: Optional[str], exclude: Optional[str],
          archive: Optional[Path]) -> tuple[pd.DataFrame, dict, dict]:
    """The jobs, the log's facts, and the clock arguments analyses take."""
    with open_archive(archive_path(archive)) as a:
        jobs, facts = log_jobs(a, log, where, exclude)
    return jobs, facts, {"unix_start_time": facts["unix_start_time"], "tz": facts["tz"]}


def _dated(frame: pd.DataFrame, clock: dict, columns: list[str]) -> pd.DataFrame:
    """Submit-clock seconds shown as the log's local time, when it is known."""
    if clock["unix_start_time"] is None:
        return frame
    out = frame.copy()
    at = log_clock(clock["unix_start_time"], clock["tz"])
    for c in columns:
        out[c] = [local_time(at, t).strftime("%Y-%m-%d %H:%M:%S") for t in out[c]]
    return out


def _pct(x) -> str:
    return "-" if x is None or pd.isna(x) else f"{x:.1%}"


@app.command("flurries")
def flurries_cmd(
    log: str,
    candidate: float = typer.Option(1.0, help="A user-week is a candidate at this many times the average weekly total"),
    large: float = typer.Option(5.0, help="... and a large flurry at this many times"),
    dominance: float = typer.Option(0.25, help="A user with more than this share of the log's jobs dominates it"),
    top: int = typer.Option(3, help="Top users shown per candidate week or day"),
    plot: Optional[Path] = PlotOpt,
    as_json: bool = JsonOpt,
    where: Optional[str] = WhereOpt,
    exclude: Optional[str] = ExcludeOpt,
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Flurry candidates: user-weeks and user-days far above the average, dominant users."""
    from wla.archive.analysis.flurries_plot import plot_flurries  # matplotlib only when drawing

    jobs, facts, clock = _jobs(log, where, exclude, archive)
    report = flurries(jobs, candidate, large, dominance, top, **clock)
    if plot:
        plot_flurries(jobs, plot, title=f"{log}: jobs per week", **clock)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=1))
        return
    typer.echo(f"{log}: {report.jobs:,} jobs over {report.weeks} weeks; average "
               f"{report.weekly_average:,.0f} jobs a week, {report.daily_average:,.0f} a day")
    for kind, title in (("week", "weekly candidates"), ("day", "daily candidates"),
                        ("dominance", "dominant users")):
        found = report.of_kind(kind)
        typer.echo(f"\n{title}: {len(found) or 'none'}")
        if found:
            rows = pd.DataFrame([{
                "user": c.user, kind if kind != "dominance" else "": c.period if c.period is not None else "",
                "date": c.date or "", "jobs": c.jobs,
                "ratio": "" if c.ratio is None else f"{c.ratio:.1f}", "share": _pct(c.share),
                "large": "large" if c.large else "", "procs": c.median_procs, "run": c.median_run,
                "p*s": _pct(c.proc_seconds_share), "predicate": c.predicate} for c in found])
            typer.echo(frame_text(rows.loc[:, rows.columns != ""]))
    if plot:
        typer.echo(f"\nwrote {plot}")


@app.command("load")
def load_cmd(
    log: str,
    capacity: Optional[int] = CapacityOpt,
    level: Optional[float] = typer.Option(None, help="Utilization to stay above [default: half the median week]"),
    plot: Optional[Path] = PlotOpt,
    as_json: bool = JsonOpt,
    where: Optional[str] = WhereOpt,
    exclude: Optional[str] = ExcludeOpt,
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Daily and weekly utilization, and a suggested trim point for the trim rule."""
    from wla.archive.analysis.load_plot import plot_load  # matplotlib only when drawing

    jobs, facts, clock = _jobs(log, where, exclude, archive)
    report = load_profile(jobs, _capacity(facts, capacity), level, **clock)
    if plot:
        plot_load(report, plot, title=f"{log}: utilization", **clock)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=1))
        return
    weekly = pd.Series(report.weekly)
    typer.echo(f"{log}: {len(report.weekly)} weeks on {report.capacity:,} processors; weekly utilization "
               f"median {_pct(report.median_weekly)}, min {_pct(weekly.min())}, max {_pct(weekly.max())}")
    typer.echo(report.summary())
    if report.predicate() and not report.dip:
        when = report.to_dict()["trim"]["date"]
        typer.echo(f"recipe step: rule = \"trim\", before = {report.trim_submit}"
                   + (f"   # {when}" if when else ""))
    if plot:
        typer.echo(f"wrote {plot}")


@app.command("capacity")
def capacity_cmd(
    log: str,
    capacity: Optional[int] = CapacityOpt,
    slack: float = typer.Option(0.0, help="Seconds of overlap ignored as timing slop"),
    threshold: float = typer.Option(0.05, help="Largest share of jobs or utilization a deletion may remove"),
    solve: bool = typer.Option(True, help="Also solve the integer programs and show the deletion the rule would make"),
    time_limit: float = typer.Option(5.0, help="Seconds per program (one objective of one component)"),
    node_limit: Optional[int] = typer.Option(None, help="Branch-and-bound nodes per program (reproducible cut-off)"),
    plot: Optional[Path] = PlotOpt,
    as_json: bool = JsonOpt,
    where: Optional[str] = WhereOpt,
    exclude: Optional[str] = ExcludeOpt,
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Utilization exceptions, their components, the observed ceiling, and what the capacity rule would delete."""
    from wla.archive.analysis.capacity import capacity_deletions, capacity_report  # scipy only here
    from wla.archive.analysis.capacity_plot import plot_capacity

    jobs, facts, clock = _jobs(log, where, exclude, archive)
    size = _capacity(facts, capacity)
    report = capacity_report(jobs, size, slack)
    choice = (capacity_deletions(jobs, size, slack=slack, threshold=threshold, time_limit=time_limit,
                                 node_limit=node_limit, **clock) if solve else None)
    if plot:
        plot_capacity(jobs, size, plot, title=f"{log}: daily utilization", **clock)
    if as_json:
        out = {"report": report.as_dict()}
        if choice is not None:
            out["rule"] = choice.as_dict()
        typer.echo(json.dumps(out, indent=1))
        return
    typer.echo(f"{log} on {size:,} processors: {report.exceptions:,} exceptions in "
               f"{len(report.components):,} components; worst excess {report.worst_excess:,.0f}"
               + (f" at {_dated(pd.DataFrame({'t': [report.worst_at]}), clock, ['t']).t[0]}"
                  if report.worst_at is not None else "")
               + f"; ceiling {report.ceiling:,.0f} ({_pct(report.ceiling_share)} of the machine)")
    if len(report.components):
        typer.echo("")
        typer.echo(frame_text(_dated(report.components.head(20), clock, ["first_at", "last_at", "worst_at"])))
        if len(report.components) > 20:
            typer.echo(f"... {len(report.components) - 20:,} more components")
    if choice is not None:
        typer.echo("")
        typer.echo(choice.message)
    if plot:
        typer.echo(f"wrote {plot}")
