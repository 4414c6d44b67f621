"""The site's link checker: every href and src of every page, and every
url() of its style sheets, must name a file inside the site; nothing may
come from the network. An in-page anchor (#id) must name an element of its
page. Run after each build and by the tests, so a broken site is never
reported as written."""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

_URL_IN_CSS = re.compile(r"url\(\s*['\"]?([^'\")]+)['\"]?\s*\)")
_LINKING = {"href", "src", "srcset", "poster", "data", "action", "formaction"}


@dataclass(frozen=True)
class Broken:
    page: str  # site path of the file that links
    target: str  # the link as written
    problem: str

    def __str__(self) -> str:
        return f"{self.page}: {self.target}: {self.problem}"


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id":
                self.ids.add(value)
            elif name in _LINKING:
                self.links += [part.split()[0] for part in value.split(",") if part.strip()] \
                    if name == "srcset" else [value]
            elif name == "style":
                self.links += _URL_IN_CSS.findall(value)


def _problem(root: Path, page: str, target: str, ids: dict[str, set[str]]) -> str | None:
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or target.startswith("//"):
        return "not a file of the site (the site fetches nothing from elsewhere)"
    if not parts.path:  # an anchor of the page itself
        return None if unquote(parts.fragment) in ids.get(page, set()) or not parts.fragment \
            else f"no element with id {parts.fragment!r} on the page"
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(parts.path)))
    if joined.startswith("../") or joined == ".." or posixpath.isabs(joined):
        return "leads out of the site"
    if not (root / joined).is_file():
        return "no such file in the site"
    if parts.fragment and joined in ids and unquote(parts.fragment) not in ids[joined]:
        return f"{joined} has no element with id {parts.fragment!r}"
    return None


def check_links(root: str | Path) -> list[Broken]:
    """Every broken link of the site in `root`, by page and link, sorted."""
    root = Path(root)
    found: dict[str, list[str]] = {}
    ids: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        page = path.relative_to(root).as_posix()
        if path.suffix == ".html":
            parser = _Links()
            parser.feed(path.read_text(encoding="utf-8"))
            found[page], ids[page] = parser.links, parser.ids
        elif path.suffix == ".css":
            found[page] = _URL_IN_CSS.findall(path.read_text(encoding="utf-8"))
    broken = [Broken(page, target, problem) for page, targets in found.items() for target in targets
              if (problem := _problem(root, page, target, ids)) is not None]
    return sorted(broken, key=lambda b: (b.page, b.target))
