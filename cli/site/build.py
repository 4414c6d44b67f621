"""Writing the site: the catalog, a page per log and per version, their
figures, the decisions of each version, the published files; then checking
every link. The same archive gives the same files, byte for byte: nothing
depends on the clock or on the order of a dict or set, the figures are
written without a time stamp, gzip without a name or time.

The site is made in a folder of its own and checked there, then put into
the output folder by folder.py: only if that is new, empty, or a site wla
wrote before, changing nothing but the files that site listed."""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from wla.archive.kernel.errors import WlaError
from wla.archive.kernel.progress import Progress, tell
from wla.archive.resolve import resolve
from wla.archive.store.file import Archive
from wla.archive.store.listing import listing

from .folder import opened
from .paths import INDEX, STATIC, Layout, stems

STATIC_SOURCE = Path(__file__).resolve().parent / "static"


@dataclass
class SiteResult:
    """What a build wrote: counts, and every file by its site path."""

    out_dir: str
    logs: int = 0  # pages of logs (originals, resampled logs)
    versions: int = 0  # pages of versions
    figures: int = 0
    published: int = 0  # published SWF files (each with its PROV-JSON)
    written: dict[str, int] = field(default_factory=dict)  # site path -> bytes

    @property
    def pages(self) -> int:
        return sum(1 for p in self.written if p.endswith(".html"))

    @property
    def bytes(self) -> int:
        return sum(self.written.values())

    def to_dict(self) -> dict:
        return {"out_dir": self.out_dir, "pages": self.pages, "logs": self.logs, "versions": self.versions,
                "figures": self.figures, "published": self.published, "files": len(self.written),
                "bytes": self.bytes}


def chosen_logs(rows: list[dict], archive: Archive, logs: list[str] | None) -> list[str]:
    """The logs to give pages to: every one, or those named with every log
    their pages link to (an original's versions, a version's original and
    what it was built from)."""
    if not logs:
        return [r["name"] for r in rows]
    by_name = {r["name"]: r for r in rows}
    built_from = dict(archive.rows("SELECT v.name, s.name FROM versions v JOIN logs s "
                                   "ON s.log_id = v.source_log_id"))
    wanted, todo = set(), [resolve(archive, n).name for n in logs]
    while todo:
        name = todo.pop()
        if name in wanted or name not in by_name:
            continue
        wanted.add(name)
        row = by_name[name]
        todo.append(row["original"])
        if name in built_from:
            todo.append(built_from[name])
        if row["kind"] == "original":
            todo += [r["name"] for r in rows if r["kind"] == "version" and r["original"] == name]
    return [r["name"] for r in rows if r["name"] in wanted]


def _unlisted(archive: Archive, listed) -> list[dict]:
    """Versions without jobs (a recipe may drop them all): the catalog has
    no row for them, but their page says which step dropped what."""
    known = {r[0] for r in listed.rows}
    found = archive.rows("SELECT v.name, b.name, v.version FROM versions v JOIN logs b ON b.log_id = v.base_log_id "
                         "ORDER BY v.name")
    return [{**dict.fromkeys(listed.columns), "name": name, "kind": "version", "original": base, "version": version,
             "jobs": 0} for name, base, version in found if name not in known]


def _no_jobs(name: str) -> dict:
    """The quality report's row of a log without jobs: nothing to count."""
    from wla.archive.analysis.quality import COUNTS

    from .log_page import USAGE

    return {"name": name, "jobs": 0, **dict.fromkeys(COUNTS, 0), **dict.fromkeys(USAGE)}


class _Writer:
    def __init__(self, root: Path, result: SiteResult):
        self.root, self.result = root, result

    def path(self, rel: str) -> Path:
        target = self.root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    def text(self, rel: str, text: str) -> None:
        data = text.encode("utf-8")
        self.path(rel).write_bytes(data)
        self.result.written[rel] = len(data)

    def made(self, rel: str) -> None:
        """A file written by other code (a figure, a published file)."""
        self.result.written[rel] = (self.root / rel).stat().st_size


