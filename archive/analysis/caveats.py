"""A log's known issues: the caveats wla ships (caveats.toml, package data)
and the user's notes, so that what is known of a log travels with it.

The caveats are data, not code: what the Parallel Workloads Archive's
maintainers report of each log, each with the section of their paper that
says it. A caveat names logs without their version (SDSC-SP2-1998), so the
archive's every file of a log, and every version wla builds of one, finds
it: a name's log is everything before its year and the version after it.
The file is checked when read, so that a damaged entry is named (file and
entry) instead of showing half a caveat.
"""
from __future__ import annotations

import functools
import os
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from ..kernel.errors import WlaError
from ..kernel.names import split_name

if TYPE_CHECKING:
    from ..store.file import Archive

CAVEATS = "caveats.toml"
KEYS = ("logs", "section", "topic", "text")
_LOG = re.compile(r"(.+?-(?:19|20)\d\d)(?=-|$)")  # the log: its name up to its year (SDSC-SP2-1998)
_SECTION = re.compile(r"\d+(\.\d+)*")
MAX_TOPIC, MAX_TEXT = 60, 600


@dataclass(frozen=True)
class Issue:
    """One known issue of a log: a caveat wla ships (`source` 'paper', with
    the paper's section) or a note of the user's ('user', with its day)."""

    source: str  # "paper" or "user"
    topic: str  # a few words; a user's note has none
    text: str
    section: str | None = None  # the paper's section (3.3)
    noted_on: str | None = None  # YYYY-MM-DD: the day the user noted it

    def to_dict(self) -> dict[str, object]:
        return {"source": self.source, "section": self.section, "noted_on": self.noted_on,
                "topic": self.topic, "text": self.text}

    def where(self) -> str:
        """Where it comes from, as a reader sees it: 'paper §3.3', 'your note of 2024-05-01'."""
        return f"paper §{self.section}" if self.source == "paper" else f"your note of {self.noted_on}"


def base_log(name: str) -> str | None:
    """The log a name is of, without version: SDSC-SP2-1998 for
    SDSC-SP2-1998-4.2-cln@wla1; None for a name without a year (lublin_256)."""
    m = _LOG.match(split_name(name)[0])
    return m.group(1) if m else None


def load_caveats(path: str | os.PathLike | None = None) -> dict[str, tuple[Issue, ...]]:
    """Each log's caveats, in the order of the paper's sections (of the file
    within one): the file shipped with wla, or
    the one at `path`. A damaged file or entry is refused (WlaError naming
    the file and the entry)."""
    if path is None:
        return _shipped()
    return _read(os.fspath(path), _text(Path(path), os.fspath(path)))


@functools.cache
def _shipped() -> dict[str, tuple[Issue, ...]]:
    source = resources.files(__package__).joinpath(CAVEATS)
    return _read(str(source), source.read_text(encoding="utf-8"))


def _text(path: Path, where: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise WlaError(f"{where}: cannot read the caveats: {e}") from None


def _read(where: str, text: str) -> dict[str, tuple[Issue, ...]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise WlaError(f"{where}: not a TOML file of caveats: {e}") from None
    unknown = sorted(set(data) - {"caveat"})
    if unknown:
        raise WlaError(f"{where}: unknown table or key {unknown[0]!r} (only [[caveat]] entries)")
    entries = data.get("caveat", [])
    if not isinstance(entries, list):
        raise WlaError(f"{where}: [[caveat]] entries expected")
    by_log: dict[str, list[Issue]] = {}
    for i, raw in enumerate(entries, 1):
        logs, issue = _entry(f"{where}: caveat entry {i}", raw)
        for log in logs:
            by_log.setdefault(log, []).append(issue)
    return {log: tuple(sorted(found, key=_in_paper)) for log, found in by_log.items()}


def _in_paper(issue: Issue) -> list[int]:
    """Where the issue is in the paper, to list a log's issues in the paper's order."""
    return [int(part) for part in (issue.section or "0").split(".")]


def _entry(at: str, raw: object) -> tuple[list[str], Issue]:
    if not isinstance(raw, dict):
        raise WlaError(f"{at}: a table expected")
    unknown = sorted(set(raw) - set(KEYS))
    if unknown:
        raise WlaError(f"{at}: unknown key {unknown[0]!r} (keys: {', '.join(KEYS)})")
    missing = [k for k in KEYS if k not in raw]
    if missing:
        raise WlaError(f"{at}: no {missing[0]!r}")
    logs, section, topic, text = (raw[k] for k in KEYS)
    if not isinstance(logs, list) or not logs or not all(isinstance(n, str) for n in logs):
        raise WlaError(f"{at}: logs must be a list of log names")
    for name in logs:
        if base_log(name) != name:
            raise WlaError(f"{at}: {name!r} is not a log's name without its version (as SDSC-SP2-1998)")
    if not isinstance(section, str) or not _SECTION.fullmatch(section):
        raise WlaError(f"{at}: section must be the paper's section as a text (\"3.3\")")
    for key, value, most in (("topic", topic, MAX_TOPIC), ("text", text, MAX_TEXT)):
        if not isinstance(value, str) or not value.strip() or value != value.strip():
            raise WlaError(f"{at}: {key} must be a text, not empty, without blanks around it")
        if not value.isprintable():
            raise WlaError(f"{at}: {key} must be one line of visible text")
        if len(value) > most:
            raise WlaError(f"{at}: {key} has {len(value)} characters; at most {most}")
    return logs, Issue("paper", topic, text, section)


def caveats_of(name: str) -> tuple[Issue, ...]:
    """The shipped caveats of the log `name` is of, whatever its version."""
    log = base_log(name)
    return _shipped().get(log, ()) if log else ()


def known_issues(archive: Archive, name: str) -> list[Issue]:
    """What is known of the log or version `name` the archive holds: the
    shipped caveats of its log, then the user's notes on its original, in
    the order they were taken."""
    from ..resolve import resolve
    from ..store.notes import notes

    original = resolve(archive, name).log
    return [*caveats_of(name), *(Issue("user", "", n.text, noted_on=n.noted_on.isoformat())
                                 for n in notes(archive, original))]
