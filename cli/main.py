"""The `wla` command: the entry point, and how whatever ends a command is
reported (one line, a status)."""
from __future__ import annotations

import errno
import logging
import os
import sys
import warnings

import typer
from wla.archive.kernel import jit
from wla.archive.kernel.errors import Escaped, WlaError, one_line

from . import analysis, cleaning, doctor, evaluation, logs, pull, resampling, sessions, simulation, website  # noqa: F401  (register their commands)
from .app import RUN, app, command  # noqa: F401  (app: the typer application, for whoever embeds wla)
from .spelling import told

TRACEBACK_ENV = "WLA_TRACEBACK"
EX_SOFTWARE = 70  # sysexits.h: a bug in wla, not in its input
EX_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C
EX_PIPE = 141  # 128 + SIGPIPE: whoever read the output stopped (`wla sql ... | head`)


def main() -> None:
    """The `wla` command. Whatever ends it early is one line on stderr: status
    1 for what the user can change (input, options, memory), 130 for an
    interrupt, 70 for a bug in wla; a closed output pipe ends it quietly.
    WLA_TRACEBACK=1 raises instead, with the traceback."""
    logging.getLogger("sqlglot").setLevel(logging.ERROR)  # its warnings would print before wla's error
    warnings.simplefilter("ignore", RuntimeWarning)  # numpy's too: what went wrong is wla's one line
    jit.skip_blas_probe()  # a command never needs numba's linear algebra: spare its start-up
    RUN.clear()
    try:
        try:
            command()()  # what app() does, with the command built once
        finally:
            sys.stdout.flush()  # a closed pipe shows here, not in Python's flush at exit
    except SystemExit:
        raise
    except BaseException as e:  # every way out is reported below
        error = e.error if isinstance(e, Escaped) else e
        if os.environ.get(TRACEBACK_ENV, "") not in ("", "0"):
            if error is e:
                raise
            raise error from None
        try:
            status, message = failure(error)
        except Exception:  # the report itself failed: still one line
            status, message = EX_SOFTWARE, _internal(error)
        if message is not None:
            try:
                typer.echo(f"wla: {message}", err=True)
            except OSError:  # stderr closed too: the status is all that is left
                pass
        sys.exit(status)


def failure(error: BaseException) -> tuple[int, str | None]:
    """The exit status and the one line (None: say nothing) for an exception
    that ended a command."""
    if isinstance(error, WlaError):
        return 1, " ".join(line.strip() for line in told(error).splitlines() if line.strip())
    duckdb = sys.modules.get("duckdb")  # not loaded: none of its errors can have happened
    if isinstance(error, KeyboardInterrupt) or duckdb and isinstance(error, duckdb.InterruptException):
        return EX_INTERRUPTED, "interrupted"
    if isinstance(error, MemoryError) or duckdb and isinstance(error, duckdb.OutOfMemoryException):
        command = RUN.get("command")
        return 1, "out of memory" + (f" while running `wla {command}`" if command else "")
    if duckdb and isinstance(error, duckdb.Error):  # a database failure wla did not foresee: still one line
        return 1, f"database error: {one_line(error)}"
    if isinstance(error, OSError) and error.errno == errno.EPIPE:
        _quiet_stdout()
        return EX_PIPE, None
    if isinstance(error, OSError) and error.errno is not None and error.strerror:
        # The system refused: a file given (an output folder that is missing,
        # a file that cannot be written), a full disk. Not a bug in wla.
        return 1, (f"{error.filename}: " if error.filename else "") + error.strerror
    return EX_SOFTWARE, _internal(error)


def _internal(error: BaseException) -> str:
    what = f"{type(error).__name__}: {one_line(error)}" if str(error).strip() else type(error).__name__
    return f"internal error: {what} (set {TRACEBACK_ENV}=1 to see the traceback; please report it)"


def _quiet_stdout() -> None:
    """Point stdout at the null device: Python flushes it again at exit, and
    would fail on the closed pipe with a message of its own."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, sys.stdout.fileno())
        finally:
            os.close(null)
    except (OSError, ValueError, AttributeError):  # no descriptor (tests capture into memory)
        pass


if __name__ == "__main__":
    main()
