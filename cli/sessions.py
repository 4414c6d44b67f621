"""`wla sessions`: the resampling paper's session similarity (section 3) of
a log: Fig. 1's curves, Tables II-IV's shares, Fig. 2's null model."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from . import options, progress
from .app import app, context
from .present import show


@app.command("sessions")
def sessions_cmd(
    log: str = options.Log,
    version: Optional[str] = options.Version,
    attributes: Optional[List[str]] = options.SessionAttributes,
    distances: int = options.SessionDistances,
    statistic: str = options.SessionStatistic,
    weigh: str = options.SessionWeigh,
    shuffle: str = options.SessionShuffle,
    repeats: int = options.SessionRepeats,
    seed: int = options.SessionSeed,
    gap: float = options.SessionGap,
    plot: Optional[Path] = options.Plot,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    where: Optional[str] = options.Where,
    exclude: Optional[str] = options.Exclude,
    archive: Optional[Path] = options.Archive,
) -> None:
    """How alike a user's jobs are within a session and in sessions 1, 2, ... apart, beside a shuffle
    (the resampling paper's Figs. 1 and 2 and Tables II-IV)."""
    from wla.archive.kernel.figure_files import figure_format

    if plot:
        figure_format(plot, "plot")  # before any work: the format follows the extension
    from wla.archive.analysis.jobs import log_jobs
    from wla.archive.analysis.stats.sessions import ATTRIBUTES, session_report
    from wla.archive.resolve import resolve

    with progress.display("sessions", quiet=as_json):
        with context(archive).reading() as a:
            jobs, facts = log_jobs(a, resolve(a, log, version).name, where, exclude)
        report = session_report(jobs, tuple(attributes) if attributes else tuple(ATTRIBUTES), distances,
                                statistic, shuffle, repeats, seed, gap, weigh)
        data = {"log": facts["name"], **report.as_dict(detail=plot is None or as_json)}
        if plot:
            from wla.archive.analysis.stats.sessions_plot import plot_sessions  # matplotlib only when drawing

            plot_sessions(report.as_dict(), plot, f"{facts['name']}: similarity of a user's jobs by sessions apart")
    show(data, as_json, sessions_text, wide=wide)
    if plot and not as_json:
        typer.echo(f"\nwrote {plot}")


def _share(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.3f}"


def sessions_text(data: dict) -> str:
    """Per attribute the locality table (log and shuffle), the curves by
    distance, and where the log falls among the shuffles."""
    from wla.archive.analysis.stats.sessions import ATTRIBUTES
    from wla.archive.kernel.units import count

    from .render import grid
    from .text import _notes

    s = data["settings"]
    lines = _notes(f"{data['log']}: {count(data['users'], 'user')}, {count(data['sessions'], 'session')} "
                   f"(a new one after {s['gap']:g} s without work); similarity: "
                   f"{'mean min/max' if s['statistic'] == 'mean' else 'share of equal values'} over job pairs, users' "
                   f"{'session' if s['weigh'] == 'sessions' else 'job'} pairs weighing the same; "
                   f"shuffle: {s['shuffle']}, seed {s['seed']}")
    for a in data["attributes"]:
        t, m = a["table"], a["shuffled_table"]
        lines += ["", f"{ATTRIBUTES[a['attribute']]} ({count(a['jobs'], 'job')} with a value): "
                      f"{count(t['users'], 'user')} with distances 0, 1 and 2, {t['constant']} of one value only"]
        rows = [[name] + [_share(tab[pair][k]) for pair in ("0 vs 1", "1 vs 2")
                          for k in ("shorter", "equal", "longer")] for name, tab in (("log", t), ("shuffled", m))]
        lines.append(grid(["users more similar at", "0 > 1", "0 = 1", "0 < 1", "1 > 2", "1 = 2", "1 < 2"], rows, gap=2))
        curves = [[f"{d}"] + [_share(c[k][d]) for c in (a["log"], a["shuffled"]) for k in ("mean", "median")]
                  + [f"{a['log']['users'][d]}"] for d in range(len(a["log"]["mean"]))]
        lines += ["", grid(["distance", "log mean", "log median", "shuffled mean", "shuffled median", "users"],
                           curves, gap=2)]
        n = a["null"]
        if n["repeats"]:
            lines += _notes(f"distance 0: log {_share(a['log']['mean'][0])}; {n['repeats']} job shuffles: mean "
                            f"{_share(n['mean'])}, largest {_share(n['max'])}, {n['at_least_log']} at least the log's")
    return "\n".join(lines)
