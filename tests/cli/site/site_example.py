"""The site the site tests read: small real logs, one of them again under
a name no file system or URL takes as it is, two versions of one log (one
published, one built from it) and a version without jobs, built once per
test session and worker."""
from __future__ import annotations

import datetime as dt
import gzip
from dataclasses import dataclass
from pathlib import Path

from real_logs import data_dir, pandas_log
from wla.archive import open as open_archive

SMALL = ["NASA-iPSC-1993-3-head228", "HPC2N-2002-2.2-head3170"]
CLEANED = "HPC2N-2002-2.2-head3170"
ODD_SOURCE = "ANL-Intrepid-2009-1-head10"  # ingested again under ODD, with one more comment line
ODD = "../odd name/é ~x"  # "/", "..", a blank, an accent and "~" in one log name
PUBLISHED, DRAFT = "pub", "draft"
EMPTY = "none"  # a version of ODD whose recipe drops every job
NOTE = ("a note on <HPC2N> & its head", "2024-05-01")  # the user's note on CLEANED: text to escape, its day


@dataclass(frozen=True)
class Example:
    archive: Path
    site: Path
    result: object
    busiest_user: int
    published_file: Path


def busiest_user() -> int:
    return int(pandas_log(CLEANED)["user"].value_counts().idxmax())


def recipes(folder: Path) -> list[Path]:
    user = busiest_user()
    published = folder / "pub.toml"
    published.write_text(f'log = "{CLEANED}"\nversion = "{PUBLISHED}"\n\n[[step]]\nrule = "normalize"\n\n'
                         f'[[step]]\nrule = "filter"\nwhere = "user={user}"\nreason = "the busiest user"\n')
    draft = folder / "draft.toml"
    draft.write_text(f'log = "{CLEANED}@{PUBLISHED}"\nversion = "{DRAFT}"\n\n[[step]]\nrule = "recover"\n')
    empty = folder / "empty.toml"
    empty.write_text(f'log = "{ODD}"\nversion = "{EMPTY}"\n\n[[step]]\nrule = "filter"\nwhere = "job>=0"\n'
                     'reason = "<b>every</b> job"\n')
    return [published, draft, empty]


def make_archive(folder: Path) -> tuple[Path, Path]:
    """The archive, and the file `publish` wrote for the published version."""
    from wla.archive.clean.build import clean
    from wla.archive.clean.publish import publish
    from wla.archive.store.ingest import ingest
    from wla.archive.store.notes import add_note

    path = folder / "site.duckdb"
    odd = folder / "odd.swf"
    with gzip.open(data_dir() / f"{ODD_SOURCE}.swf.gz", "rb") as fh:
        odd.write_bytes(b"; Note: the same jobs under another name\n" + fh.read())
    with open_archive(path, write=True) as a:
        assert all(r.status == "ingested" for r in ingest(a, [data_dir() / f"{n}.swf.gz" for n in SMALL]))
        assert ingest(a, [odd], name=ODD)[0].status == "ingested"
        for recipe in recipes(folder):
            clean(a, recipe)
        publish(a, CLEANED, PUBLISHED, folder / "pub.swf.gz")
        add_note(a, CLEANED, NOTE[0], on=dt.date.fromisoformat(NOTE[1]))
    return path, folder / "pub.swf.gz"


def build(archive: Path, out: Path, logs: list[str] | None = None):
    from wla.cli.site.build import build_site

    with open_archive(archive) as a:
        return build_site(a, out, logs)


_BUILT: dict[Path, Example] = {}


def example(tmp_path_factory) -> Example:
    """The example archive and its site, made once per session (and worker)."""
    key = tmp_path_factory.getbasetemp()
    if key not in _BUILT:
        folder = tmp_path_factory.mktemp("site-example")
        archive, published = make_archive(folder)
        result = build(archive, folder / "site")
        _BUILT[key] = Example(archive, folder / "site", result, busiest_user(), published)
    return _BUILT[key]
