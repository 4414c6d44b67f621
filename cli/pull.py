"""wla pull: logs from the Parallel Workloads Archive's site, checked, then ingested."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import List, Optional

import typer
from wla.archive.kernel.units import count

from . import options, progress
from .app import app, context
from .present import show
from .spelling import told

KIB = 1024  # the progress bar counts kibibytes: a byte count would not fit its width


@app.command("pull")
def pull_cmd(
    names: Optional[List[str]] = options.PullNames,
    all: bool = options.PullAll,
    url: Optional[str] = options.PullUrl,
    directory: Optional[Path] = options.PullDir,
    deadline: float = options.PullDeadline,
    min_rate: float = options.PullMinRate,
    rate_window: float = options.PullRateWindow,
    read_timeout: float = options.PullReadTimeout,
    max_size: int = options.PullMaxSize,
    as_json: bool = options.Json,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Download logs named in wla's catalog (or --all), check their size and sha256, and ingest them."""
    from wla.archive.kernel.errors import ParameterError, UsageError
    from wla.archive.pull.pull import download_dir, pull

    where = context(archive).path
    try:
        with progress.display("pull", "KiB", quiet=as_json, rate=True) as shown:
            results = pull(where, names or [], all=all, base_url=url, directory=directory,
                           progress=lambda done, total, log: shown(done // KIB, total // KIB, log),
                           deadline=deadline, min_rate=min_rate, rate_window=rate_window,
                           read_timeout=read_timeout, max_size=max_size)
    except ParameterError as e:
        if "all" in e.names and not names:  # nothing asked for: the command line points at its help too
            raise UsageError(f"{told(e)} (`wla pull --help`)") from None
        raise
    failed = False
    for r in results:
        if r.error is not None or (r.ingest is not None and r.ingest.status == "failed"):
            typer.echo(f"wla: {r.message if r.error is not None else told(r.ingest.error)}", err=True)
            failed = True
    show(results, as_json, lambda rs: pulled(rs, download_dir(where, directory)))
    if failed:
        raise typer.Exit(1)


def pulled(results: list, folder: Path) -> str:
    """One line per log (what came of its file, then of its ingest), then the
    counts; a log skipped (its host answered nothing) is only counted."""
    lines = [_line(r) for r in results if r.error is None and r.status != "skipped"]
    counts = Counter(r.status for r in results)
    ingested = Counter(r.ingest.status for r in results if r.ingest is not None)
    total = f"{count(len(results), 'log')} in {folder}: "
    total += ", ".join(f"{n} {status}" for status, n in counts.items())
    if ingested:
        total += "; " + ", ".join(f"{n} {status}" for status, n in ingested.items())
    return "\n".join([*lines, total])


def _line(r) -> str:
    said = [f"{r.size:,} bytes", "size and sha256 as the catalog says" if r.verified
            else "not checked (the catalog has no size or sha256 for it)"]
    if r.resumed_from:
        said.append(f"resumed at byte {r.resumed_from:,}")
    if r.attempts > 1:
        said.append(f"{r.attempts} attempts")
    if r.message:
        said.append(r.message)
    line = f"{r.status:10} {r.name}: {', '.join(said)}"
    if r.ingest is not None:
        line += "; not ingested (above)" if r.ingest.status == "failed" else f"; {r.ingest.status}: {r.ingest.message}"
    return line