def _write_version(archive: Archive, out: _Writer, layout: Layout, name: str, pages: dict[str, str],
                   common: dict) -> None:
    """A version's page, its decisions script and, once published, its SWF file and PROV-JSON."""
    from .render import render
    from .version_page import decisions_script, version_page, write_published

    version = version_page(archive, name)
    facts = version["version"]
    script, count = decisions_script(archive, name)
    out.text(layout.decisions(name), script)
    published = None
    if facts["published_sha256"] is not None:
        swf, prov = layout.published(name), layout.provenance(name)
        write_published(archive, name, facts["published_sha256"], out.path(swf), out.path(prov))
        out.made(swf)
        out.made(prov)
        out.result.published += 1
        published = {"swf": swf, "prov": prov, "swf_name": Path(swf).name, "prov_name": Path(prov).name}
    out.text(pages[name], render("version.html", pages[name], **common, version=version, decisions=count,
                                 decisions_script=layout.decisions(name), published=published,
                                 built_from_page=pages[facts["built_from"]]))
    out.result.versions += 1


def build_site(archive: Archive, out_dir: str | os.PathLike, logs: list[str] | None = None,
               progress: Progress | None = None) -> SiteResult:
    """Write the catalog site of `archive` (or of the `logs` named, with the
    logs their pages link to) into `out_dir`; return what was written."""
    from wla.archive.kernel.plain import plain

    from .links import check_links

    root = Path(out_dir)
    listed = listing(archive)
    rows = [{c: plain(v) for c, v in r.items()} for r in listed.to_dict()] + _unlisted(archive, listed)
    names = chosen_logs(rows, archive, logs)
    opened(root).close()  # refused before the work, not after it
    with tempfile.TemporaryDirectory(prefix="wla-site-") as staging:
        result = _make(archive, Path(staging), names, rows, listed, progress)
        result.out_dir = str(root)
        broken = check_links(staging)
        if broken:
            raise WlaError(f"{root}: the site has {len(broken)} broken links, the first {broken[0]}")
        with opened(root) as folder:
            folder.install(Path(staging), list(result.written))
    return result


def _make(archive: Archive, root: Path, names: list[str], rows: list[dict], listed, progress) -> SiteResult:
    """The site of `names`, written into `root`, a new folder of its own."""
    import wla
    from wla.archive.analysis.jobs import log_jobs
    from wla.archive.analysis.quality import quality
    from wla.archive.kernel.plain import records

    from .catalog_page import NUMERIC, SHOWN, catalog_rows
    from .figures import KINDS, draw_figures
    from .log_page import log_page
    from .render import render

    result = SiteResult(str(root))
    out = _Writer(root, result)
    layout = Layout(stems(names))
    by_name = {r["name"]: r for r in rows}
    pages = {n: layout.version_page(n) if by_name[n]["kind"] == "version" else layout.log_page(n) for n in names}
    report = quality(archive, names) if names else None
    quality_rows = {r["name"]: r for r in records(report)} if report is not None else {}
    listed_names = {r[0] for r in listed.rows}

    for source in sorted(STATIC_SOURCE.iterdir()):
        shutil.copyfile(source, out.path(f"{STATIC}/{source.name}"))
        out.made(f"{STATIC}/{source.name}")

    for done, name in enumerate(names):
        tell(progress, done, len(names), name)
        row = by_name[name]
        jobs, facts = log_jobs(archive, name)
        figures = draw_figures(jobs, facts, root, {k: layout.figure(name, k) for k in KINDS})
        for f in figures:
            if f.path:
                out.made(f.path)
                result.figures += 1
        log = log_page(archive, name, jobs, facts, quality_rows.get(name) or _no_jobs(name), row)
        versions = [{**v, "page": pages[v["name"]]} for v in log["versions"]]
        common = {"log": log, "figures": figures, "versions": versions,
                  "original_page": pages[row["original"]]}
        if row["kind"] != "version":
            out.text(pages[name], render("log.html", pages[name], **common))
            result.logs += 1
            continue
        _write_version(archive, out, layout, name, pages, common)

    catalog = catalog_rows(listed, pages)
    jobs_total = sum(r["jobs"] or 0 for r in rows if r["name"] in pages and r["kind"] != "version"
                     and r["name"] in listed_names)
    out.text(INDEX, render("index.html", INDEX, rows=catalog, columns=SHOWN, numeric=NUMERIC,
                           originals=result.logs, versions=result.versions, jobs=jobs_total,
                           wla_version=wla.__version__))
    tell(progress, len(names), len(names), "")
    return result
