"""The archive: SWF logs kept exactly in one DuckDB file, queried with SQL."""
from __future__ import annotations

from .context import Context
from .kernel.errors import (
    ArchiveLocked,
    ArchiveMissing,
    ExtendedFormatError,
    InputError,
    LogExists,
    LogNotFound,
    QueryError,
    UsageError,
    WlaError,
)
from .resolve import LogName, resolve

_FILE = ("Archive", "default_path", "open")


def __getattr__(name: str):
    """Archive, open and default_path, imported when first used: they load
    DuckDB and pandas, which `wla --help` and the errors above do not need."""
    if name in _FILE:
        from .store import file

        return getattr(file, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Archive",
    "ArchiveLocked",
    "ArchiveMissing",
    "Context",
    "ExtendedFormatError",
    "InputError",
    "LogExists",
    "LogName",
    "LogNotFound",
    "QueryError",
    "UsageError",
    "WlaError",
    "default_path",
    "open",
    "resolve",
]
