"""Is a downloaded file the one the catalog describes: its size, then its
sha256, and whether it is gzip'd SWF at all.

The size is checked first because it is free and names the usual fault (a
download cut short); the sum then catches wrong bytes of the right length.
Many logs have no size or sum in the catalog, and a server answers a missing
file with an HTML page as readily as with a 404: before a file is kept
under a log's name, where every later pull would take it for the log, its
start is inflated and its first lines read as SWF, and a file without a sum
is inflated to its end (within the reader's ratio), so that a cut or
altered one is not kept either. Files are opened without following a link
or waiting on a FIFO.
"""
from __future__ import annotations

import hashlib
import os
import zlib
from dataclasses import dataclass
from typing import BinaryIO

from ..kernel.errors import InputError, LineError
from ..swf.limits import INFLATE_FLOOR, INFLATE_RATIO
from ..swf.lineparse import parse_line
from ..swf.rawfile import GZIP_MAGIC, not_regular

CHUNK = 1 << 20
PROBE = 1 << 16  # bytes of text inflated from the start of a file to tell a log from something else
PROBE_JOBS = 10  # job lines read there (every comment line before them is read too)


@dataclass(frozen=True)
class Checked:
    size: int
    sha256: str
    verified: bool  # False: the catalog gives neither size nor sum to check against


def _open(path: str | os.PathLike, where: str) -> BinaryIO:
    """`path` open to read if it is a regular file; never through a link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise InputError(where, None, f"cannot read the file ({e.strerror or e})") from None
    kind = not_regular(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        raise InputError(where, None, f"is {kind}, not a regular file")
    return os.fdopen(fd, "rb")


def file_sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with _open(path, os.fspath(path)) as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def check(path: str | os.PathLike, where: str, size: int | None, sha256: str | None) -> Checked:
    """The file's size and sum, refused (InputError naming `where`) when
    either differs from the catalog's; both are named in the message."""
    with _open(path, where) as fh:
        actual_size = os.fstat(fh.fileno()).st_size
        if size is not None and actual_size != size:
            raise InputError(where, None, f"{actual_size:,} bytes, the catalog says {size:,}")
        digest = hashlib.sha256()
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    actual_sha = digest.hexdigest()
    if sha256 is not None and actual_sha != sha256:
        raise InputError(where, None, f"sha256 {actual_sha} differs from the catalog's sha256 {sha256}")
    return Checked(actual_size, actual_sha, size is not None or sha256 is not None)


def check_content(path: str | os.PathLike, where: str, whole: bool = True) -> None:
    """Refuse (InputError naming `where`) a file that is not gzip data whose
    first lines are SWF: comment lines (;) or job lines of 18 numbers.
    `whole`: also inflate it to the end, which a file without a known sum
    needs (gzip's own check is all there is)."""
    with _open(path, where) as fh:
        head = fh.read(PROBE)
        if head[:2] != GZIP_MAGIC:
            raise InputError(where, None, _not_gzip(head))
        text, ended = _inflate(fh, head, where, whole)
    lines = text.split(b"\n")
    if not ended:
        lines.pop()  # cut by the probe
    _check_lines(where, lines)


def _inflate(fh: BinaryIO, head: bytes, where: str, whole: bool) -> tuple[bytes, bool]:
    """The first PROBE bytes of text, and whether the text ends there; with
    `whole`, every member inflated (the text beyond the probe dropped)."""
    text, read, made = b"", len(head), 0
    inflater, piece = zlib.decompressobj(wbits=31), head
    try:
        while True:
            if len(piece) < 2:  # (two bytes: enough to tell another member from padding)
                more = fh.read(CHUNK)
                read += len(more)
                piece += more
                if not piece:
                    if inflater.eof:
                        return text, made <= PROBE
                    if not whole:
                        return text, False
                    raise InputError(where, None, "the gzip data is cut short (its end is missing)")
            if inflater.eof:  # another member, or the padding some writers leave
                if piece[:2] != GZIP_MAGIC:
                    if piece.strip(b"\x00"):
                        raise InputError(where, None, "bytes after the end of the gzip data")
                    piece = b""
                    continue
                inflater = zlib.decompressobj(wbits=31)
            out = inflater.decompress(piece, CHUNK)
            piece = inflater.unconsumed_tail or inflater.unused_data
            made += len(out)
            if len(text) < PROBE:
                text += out[:PROBE - len(text)]
            if not whole and made >= PROBE:
                return text, False
            if made > max(INFLATE_FLOOR, INFLATE_RATIO * read):
                raise InputError(where, None, f"gzip data inflates to over {INFLATE_RATIO} times its size; "
                                              "no log compresses like that")
    except zlib.error as e:
        raise InputError(where, None, f"does not decompress as gzip ({e})") from None


def _check_lines(where: str, lines: list[bytes]) -> None:
    jobs = 0
    for number, line in enumerate(lines, 1):
        bare = line.strip()
        if not bare or bare.startswith(b";"):
            continue
        try:
            parse_line(bare)
        except LineError as e:
            kind = "an HTML page" if _is_html(bare) else "not an SWF log"
            raise InputError(where, number, f"{kind} inside the gzip data, {e.reason}",
                             bare.decode("latin-1")) from None
        jobs += 1
        if jobs == PROBE_JOBS:
            return
    if not any(line.strip() for line in lines):
        raise InputError(where, None, "the gzip data holds no SWF line")


def _not_gzip(head: bytes) -> str:
    if not head:
        return "empty, not a gzip file"
    if _is_html(head):
        return "an HTML page, not a gzip file"
    return f"not a gzip file (it starts with {head[:16]!r})"


def _is_html(text: bytes) -> bool:
    start = text.lstrip(b"\xef\xbb\xbf \t\r\n")[:512].lower()
    return start.startswith((b"<!doctype html", b"<html", b"<head", b"<body")) or b"<html" in start
