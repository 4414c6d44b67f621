"""Every exception class of wla, in one module. Those a user meets (WlaError
and below) print as one line they can act on; the rest carry a problem
inside wla to where it is reported (LineError, BeyondLimits, Escaped)."""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Self


class WlaError(Exception):
    """Base of every error wla raises on purpose; the CLI prints it as one line.
    Its message may name parameters of the Python API (`naming`)."""

    template: str | None = None  # the message, each parameter it names written {name}
    names: tuple[str, ...] = ()

    @classmethod
    def naming(cls, template: str, *names: str) -> Self:
        """The error whose message names parameters: each of `names` written
        {name} in `template`. Python shows the parameter (`runs`), the command
        line its option (`--runs`), through `spelled`."""
        error = cls(_spell(template, names, _itself))
        error.template, error.names = template, names
        return error

    def spelled(self, spell: Callable[[str], str]) -> str:
        """The message with each parameter it names written as `spell` writes it."""
        return str(self) if self.template is None else _spell(self.template, self.names, spell)


def _itself(name: str) -> str:
    return name


def _spell(template: str, names: tuple[str, ...], spell: Callable[[str], str]) -> str:
    if not names:
        return template
    named = "|".join(re.escape("{%s}" % name) for name in names)
    return re.sub(named, lambda m: spell(m[0][1:-1]), template)


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


class ParameterError(UsageError):
    """Arguments that do not fit, in the words of the Python API: each
    parameter the message names is written {name} in `template` and listed
    in `names`. Python shows it as the parameter (`load_factor`); the command
    line as its option (`--load-factor`), through `spelled`."""

    def __init__(self, template: str, *names: str):
        super().__init__(_spell(template, names, _itself))
        self.template, self.names = template, names


class OptionError(ParameterError):
    """A parameter outside its range. `name` is the Python parameter; the
    command line shows its option instead (`--load-factor` for load_factor)."""

    def __init__(self, name: str, problem: str):
        self.name = name
        self.problem = problem
        super().__init__("{%s} %s" % (name, problem), name)


class EmptyVersion(WlaError):
    """A version without jobs, which cannot be published as an SWF file."""


class PredicateError(WlaError):
    """A predicate that is not in the notation, or names what does not exist."""


class RuleError(WlaError):
    """A rule file that cannot be used: bad header, bad SQL, unknown column."""


class RecipeError(WlaError):
    """A recipe that cannot be built as written."""


class Unreachable(WlaError):
    """A host that answered none of a download's requests (no connection, or
    nothing within the time allowed): `pull` skips its other downloads."""


class LineError(ValueError):
    """A job line that is not 18 numbers the archive can keep exactly; the
    reader turns it into a rejected line or an InputError naming the file."""

    def __init__(self, reason: str, extended: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.extended = extended


class BeyondLimits(Exception):
    """A file past one of the reading limits (swf/limits.py): refused even
    when lenient. Raised inside the reader with the line that crossed the
    limit; the reader reports it as the InputError naming the file."""

    def __init__(self, line_no: int, text: str, reason: str):
        super().__init__(reason)
        self.line_no = line_no
        self.text = text
        self.reason = reason


class ScheduleInvalid(WlaError):
    """A simulated schedule that breaks an invariant: a bug, never a user error."""


class Escaped(BaseException):
    """An exception typer would end the program on by itself (an interrupt:
    a silent status 130; a closed stdout: status 1; EOFError: "Aborted!"),
    carried out of typer to `main`, which reports every failure one way."""

    def __init__(self, error: BaseException):
        super().__init__(error)
        self.error = error
