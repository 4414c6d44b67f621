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
from .kernel.lazy import names_on_first_use
from .resolve import LogName, resolve

# Imported when first used: they load DuckDB and pandas, which `wla --help`
# and the errors above do not need.
__getattr__ = names_on_first_use(__name__, {name: ".store.file" for name in ("Archive", "default_path", "open")})


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
