"""The logs `wla pull` knows: catalog.toml, shipped with wla, read and checked.

The catalog is data, not code, so that a new log of the Parallel Workloads
Archive is one entry; it is checked when read, so that a bad entry is named
before anything is downloaded or written. Each file is a log's original or
one of its cleaned versions; a log's name without its version (LOG, the
name before `-VERSION`) names its original, the one file every study of
the log can start from.
"""
from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Iterable
from urllib.parse import urljoin, urlsplit

from ..kernel.errors import ParameterError, UsageError, WlaError, visible
from ..kernel.names import check_log_name, closest
from ..swf.reader import log_name

URL_ENV = "WLA_PULL_URL"
CATALOG = "catalog.toml"
_SHA256 = re.compile(r"[0-9a-f]{64}")
_VERSION = re.compile(r"\d+(\.\d+)*")
KINDS = ("original", "cleaned")
CLEANED = "-cln"  # the archive's mark of a cleaned version's file


@dataclass(frozen=True)
class Entry:
    """One log of the catalog: where it is below the base URL and, when
    known, what its .gz file must be."""

    name: str
    path: str  # relative to the base URL: FOLDER/FILE.swf.gz
    size: int | None = None
    sha256: str | None = None
    version: str = ""  # the archive's version of the file: 4 (an original), 4.2 (cleaned from 4)
    kind: str = "original"  # or "cleaned"

    @property
    def log(self) -> str:
        """The log's name without its version: SDSC-SP2-1998."""
        tail = f"-{self.version}" + (CLEANED if self.kind == "cleaned" else "")
        return self.name[: -len(tail)] if self.version and self.name.endswith(tail) else self.name

    @property
    def source_version(self) -> str:
        """The version of the original a cleaned version was made from (4.2: 4); an original's own."""
        return self.version.rsplit(".", 1)[0] if self.kind == "cleaned" else self.version

    @property
    def file_name(self) -> str:
        return PurePosixPath(self.path).name

    def url(self, base_url: str) -> str:
        return urljoin(base_url, self.path)


@dataclass(frozen=True)
class Catalog:
    base_url: str
    entries: tuple[Entry, ...]
    source: str  # the file read, for messages

    def names(self) -> list[str]:
        return [e.name for e in self.entries]

    def original(self, log: str) -> Entry | None:
        """The original of the log named without its version (its newest, if
        the catalog lists more than one), or None."""
        found = [e for e in self.entries if e.kind == "original" and e.version and e.log == log]
        return max(found, key=lambda e: [int(p) for p in e.version.split(".")], default=None)


