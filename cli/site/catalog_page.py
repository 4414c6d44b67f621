"""The index: the catalog of `wla ls`, every column, a row per log or
version, each linking to its page."""
from __future__ import annotations

from dataclasses import dataclass

from wla.archive.store.listing import Listing

from .values import as_json, shown, sort_key

NUMERIC = {"months", "machine_size", "users", "jobs", "utilization"}


@dataclass(frozen=True)
class Cell:
    column: str
    text: str
    value: str  # JSON, as `wla ls --json` gives it
    sort: str
    numeric: bool


@dataclass(frozen=True)
class Row:
    name: str
    kind: str
    page: str  # site path of its page
    cells: list[Cell]


def catalog_rows(listed: Listing, pages: dict[str, str]) -> list[Row]:
    """The listing's rows for the logs that have a page, in `wla ls` order."""
    rows = []
    for record in listed.to_dict():
        if record["name"] not in pages:
            continue
        cells = [Cell(c, shown(v, c), as_json(v), sort_key(v), c in NUMERIC) for c, v in record.items()]
        rows.append(Row(record["name"], record["kind"], pages[record["name"]], cells))
    return rows
