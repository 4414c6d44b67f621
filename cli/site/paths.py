"""Where each page, figure and file of the site lives.

A log name may hold any visible character ('/', '..', spaces, accents), so
file names are made from it by keeping letters, digits, '.', '_', '-' and
'@' (a URL path allows it) and writing every other byte of its UTF-8 as
`~XX`: two names never give the same file (the encoding is reversible),
and no name leaves its folder.
A name that would be long, or that differs from another only in case
(which a case-insensitive file system would merge), gets its hash added.
"""
from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass

_KEPT = re.compile(rb"[A-Za-z0-9_.@-]")
MAX_STEM = 96  # bytes of a file name's stem before it is cut and hashed

INDEX = "index.html"
STATIC = "static"
LOGS = "logs"
VERSIONS = "versions"
FIGURES = "figures"
DATA = "data"
FILES = "files"


def _escaped(name: str) -> str:
    out = []
    for i, byte in enumerate(name.encode("utf-8")):
        one = bytes([byte])
        keep = _KEPT.fullmatch(one) and not (i == 0 and one == b".")  # no hidden or '..' file
        out.append(one.decode("ascii") if keep else f"~{byte:02X}")
    return "".join(out)


def _hash(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:10]


def stems(names: Iterable[str]) -> dict[str, str]:
    """Each name's file stem, unique within the site even where the file
    system ignores case."""
    names = sorted(set(names))
    plain = {n: _escaped(n) for n in names}
    folded: dict[str, int] = {}
    for stem in plain.values():
        folded[stem.casefold()] = folded.get(stem.casefold(), 0) + 1
    out = {}
    for n, stem in plain.items():
        if folded[stem.casefold()] > 1 or len(stem) > MAX_STEM:
            stem = f"{stem[:MAX_STEM]}~{_hash(n)}"
        out[n] = stem
    return out


@dataclass(frozen=True)
class Layout:
    """The site's paths, relative to its root, with '/' between folders."""

    stem: dict[str, str]  # log or version name -> file stem

    def log_page(self, name: str) -> str:
        return f"{LOGS}/{self.stem[name]}.html"

    def version_page(self, name: str) -> str:
        return f"{VERSIONS}/{self.stem[name]}.html"

    def figure(self, name: str, kind: str) -> str:
        return f"{FIGURES}/{self.stem[name]}-{kind}.png"

    def decisions(self, name: str) -> str:
        return f"{DATA}/{self.stem[name]}-decisions.js"

    def published(self, name: str) -> str:
        return f"{FILES}/{self.stem[name]}.swf.gz"

    def provenance(self, name: str) -> str:
        return f"{FILES}/{self.stem[name]}.prov.json"


def href(page: str, target: str) -> str:
    """The link from `page` to `target` (both site paths), relative, so the
    site works wherever it is put; '~' and other kept characters need no
    quoting in a URL."""
    return posixpath.relpath(target, posixpath.dirname(page) or ".")
