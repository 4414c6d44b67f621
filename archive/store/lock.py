"""Who holds the archive file's lock, asked of the operating system.

DuckDB reports every failure to open a file as one exception type
(IOException), a lock held by another process among them. Rather than read
its message, wla asks the kernel whether a lock that conflicts with the one
it wanted is held on the file, and by which process (fcntl F_GETLK, the
record locks DuckDB takes). F_GETLK only looks: it takes no lock.
"""
from __future__ import annotations

import os
import struct
import sys

try:
    import fcntl
except ImportError:  # no POSIX record locks on this system
    fcntl = None  # type: ignore[assignment]

# struct flock, as the C library lays it out.
if sys.platform.startswith("linux"):
    _FLOCK, _ORDER = "hhqqi4x", ("type", "whence", "start", "len", "pid")
elif sys.platform == "darwin" or "bsd" in sys.platform:
    _FLOCK, _ORDER = "qqihh", ("start", "len", "pid", "type", "whence")
else:
    _FLOCK = None


def lock_holder(path: str, write: bool) -> int | None:
    """The process holding a lock on `path` that conflicts with a write lock
    (`write`) or a read lock: its PID, 0 if the system does not say, None
    when no such lock is held or the system cannot be asked."""
    if fcntl is None or _FLOCK is None:
        return None
    wanted = fcntl.F_WRLCK if write else fcntl.F_RDLCK
    fields = {"type": wanted, "whence": os.SEEK_SET, "start": 0, "len": 0, "pid": 0}  # the whole file
    try:
        fd = os.open(path, os.O_RDONLY)
    except (OSError, ValueError):
        return None
    try:
        found = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack(_FLOCK, *(fields[k] for k in _ORDER)))
    except OSError:
        return None
    finally:
        # No lock of this process is dropped by this close: DuckDB refuses a
        # second connection to a file the process holds before it touches it.
        os.close(fd)
    got = dict(zip(_ORDER, struct.unpack(_FLOCK, found)))
    if got["type"] == fcntl.F_UNLCK:
        return None
    return max(int(got["pid"]), 0)
