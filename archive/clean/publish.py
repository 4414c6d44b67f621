"""Publishing a version: an SWF file that documents itself, and a promise.

The file is the version as exported (store/export.py): the original header
lines, the `Note` lines of its steps, then the kept jobs with their original
numbers, each job line as the original file wrote it unless the recipe
changed a value in it. Once published, the version cannot be rebuilt
differently under its name.

A version without jobs is not published: an SWF file without job lines is
not a log (wla's own ingest refuses it), so no one could read it back. And
the text is checked before it is written: its job lines are exactly the
version's, so nothing in a header line can have become a job.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from ..kernel.errors import EmptyVersion, WlaError
from ..kernel.output import write_bytes
from ..resolve import resolve_version
from ..store.export import swf_bytes
from ..store.file import Archive, transaction


@dataclass(frozen=True)
class Published:
    name: str
    path: str
    jobs: int
    sha256: str  # of the SWF text
    first: bool  # published for the first time


def publish(archive: Archive, log: str, version: str | None, path: str | os.PathLike) -> Published:
    """Write the version (LOG@V, or LOG and V) to `path` and mark it published."""
    archive.require_writable()
    named = resolve_version(archive, log, version)
    name, vid = named.name, named.log_id
    jobs = int(archive.con.execute("SELECT count(*) FROM jobs WHERE log_id = ?", [vid]).fetchall()[0][0])
    if jobs == 0:
        raise EmptyVersion(f"{name} has no jobs (its recipe dropped every one); a file without job "
                           "lines is not an SWF log and could not be ingested back, so it is not "
                           "published")
    text = swf_bytes(archive, name)
    _check_job_lines(name, text, jobs)
    sha = hashlib.sha256(text).hexdigest()
    before = archive.con.execute("SELECT published_sha256 FROM versions WHERE log_id = ?", [vid]).fetchall()[0][0]
    if before is not None and before != sha:
        raise WlaError(f"{name} was published with sha256 {before[:12]} and now reads {sha[:12]}; "
                       "the archive has been changed by hand")
    write_bytes(path, text)
    if before is None:
        with transaction(archive.con):
            archive.con.execute("UPDATE versions SET published_at = now(), published_sha256 = ? "
                                "WHERE log_id = ?", [sha, vid])
    return Published(name, str(path), jobs, sha, before is None)


def _check_job_lines(name: str, text: bytes, jobs: int) -> None:
    """The text has as many job lines as the version has jobs, counted as
    the reader counts them (lines split at \\n; ';' starts a comment)."""
    found = sum(1 for line in text.split(b"\n") if line.strip() and not line.lstrip().startswith(b";"))
    if found != jobs:
        raise WlaError(f"{name}: the SWF text has {found} job lines for {jobs} jobs; a header line "
                       "of the archive holds a line break (not published)")
