"""The typer application and what every command shares: the order of the
commands, the archive of the run, and exceptions typer would end on itself."""
from __future__ import annotations

import copy
import errno
import functools
from pathlib import Path
from typing import Any, Optional

import typer
from typer.core import TyperGroup, TyperOption
from wla.archive.context import Context
from wla.archive.kernel.errors import Escaped, UsageError

from . import options

# The help lists the commands as the work flows: logs in, looked at, cleaned,
# published, simulated.
FLOW = ("ingest", "pull", "convert", "ls", "info", "set", "note", "sql", "export", "quality", "flurries", "load",
        "capacity", "rules", "clean", "versions", "recipe", "diff", "why", "provenance", "publish", "site",
        "simulate", "shake", "sweep", "compare", "users", "resample", "stats", "sessions", "validate", "esp", "doctor")


# Options spelled another way before: (command, old flags) -> what to write
# now. The old spelling is refused in one line that says the new one.
MOVED = {
    ("stats", ("--plot",)): "stats draws several figures: --plot-dir DIR, not --plot",
    ("validate", ("--plot",)): "validate draws several figures: --plot-dir DIR, not --plot",
    ("sweep", ("-o", "--output")): "sweep draws --metric to --plot FILE (.png, .svg or .pdf), not -o",
}


def _moved(ctx: Any, param: Any, given: Any, now: str) -> None:
    if given is not None:
        raise UsageError(now)


class _Commands(TyperGroup):
    def __init__(self, *args: Any, **kw: Any) -> None:
        """--quiet after the command name too: the run's own option, given to
        every command, where it sets the run's flag (the command never sees it);
        and the old spellings of MOVED, hidden, each refused with the new one."""
        super().__init__(*args, **kw)
        quiet = next(p for p in self.params if p.name == "quiet")
        for command in self.commands.values():
            after = copy.copy(quiet)
            after.expose_value, after.callback = False, _quiet_after
            command.params.append(after)
        for (name, opts), now in MOVED.items():
            if name in self.commands:
                self.commands[name].params.append(TyperOption(
                    param_decls=list(opts), hidden=True, expose_value=False,
                    callback=functools.partial(_moved, now=now)))

    def list_commands(self, ctx: typer.Context) -> list[str]:
        known = super().list_commands(ctx)
        return [n for n in FLOW if n in known] + [n for n in known if n not in FLOW]

    def format_commands(self, ctx: typer.Context, formatter: Any) -> None:
        """Each command with its whole first sentence, wrapped (click cuts it at the line's end)."""
        rows = [(name, self.get_command(ctx, name).get_short_help_str(limit=1000))
                for name in self.list_commands(ctx) if not self.get_command(ctx, name).hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

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
    rich_markup_mode=None,  # plain help: a flag shows as a flag, not as `--json <bool>`
    help="wla: a workload log archive. Keep SWF logs exactly, ask SQL over all of them.",
)

# This run: the command (named in errors: its options, "while running"),
# the archive given before the command name, and --quiet given before or after it.
RUN: dict[str, Any] = {}


@app.callback()
def _global(ctx: typer.Context, archive: Optional[Path] = options.Archive,
            quiet: bool = options.Quiet, version: bool = options.ShowVersion) -> None:
    RUN.clear()
    RUN.update(command=ctx.invoked_subcommand, archive=archive, quiet=quiet)


def _quiet_after(ctx: Any, param: Any, given: bool) -> bool:
    if given:  # parsed after _global ran: the command's options come after the run's
        RUN["quiet"] = True
    return given


@functools.cache
def command() -> Any:
    """The click command typer builds from `app`, once per process: building
    it reads every command's signature (a tenth of a second), and a process
    that runs `wla` many times (a test suite, a notebook) needs it once."""
    from typer.main import get_command

    return get_command(app)


def context(archive: Optional[Path]) -> Context:
    """The run's archive: -a after the command name, else -a before it, else
    $WLA_ARCHIVE, else ./archive.duckdb."""
    return Context(archive or RUN.get("archive"))
