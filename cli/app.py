"""The typer application and what every command shares."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from wla.archive.store import ENV_PATH, default_path

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="wla: a workload log archive. Keep SWF logs exactly, ask SQL over all of them.",
)

ArchiveOpt = typer.Option(None, "--archive", "-a", envvar=ENV_PATH,
                          help="Archive file [default: ./archive.duckdb]")
WhereOpt = typer.Option(None, "--where", help="Only jobs matching this predicate, e.g. \"user=21 and job>100\"")
ExcludeOpt = typer.Option(None, "--exclude", help="Leave out jobs matching this predicate")

_chosen: dict[str, str] = {}


@app.callback()
def _global(archive: Optional[Path] = typer.Option(
        None, "--archive", "-a", envvar=ENV_PATH,
        help="Archive file, for every command [default: ./archive.duckdb]")) -> None:
    if archive:
        _chosen["archive"] = str(archive)


def archive_path(archive: Optional[Path]) -> str:
    return str(archive) if archive else _chosen.get("archive") or default_path()
