"""The project's exceptions: each one prints as one line a user can act on."""
from __future__ import annotations

import unicodedata


class WlaError(Exception):
    """Base of every error wla raises on purpose; the CLI prints it as one line."""


def one_line(e: BaseException) -> str:
    """The first non-blank line of an error: what a user is shown."""
    lines = [ln for ln in str(e).splitlines() if ln.strip()]
    return lines[0] if lines else type(e).__name__


def shorten(text: str, width: int = 60) -> str:
    text = text.rstrip("\r\n")
    return text if len(text) <= width else text[: width - 1] + "…"


def visible(text: str) -> str:
    """`text` with control, format and line-separator characters and lone
    surrogates (an undecodable file name) escaped, so it prints on one line."""
    if text.isprintable():
        return text
    return "".join(ch.encode("unicode_escape").decode("ascii")
                   if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") else ch
                   for ch in text)


class InputError(WlaError):
    """A file that cannot be ingested as it is: FILE:LINE: what is wrong."""

    def __init__(self, file: str, line: int | None, problem: str, text: str | None = None):
        self.file = file
        self.line = line
        self.problem = problem
        self.text = text
        where = f"{visible(file)}:{line}" if line is not None else visible(file)
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


class InvalidName(WlaError):
    """A log, version or rule name that is not one line of visible text."""


class OptionError(UsageError):
    """A parameter outside its range. `name` is the Python parameter; the
    command line shows its option instead (`--load-factor` for load_factor)."""

    def __init__(self, name: str, problem: str):
        self.name = name
        self.problem = problem
        super().__init__(f"{name} {problem}")


class EmptyVersion(WlaError):
    """A version without jobs, which cannot be published as an SWF file."""
