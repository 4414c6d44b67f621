"""wla site: the archive as a static web site."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

from . import options, progress
from .app import app, context
from .present import show


@app.command("site")
def site_cmd(
    logs: Optional[List[str]] = options.Logs,
    output: Path = options.SiteTo,
    as_json: bool = options.Json,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Write the catalog as a static site: a sortable index, a page per log and per version, figures."""
    from wla.cli.site.build import build_site

    with context(archive).reading() as a, progress.display("site", "pages", quiet=as_json) as shown:
        result = build_site(a, output, logs or None, progress=shown)
    show(result, as_json, written)


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}" if n == 1 else f"{n:,} {what}s"


def written(result) -> str:
    """One line: where, how many pages of each kind, figures, published files, bytes."""
    published = f", {_count(result.published, 'published version')}" if result.published else ""
    return (f"wrote {result.out_dir}: {_count(result.pages, 'page')} ({_count(result.logs, 'log')}, "
            f"{_count(result.versions, 'version')}), {_count(result.figures, 'figure')}{published}; "
            f"{_count(len(result.written), 'file')}, {_count(result.bytes, 'byte')}")
