"""The project's exceptions: each one prints as one line a user can act on."""
from __future__ import annotations


class WlaError(Exception):
    """Base of every error wla raises on purpose; the CLI prints it as one line."""


def shorten(text: str, width: int = 60) -> str:
    text = text.rstrip("\r\n")
    return text if len(text) <= width else text[: width - 1] + "…"


class InputError(WlaError):
    """A file that cannot be ingested as it is: FILE:LINE: what is wrong."""

    def __init__(self, file: str, line: int | None, problem: str, text: str | None = None):
        self.file = file
        self.line = line
        self.problem = problem
        self.text = text
        where = f"{file}:{line}" if line is not None else file
        tail = f": {shorten(text)!r}" if text is not None else ""
        super().__init__(f"{where}: {problem}{tail}")


class ExtendedFormatError(InputError):
    """A file in an extended SWF dialect (more than 18 columns)."""


class ArchiveLocked(WlaError):
    """Another process holds the archive file."""


class ArchiveMissing(WlaError):
    """No archive file where one was expected."""


class LogNotFound(WlaError):
    """A log name that the archive does not hold."""


class LogExists(WlaError):
    """A different file under a name the archive already holds."""


class QueryError(WlaError):
    """A query that cannot run: bad SQL, or one that would write."""


class UsageError(WlaError):
    """Arguments that do not fit together."""
