"""A log's header as entries ("Key: value", continuation lines joined), so a
detector can find what the converter wrote in a Note, however it wrapped it."""
from __future__ import annotations

import re

_KEY = re.compile(r"^\s*;?\s*([A-Za-z][A-Za-z ]*):\s?(.*)$")


def entries(header: list[str]) -> list[tuple[str, str]]:
    """(key, text) per header entry; a line without a key continues the one before."""
    out: list[tuple[str, str]] = []
    for line in header:
        body = line.lstrip().removeprefix(";")
        key = _KEY.match(body)
        if key and not body.startswith("    "):
            out.append((key.group(1).strip(), " ".join(key.group(2).split())))
        elif body.strip() and out:
            out[-1] = (out[-1][0], f"{out[-1][1]} {' '.join(body.split())}".strip())
    return out


def matching(header: list[str], pattern: re.Pattern, skip: tuple[str, ...] = ()) -> str | None:
    """The first entry (not one of the keys `skip`) whose text matches, as written."""
    for key, text in entries(header):
        if key not in skip and pattern.search(text):
            return f"{key}: {text}"
    return None
