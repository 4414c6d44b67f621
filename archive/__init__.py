"""The archive: SWF logs kept exactly in one DuckDB file, queried with SQL."""
from __future__ import annotations

from .errors import (
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
from .store.file import Archive, default_path, open

__all__ = [
    "Archive",
    "ArchiveLocked",
    "ArchiveMissing",
    "ExtendedFormatError",
    "InputError",
    "LogExists",
    "LogNotFound",
    "QueryError",
    "UsageError",
    "WlaError",
    "default_path",
    "open",
]
