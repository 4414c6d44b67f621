"""A small real log with two versions, shared by the archive's and the
command line's context tests."""
from __future__ import annotations

from real_logs import data_dir
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe
from wla.archive.store.ingest import ingest

LOG = "NASA-iPSC-1993-3-head228"
V1 = f'log = "{LOG}"\nversion = "v1"\n\n[[step]]\nrule = "filter"\nwhere = "user=4"\n'
V2 = f'log = "{LOG}@v1"\nversion = "v2"\n\n[[step]]\nrule = "filter"\nwhere = "user=5"\n'


def build(path) -> None:
    """The small log, v1 without user 4, and v2 built from v1 without user 5."""
    with open_archive(path, write=True) as a:
        [r] = ingest(a, [data_dir() / f"{LOG}.swf.gz"])
        assert r.status == "ingested", r.message
        clean(a, parse_recipe(V1))
        clean(a, parse_recipe(V2))
