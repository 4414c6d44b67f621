"""Is a downloaded file the one the catalog describes: its size, then its sha256.

The size is checked first because it is free and names the usual fault (a
download cut short); the sum then catches wrong bytes of the right length.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from ..errors import InputError

CHUNK = 1 << 20


@dataclass(frozen=True)
class Checked:
    size: int
    sha256: str
    verified: bool  # False: the catalog gives neither size nor sum to check against


def file_sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def check(path: str | os.PathLike, where: str, size: int | None, sha256: str | None) -> Checked:
    """The file's size and sum, refused (InputError naming `where`) when
    either differs from the catalog's; both are named in the message."""
    actual_size = os.stat(path).st_size
    if size is not None and actual_size != size:
        raise InputError(where, None, f"{actual_size:,} bytes, the catalog says {size:,}")
    actual_sha = file_sha256(path)
    if sha256 is not None and actual_sha != sha256:
        raise InputError(where, None, f"sha256 {actual_sha} differs from the catalog's sha256 {sha256}")
    return Checked(actual_size, actual_sha, size is not None or sha256 is not None)
