"""One run's archive: which file (decided once), opening it to read or to
write, and what a log or version name means in it.

The file is the one given, else $WLA_ARCHIVE, else ./archive.duckdb. A
reader holds the file only while it reads: DuckDB's lock shuts writers out
while any connection is open, so a command that computes for long (a
simulation, the capacity rule's integer programs) reads what it needs,
closes, and then computes, and `wla ingest` can write meanwhile.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from .kernel.errors import ArchiveMissing
from .resolve import LogName, resolve
from .store.location import DEFAULT_PATH, ENV_PATH, archive_path

if TYPE_CHECKING:
    from .store.file import Archive

__all__ = ["DEFAULT_PATH", "ENV_PATH", "Context", "archive_path"]


class Context:
    """The archive a run works on. Open it with `reading()` or `writing()`;
    name logs and versions with `resolve()`."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = archive_path(path)

    def __repr__(self) -> str:
        return f"Context({self.path!r})"

    @contextmanager
    def reading(self, read_files: bool = False) -> Iterator[Archive]:
        """The archive opened read-only (a missing file is an error, never
        created), closed on leaving. `read_files` lets queries read files."""
        from .store.file import Archive

        with Archive(self.path, read_files=read_files) as archive:
            yield archive

    @contextmanager
    def writing(self, create: bool = False) -> Iterator[Archive]:
        """The archive opened for writing, holding its lock until left. Only
        with `create` (ingest, convert) is a missing file made."""
        from .store.file import Archive

        if not create and not Path(self.path).exists():
            raise ArchiveMissing(f"no archive at {self.path} (ingest a log to create one)")
        with Archive(self.path, write=True) as archive:
            yield archive

    def resolve(self, log: str, version: str | None = None) -> LogName:
        """The log or version meant (see resolve.py), read and closed again."""
        with self.reading() as archive:
            return resolve(archive, log, version)
