"""From any spelling of a log or version to the one name the archive holds.

A log is named LOG; a cleaned version of it LOG@VERSION, or LOG with the
version given apart (`--version V`, `version="V"`, which may also be the
full LOG@V); `original` in place of a version names the log itself. Every
command and every Python entry point that takes a log or a version resolves
it here, so each spelling means the same everywhere. A version's lineage
(the versions it was built from) is here too: the diff by rule and the
provenance follow it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .kernel.errors import LogNotFound, UsageError, visible
from .kernel.names import ORIGINAL, full_name, known_hint, split_name

if TYPE_CHECKING:  # the archive's module loads DuckDB; names need only its connection
    from .store.file import Archive


@dataclass(frozen=True)
class LogName:
    """A log or version the archive holds."""

    log: str  # the original log
    version: str | None  # the version's own name (after '@'); None: the original
    log_id: int  # its row in `logs`

    @property
    def name(self) -> str:
        """LOG or LOG@VERSION, as the archive's tables and views name it."""
        return full_name(self.log, self.version)

    def __str__(self) -> str:
        return self.name


def _own_version(log: str, version: str) -> str:
    """The version's own name from `version` (V, or LOG@V of this log)."""
    base, own = split_name(version)
    if own is None:
        return version
    if base != log:
        raise UsageError(f"version {version!r} is not a version of {visible(log)}")
    return own


def resolve(archive: Archive, log: str, version: str | None = None) -> LogName:
    """The log or version meant by `log` (LOG or LOG@V) and `version` (None,
    V, LOG@V or 'original'). A version named both ways must be the same one."""
    if not isinstance(log, str):
        raise UsageError(f"a log is named by text, not {type(log).__name__}")
    base, own = split_name(log)
    if version is not None:
        wanted = _own_version(base, version)
        if own is not None and own != wanted:
            raise UsageError(f"{visible(log)} names version {visible(own)} and the version given is "
                             f"{visible(version)}; give one")
        own = wanted
    log_id = _original_id(archive, base)
    if own is None or own == ORIGINAL:
        return LogName(base, None, log_id)
    rows = archive.con.execute("SELECT log_id FROM versions WHERE base_log_id = ? AND version = ?",
                               [log_id, own]).fetchall()
    if not rows:
        known = version_names(archive, log_id)
        hint = f"; its versions: {', '.join(known)}" if known else "; it has no versions"
        raise LogNotFound(f"no version {own!r} of {visible(base)}{hint}")
    return LogName(base, own, int(rows[0][0]))


def resolve_version(archive: Archive, log: str, version: str | None = None) -> LogName:
    """As `resolve`, for what only a version has (a recipe, provenance, a
    published file): the original itself is refused."""
    named = resolve(archive, log, version)
    if named.version is None:
        known = version_names(archive, named.log_id)
        hint = f"its versions: {', '.join(known)}" if known else "it has no versions"
        raise UsageError(f"{visible(named.log)} is the original log, not a version; name a version ({hint})")
    return named


def lineage(archive: Archive, name: str) -> list[int]:
    """The version's id and those of the versions it was built from, newest
    first; empty for an original. Their decisions made the version's jobs."""
    ids = []
    log_id = archive.log_id(name)
    while True:
        row = archive.con.execute("SELECT source_log_id FROM versions WHERE log_id = ?", [log_id]).fetchall()
        if not row:
            return ids
        ids.append(log_id)
        log_id = row[0][0]


def version_names(archive: Archive, log_id: int) -> list[str]:
    """The own names of an original's versions, oldest first."""
    return [r[0] for r in archive.con.execute(
        "SELECT version FROM versions WHERE base_log_id = ? ORDER BY log_id", [log_id]).fetchall()]


def _original_id(archive: Archive, name: str) -> int:
    rows = archive.con.execute(
        "SELECT log_id FROM logs WHERE name = ? AND log_id NOT IN (SELECT log_id FROM versions)",
        [name]).fetchall()
    if rows:
        return int(rows[0][0])
    known = [r[0] for r in archive.con.execute(
        "SELECT name FROM logs WHERE log_id NOT IN (SELECT log_id FROM versions) ORDER BY name").fetchall()]
    raise LogNotFound(f"no log named {name!r}{known_hint(name, known)}")