def load_catalog(path: str | os.PathLike | None = None) -> Catalog:
    """The catalog shipped with wla, or the one at `path`."""
    if path is None:
        source = resources.files(__package__).joinpath(CATALOG)
        where = str(source)
        text = source.read_text(encoding="utf-8")
    else:
        where = os.fspath(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise WlaError(f"{where}: cannot read the catalog: {e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise WlaError(f"{where}: not a TOML catalog: {e}") from None
    base = data.get("base_url")
    if not isinstance(base, str):
        raise WlaError(f"{where}: base_url must be a text")
    logs = data.get("log", [])
    if not isinstance(logs, list):
        raise WlaError(f"{where}: [[log]] entries expected")
    entries = tuple(_entry(where, i, raw) for i, raw in enumerate(logs, 1))
    seen: set[str] = set()
    for e in entries:
        if e.name in seen:
            raise WlaError(f"{where}: log {e.name!r} is listed twice")
        seen.add(e.name)
    return Catalog(check_base_url(base), entries, where)


def _entry(where: str, i: int, raw: object) -> Entry:
    at = f"{where}: log entry {i}"
    if not isinstance(raw, dict):
        raise WlaError(f"{at}: a table expected")
    unknown = sorted(set(raw) - {"name", "path", "size", "sha256", "version", "kind"})
    if unknown:
        raise WlaError(f"{at}: unknown key {unknown[0]!r}")
    name, path, size, sha = raw.get("name"), raw.get("path"), raw.get("size"), raw.get("sha256")
    version, kind = raw.get("version"), raw.get("kind", "original")
    if not isinstance(name, str) or not isinstance(path, str):
        raise WlaError(f"{at}: name and path must be texts")
    check_log_name(name, where=at)
    if kind not in KINDS:
        raise WlaError(f"{at}: kind must be one of {', '.join(KINDS)}")
    if version is not None:
        if not isinstance(version, str) or not _VERSION.fullmatch(version):
            raise WlaError(f"{at}: version must be numbers separated by dots, as a text (\"4.2\")")
        if kind == "cleaned" and "." not in version:
            raise WlaError(f"{at}: a cleaned version's version names its original's and the cleaning (4.2)")
        tail = f"-{version}" + (CLEANED if kind == "cleaned" else "")
        if not name.endswith(tail) or len(name) == len(tail):
            raise WlaError(f"{at}: name {name!r} does not end in its version and kind ({tail})")
    elif kind == "cleaned":
        raise WlaError(f"{at}: a cleaned version needs its version")
    parts = PurePosixPath(path).parts
    if (not parts or path.startswith("/") or ".." in parts or urlsplit(path).scheme or "\\" in path
            or "?" in path or "#" in path):
        raise WlaError(f"{at}: path {path!r} is not a relative path below the base URL")
    if log_name(parts[-1]) != name or not parts[-1].endswith(".swf.gz"):
        raise WlaError(f"{at}: path {path!r} does not name the file {name}.swf.gz")
    if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size <= 0):
        raise WlaError(f"{at}: size must be a whole number of bytes above 0")
    if sha is not None and (not isinstance(sha, str) or not _SHA256.fullmatch(sha)):
        raise WlaError(f"{at}: sha256 must be 64 lowercase hexadecimal digits")
    return Entry(name, path, size, sha, version or "", kind)


def check_base_url(url: str) -> str:
    """An http(s) URL ending in '/', so that an entry's path goes below it."""
    problem = url_problem(url)
    if problem is not None:
        raise UsageError(f"base URL '{visible(url)}' is not {problem}")
    return url if url.endswith("/") else url + "/"


def url_problem(url: str) -> str | None:
    """What keeps `url` from being an http(s) address wla may ask (None:
    nothing): the base URL and every redirect are held to it."""
    if not url.isprintable() or any(c.isspace() for c in url):
        return "an address: it holds a space or a control character"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (a port that is not a number, or out of range, raises here)
        host = parts.hostname
        if host is not None:
            host.encode("idna")
    except ValueError as e:  # UnicodeError too: a host name IDNA cannot encode
        return f"an address ({e})"
    if parts.scheme not in ("http", "https") or not host:
        return "an http:// or https:// address"
    return None


def choose_base_url(catalog: Catalog, given: str | None = None) -> str:
    """The base URL: the one given, else $WLA_PULL_URL, else the catalog's."""
    chosen = given or os.environ.get(URL_ENV) or catalog.base_url
    return check_base_url(chosen)


def select(catalog: Catalog, names: Iterable[str], every: bool = False) -> list[Entry]:
    """The entries named (a file name NAME.swf.gz also names NAME, and a log's
    name without its version, LOG, its original), each once, in the order
    given; or all of them. An unknown name is refused with the names it is
    closest to, before anything is downloaded."""
    names = list(names)
    if every and names:
        raise ParameterError("name logs or give {all}, not both", "all")
    if every:
        return list(catalog.entries)
    if not names:
        raise ParameterError("name the logs to pull, or give {all}", "all")
    by_name = {e.name: e for e in catalog.entries}
    chosen: list[Entry] = []
    for given in names:
        name = log_name(given)
        entry = by_name.get(name) or catalog.original(name)
        if entry is None:
            known = [*by_name, *dict.fromkeys(e.log for e in catalog.entries if e.version)]
            raise UsageError(f"no log {given!r} in the catalog{_close(name, known)}")
        if entry not in chosen:
            chosen.append(entry)
    return chosen


def _close(name: str, known: Iterable[str]) -> str:
    """The known names nearest to `name`: spelled alike, or holding it."""
    close = closest(name, known)
    return "; close: " + ", ".join(close) if close else ""
