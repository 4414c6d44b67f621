"""Publishing a version: an SWF file that documents itself, and a promise.

The file is the version as exported: the original header lines, the `Note`
lines of its steps, then the kept jobs with their original numbers. Once
published, the version cannot be rebuilt differently under its name.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from .errors import WlaError
from .export import swf_text, write_bytes
from .store import Archive, transaction
from .versions import version_name


@dataclass(frozen=True)
class Published:
    name: str
    path: str
    jobs: int
    sha256: str  # of the SWF text
    first: bool  # published for the first time


def publish(archive: Archive, log: str, version: str, path: str | os.PathLike) -> Published:
    archive.require_writable()
    name = version_name(archive, log, version)
    vid = archive.log_id(name)
    text = swf_text(archive, name)
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    before = archive.con.execute("SELECT published_sha256 FROM versions WHERE log_id = ?", [vid]).fetchall()[0][0]
    if before is not None and before != sha:
        raise WlaError(f"{name} was published with sha256 {before[:12]} and now reads {sha[:12]}; "
                       "the archive has been changed by hand")
    write_bytes(path, text.encode("utf-8"))
    if before is None:
        with transaction(archive.con):
            archive.con.execute("UPDATE versions SET published_at = now(), published_sha256 = ? "
                                "WHERE log_id = ?", [sha, vid])
    jobs = archive.con.execute("SELECT jobs FROM logs WHERE log_id = ?", [vid]).fetchall()[0][0]
    return Published(name, str(path), int(jobs), sha, before is None)
