"""A file's SWF text, read safely and within bounds.

Only a regular file is ever opened: a FIFO, a device, a socket or a folder is
refused from its status alone, so nothing waits on a pipe or reads a device
without end, and the descriptor is checked again after opening in case the
name changed in between. Reading goes piece by piece: gzip data is inflated a
bounded piece at a time, and a line longer than any SWF line or text far
beyond gzip's ratio for real logs is refused as soon as it is seen.
"""
from __future__ import annotations

import errno
import os
import stat
import zlib

from ..kernel.errors import InputError
from .limits import INFLATE_FLOOR, INFLATE_RATIO, MAX_LINE_BYTES

GZIP_MAGIC = b"\x1f\x8b"
IN_STEP = 1 << 16  # compressed bytes fed to zlib at once
OUT_STEP = 1 << 22  # most text one zlib call may return
READ_STEP = 1 << 22  # bytes of a plain file read at once

_NOT_REGULAR = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_regular(mode: int) -> str | None:
    """What a file of this mode is when it is not a regular file (None if it is)."""
    if stat.S_ISREG(mode):
        return None
    for test, kind in _NOT_REGULAR:
        if test(mode):
            return kind
    return "not a regular file"


def _os_error(path: str, e: OSError) -> InputError:
    if e.errno == errno.ELOOP:
        return InputError(path, None, "symbolic link loop")
    if e.errno == errno.ENOENT:
        if os.path.islink(path):
            return InputError(path, None, "symbolic link to a file that does not exist")
        return InputError(path, None, "no such file or folder")
    return InputError(path, None, f"cannot read file ({e.strerror or e})")


def _refuse_kind(path: str, mode: int) -> None:
    kind = not_regular(mode)
    if kind is not None:
        raise InputError(path, None, f"is {kind}, not a regular file")


def open_regular(path: str) -> int:
    """A descriptor open for reading on `path`, which must be a regular file.
    O_NONBLOCK makes even a FIFO slipped in after the stat open at once."""
    try:
        _refuse_kind(path, os.stat(path).st_mode)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise _os_error(path, e) from None
    try:
        _refuse_kind(path, os.fstat(fd).st_mode)
    except BaseException:
        os.close(fd)
        raise
    return fd


class _Text:
    """The text read so far; refuses a line longer than MAX_LINE_BYTES as
    soon as its bytes arrive, so at most that much more is ever read."""

    def __init__(self, path: str):
        self.path = path
        self.buf = bytearray()
        self.size = 0  # bytes of text in buf (all of it)
        self.open_line = 0  # bytes of the last, unfinished line

    def fail(self, problem: str) -> InputError:
        """An InputError at the line the text read so far ends in."""
        return InputError(self.path, self.buf.count(b"\n", 0, self.size) + 1, problem)

    def filled(self, end: int) -> None:
        """Bytes up to `end` of buf now hold text: check their lines."""
        begin, self.size = self.size, end
        buf = self.buf
        first = buf.find(b"\n", begin, end)
        if first < 0:
            self.open_line += end - begin
            if self.open_line > MAX_LINE_BYTES:
                self._too_long(end - self.open_line)
            return
        if self.open_line + (first - begin) > MAX_LINE_BYTES:
            self._too_long(begin - self.open_line)
        last = buf.rfind(b"\n", first, end)
        # Every window of half the limit holds a newline, or else a line
        # around it is measured: no line between `first` and `last` is longer.
        half = MAX_LINE_BYTES // 2
        k = first + 1
        while k < last:
            stop = min(k + half, last)
            if buf.find(b"\n", k, stop) >= 0:
                k = stop
                continue
            before = buf.rfind(b"\n", first, k)
            after = buf.find(b"\n", stop, last + 1)
            if after - before - 1 > MAX_LINE_BYTES:
                self._too_long(before + 1)
            k = after + 1
        self.open_line = end - last - 1
        if self.open_line > MAX_LINE_BYTES:
            self._too_long(last + 1)

    def _too_long(self, start: int) -> None:
        head = bytes(self.buf[start:start + 40]).decode("ascii", "backslashreplace")
        raise InputError(self.path, self.buf.count(b"\n", 0, start) + 1,
                         f"line longer than {MAX_LINE_BYTES:,} bytes (an SWF line needs a few "
                         "hundred at most)", head)


