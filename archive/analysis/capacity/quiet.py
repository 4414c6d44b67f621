"""Keeping a C library's stray prints off wla's standard output."""
from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from typing import Iterator


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """HiGHS 1.12 prints a stray debugging line on the C-level standard output
    now and then; keep it out of what wla writes there (tables, JSON)."""
    try:
        libc = ctypes.CDLL(None)
        sys.stdout.flush()
        saved = os.dup(1)
    except (AttributeError, OSError, ValueError):  # no C library to flush, or no fd 1
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        libc.fflush(None)
        os.dup2(saved, 1)
        os.close(saved)

