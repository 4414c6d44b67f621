"""What a name may be: of a log, of a version, of a rule.

A name is written back into files (the header of a published version says
which log and version it is) and printed on one line, so it must be one
line of visible text: not empty, no blank at either end, no control, format
or line-separator character (Unicode categories Cc, Cf, Zl, Zp) and no lone
surrogate, at most MAX_NAME characters. A log name has no '@', which
separates LOG@VERSION; a version name is letters, digits, '.', '_' and '-'.
"""
from __future__ import annotations

import difflib
import re
import unicodedata
from typing import Iterable

from .errors import InvalidName

MAX_NAME = 128  # characters; the longest log of the Parallel Workloads Archive is 36
ORIGINAL = "original"  # names the log itself where a version is expected
_REFUSED = {"Cc": "a control character", "Cf": "a format character", "Cs": "a surrogate",
            "Zl": "a line separator", "Zp": "a paragraph separator"}
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _problem(name: str) -> str | None:
    """Why `name` is not a name, or None."""
    if not isinstance(name, str):
        return f"is not text ({type(name).__name__})"
    if not name:
        return "is empty"
    if len(name) > MAX_NAME:
        return f"is {len(name)} characters long; at most {MAX_NAME}"
    if name != name.strip():
        return "begins or ends with a blank"
    for i, ch in enumerate(name):
        what = _REFUSED.get(unicodedata.category(ch))
        if what is not None:
            return f"holds {what} (U+{ord(ch):04X}) at position {i + 1}"
    return None


def _refuse(kind: str, name: str, why: str, where: str) -> InvalidName:
    prefix = f"{where}: " if where else ""
    shown = repr(name) if not isinstance(name, str) or len(name) <= 80 else repr(name[:77] + "...")
    return InvalidName(f"{prefix}{kind} {shown} {why}")


def check_name(name: str, kind: str = "name", where: str = "") -> str:
    """`name` if it is one line of visible text of a sensible length."""
    why = _problem(name)
    if why is not None:
        raise _refuse(kind, name, why, where)
    return name


def check_log_name(name: str, where: str = "") -> str:
    """A name for a log: a name without '@' (which separates LOG@VERSION)."""
    check_name(name, "log name", where)
    if "@" in name:
        raise _refuse("log name", name, "holds '@', which separates a log from its version "
                      "(LOG@VERSION)", where)
    return name


def check_version_name(name: str, where: str = "") -> str:
    """A version's own name (the part after '@'): letters, digits, '.', '_', '-'."""
    check_name(name, "version name", where)
    if not _VERSION.match(name):
        raise _refuse("version name", name, "must be letters, digits, '.', '_' or '-' "
                      "(beginning with a letter or digit)", where)
    return name


def check_log_ref(name: str, where: str = "") -> str:
    """A log or a version as a recipe names its source: LOG or LOG@VERSION."""
    check_name(name, "log", where)
    log, at, version = name.partition("@")
    check_log_name(log, where)
    if at:
        check_version_name(version, where)
    return name


def split_name(name: str) -> tuple[str, str | None]:
    """LOG -> (LOG, None); LOG@VERSION -> (LOG, VERSION)."""
    log, at, version = name.partition("@")
    return log, (version if at else None)


def full_name(log: str, version: str | None) -> str:
    """The name the archive keeps a log or version under: LOG, or LOG@VERSION."""
    return log if version is None else f"{log}@{version}"


def for_shell(name: str) -> str:
    """A name as one shell word, for a command a user copies and pastes: a
    name may hold ';', '$(...)' or spaces, which must paste as the name."""
    import shlex

    return shlex.quote(name)


# Up to this many names, a refusal lists them all; beyond, the closest.
LISTED = 5


def closest(name: str, known: Iterable[str], n: int = 4) -> list[str]:
    """The known names nearest to `name`, in any case: spelled alike, then
    holding it (SDSC-SP2 finds SDSC-SP2-1998-4.2-cln)."""
    lower = {k.lower(): k for k in known}
    wanted = name.lower()
    scored = sorted(((difflib.SequenceMatcher(None, wanted, k).ratio(), k) for k in lower), key=lambda x: -x[0])
    best = scored[0][0] if scored else 0.0
    # as alike as the best, nearly: a typo's log, not every log sharing "-cln"
    close = [k for r, k in scored if r >= max(0.6, best - 0.05)]
    close += [k for k in lower if wanted and wanted in k and k not in close]
    return [lower[k] for k in close[:n]]


def known_hint(name: str, known: list[str]) -> str:
    """What the refusal of an unknown log name adds: every name when the
    archive holds few, else the closest (or that none is alike) and how
    many it holds."""
    if not known:
        return "; the archive is empty"
    if len(known) <= LISTED:
        return f"; the archive holds: {', '.join(known)}"
    close = closest(name, known)
    if close:
        return f"; closest: {', '.join(close)} (of the archive's {len(known):,} logs)"
    return f"; none of the archive's {len(known):,} logs is named alike"
