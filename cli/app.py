"""The typer application and what every command shares."""
from __future__ import annotations

import errno
from pathlib import Path
from typing import Any, Optional

import typer
from typer.core import TyperGroup
from wla.archive.store.file import ENV_PATH, default_path


class Escaped(BaseException):
    """An exception typer would end the program on by itself (an interrupt:
    a silent status 130; a closed stdout: status 1; EOFError: "Aborted!"),
    carried out of typer to `main`, which reports every failure one way."""

    def __init__(self, error: BaseException):
        super().__init__(error)
        self.error = error


class _Commands(TyperGroup):
    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (KeyboardInterrupt, EOFError) as e:
            raise Escaped(e) from e
        except OSError as e:
            if e.errno == errno.EPIPE:
                raise Escaped(e) from e
            raise


app = typer.Typer(
    cls=_Commands,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="wla: a workload log archive. Keep SWF logs exactly, ask SQL over all of them.",
)

# Files and folders are checked by wla's own code, which says in one line what
# is wrong (typer's `readable` check would print a usage box with status 2).
ArchiveOpt = typer.Option(None, "--archive", "-a", envvar=ENV_PATH, readable=False,
                          help="Archive file [default: ./archive.duckdb]")
WhereOpt = typer.Option(None, "--where", help="Only jobs matching this predicate, e.g. \"user=21 and job>100\"")
ExcludeOpt = typer.Option(None, "--exclude", help="Leave out jobs matching this predicate")

_chosen: dict[str, str] = {}


@app.callback()
def _global(ctx: typer.Context, archive: Optional[Path] = typer.Option(
        None, "--archive", "-a", envvar=ENV_PATH, readable=False,
        help="Archive file, for every command [default: ./archive.duckdb]")) -> None:
    if ctx.invoked_subcommand:
        _chosen["command"] = ctx.invoked_subcommand  # named in errors: its options, "while running"
    if archive:
        _chosen["archive"] = str(archive)


def archive_path(archive: Optional[Path]) -> str:
    return str(archive) if archive else _chosen.get("archive") or default_path()