def read_text(path: str | os.PathLike) -> tuple[bytearray, int]:
    """The SWF text of a file, gzip'd or not, and the file's own size in bytes."""
    path = os.fspath(path)
    fd = open_regular(path)
    try:
        head = _read(path, fd, IN_STEP)
        if not head:
            raise InputError(path, None, "file is empty")
        if head[:2] == GZIP_MAGIC:
            text, size = _inflate(path, fd, head)
            if not text.size:
                raise InputError(path, None, "file is empty (no data inside the gzip stream)")
        elif path.lower().endswith(".gz"):
            raise InputError(path, None, "named .gz but is not gzip data")
        else:
            text = _read_plain(path, fd, head)
            size = text.size
    finally:
        os.close(fd)
    return text.buf, size


def _read(path: str, fd: int, n: int) -> bytes:
    try:
        return os.read(fd, n)
    except OSError as e:
        raise InputError(path, None, f"cannot read file ({e.strerror or e})") from None


def _read_plain(path: str, fd: int, head: bytes) -> _Text:
    """Read a piece at a time into one growing buffer, so that an overlong
    line stops the reading; nothing is allocated ahead from the file's size
    (a sparse file may claim any size)."""
    text = _Text(path)
    text.buf += head
    text.filled(len(head))
    piece = bytearray(READ_STEP)
    view = memoryview(piece)
    try:
        while True:
            try:
                n = os.readv(fd, [piece])
            except OSError as e:
                raise InputError(path, None, f"cannot read file ({e.strerror or e})") from None
            if n == 0:
                return text
            text.buf += view[:n]
            text.filled(text.size + n)
    finally:
        view.release()


class _Inflater:
    """Inflates gzip members read from a descriptor, feeding the text to a
    _Text and refusing text far beyond any real log's compression ratio."""

    def __init__(self, path: str, fd: int, head: bytes):
        self.path, self.fd = path, fd
        self.pending = head  # read, not yet given to zlib
        self.read_bytes = len(head)
        self.text = _Text(path)

    def more(self) -> bytes:
        data = _read(self.path, self.fd, IN_STEP)
        self.read_bytes += len(data)
        return data

    def member(self) -> None:
        """Inflate one gzip member; `pending` keeps what follows it."""
        d = zlib.decompressobj(wbits=31)
        while not d.eof:
            piece = self.pending or self.more()
            self.pending = b""
            if not piece:
                raise self.text.fail("gzip data is truncated")
            while True:
                saved = d.copy()
                try:
                    out = d.decompress(piece, OUT_STEP)
                except zlib.error as e:
                    self._replay(saved, piece)
                    raise self.text.fail(f"corrupt gzip data ({e})") from None
                self._take(out, unused=len(d.unconsumed_tail) + len(d.unused_data))
                piece = d.unconsumed_tail
                if d.eof or (not piece and len(out) < OUT_STEP):
                    break
        self.pending = d.unused_data

    def _take(self, out: bytes, unused: int) -> None:
        if not out:
            return
        self.text.buf += out
        self.text.filled(self.text.size + len(out))
        used = self.read_bytes - unused
        if self.text.size > max(INFLATE_FLOOR, INFLATE_RATIO * used):
            raise self.text.fail(
                f"gzip data inflates to over {INFLATE_RATIO} times its size "
                f"({self.text.size:,} bytes of text from {used:,}); no log compresses "
                "like that, so it is refused")

    def _replay(self, saved: "zlib._Decompress", piece: bytes) -> None:
        """Feed the piece that broke the stream a byte at a time, keeping the
        text before the break, so the error names the line it broke on."""
        unused = len(piece)
        try:
            for b in range(len(piece)):
                unused -= 1
                self._take(saved.decompress(piece[b:b + 1]), unused)
        except zlib.error:
            pass

    def next_member(self) -> bool:
        """Whether another gzip member follows; anything but NUL padding after
        the last one is refused."""
        while len(self.pending) < 2:
            more = self.more()
            if not more:
                break
            self.pending += more
        if self.pending[:2] == GZIP_MAGIC:
            return True
        data = self.pending
        while data:
            if data.strip(b"\x00"):
                raise self.text.fail("bytes after the end of the gzip data")
            data = self.more()
        return False


def _inflate(path: str, fd: int, head: bytes) -> tuple[_Text, int]:
    inflater = _Inflater(path, fd, head)
    inflater.member()
    while inflater.next_member():
        inflater.member()
    return inflater.text, inflater.read_bytes
