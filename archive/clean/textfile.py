"""Small text files wla reads whole: recipes and rule files.

Only a regular file is opened (rawfile.open_regular: a FIFO is never waited
on), at most MAX_TEXT_BYTES of it, and it must be UTF-8; every refusal is one
line naming the file, and the line where there is one (FILE:LINE: ...).
"""
from __future__ import annotations

import os

from ..errors import InputError, WlaError, visible
from ..swf.rawfile import open_regular

MAX_TEXT_BYTES = 16 << 20  # a recipe at the limits of its predicates is under 2 MiB


def read_text(path: str | os.PathLike, what: str, error: type[WlaError]) -> str:
    """The file's text; `what` names it in messages ("recipe"), `error` is
    the exception raised."""
    name = os.fspath(path)
    shown = visible(name)
    try:
        fd = open_regular(name)
    except InputError as e:
        raise error(str(e)) from None
    except ValueError:  # a NUL in the name
        raise error(f"{shown}: not a file name") from None
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_TEXT_BYTES + 1)
    except OSError as e:
        raise error(f"{shown}: cannot read the {what}: {e.strerror or e}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_TEXT_BYTES:
        raise error(f"{shown}: more than {MAX_TEXT_BYTES >> 20} MiB; a {what} is a small text file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise error(f"{shown}:{line}: not UTF-8: byte 0x{data[e.start]:02x} at column {column}; "
                    f"a {what} is UTF-8 text") from None
    return text.removeprefix("\ufeff")
