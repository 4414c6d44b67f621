"""Small text files wla reads whole: recipes, rule files, sweep configs.

Only a regular file is opened (rawfile.open_regular: a FIFO is never waited
on), at most MAX_TEXT_BYTES of it, and it must be UTF-8; every refusal is one
line naming the file, and the line where there is one (FILE:LINE: ...).
"""
from __future__ import annotations

import os
import re
import tomllib

from ..kernel.errors import InputError, WlaError, visible
from ..swf.rawfile import open_regular

MAX_TEXT_BYTES = 16 << 20  # a recipe at the limits of its predicates is under 2 MiB
MAX_NESTING = 32  # arrays and tables within each other: a recipe or config needs 3
_TOML_WHERE = re.compile(r"\s*\((?:at line (\d+), column (\d+)|at end of document)\)$")


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


def parse_toml(text: str, file: str, error: type[WlaError]) -> dict:
    """TOML's tables; a refusal is FILE:LINE: what (column N), and a value
    nested more than MAX_NESTING deep is refused (tomllib would recurse on)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _toml_error(e, text, file, error) from None
    except RecursionError:
        raise error(f"{file}: nested more than {MAX_NESTING} levels deep") from None
    if _depth(data) > MAX_NESTING:
        raise error(f"{file}: nested more than {MAX_NESTING} levels deep")
    return data


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _toml_error(e: tomllib.TOMLDecodeError, text: str, file: str, error: type[WlaError]) -> WlaError:
    """tomllib's complaint as FILE:LINE: what (it says the line in parentheses)."""
    message = str(e).splitlines()[0] if str(e) else "not TOML"
    m = _TOML_WHERE.search(message)
    if m is None:
        return error(f"{file}: not TOML: {message}")
    line = int(m.group(1)) if m.group(1) else max(1, len(text.splitlines()))
    column = f" (column {m.group(2)})" if m.group(2) else " (at the end)"
    return error(f"{file}:{line}: not TOML: {message[:m.start()]}{column}")
