"""The index: the catalog of `wla ls`, a row per log or version, each
linking to its page. It shows what a reader compares logs by (name, kind,
dates, size, users, jobs, utilization) so that it fits a laptop's window;
the columns that are empty on most rows or repeat the name (original,
version, converted from) are on the log's page, and every row still holds
its whole `wla ls --json` record."""
from __future__ import annotations

from dataclasses import dataclass

from wla.archive.store.listing import Listing

from .values import as_json, shown, sort_key

NUMERIC = {"months", "machine_size", "users", "jobs", "utilization"}
# The columns of the index, and their headers (short, with the unit where the cells do not carry it).
SHOWN = {"name": "name", "kind": "kind", "first_submit_date": "first submit", "last_submit_date": "last submit",
         "months": "months", "machine_size": "processors", "users": "users", "jobs": "jobs",
         "utilization": "utilization"}


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
    record: str  # the row of `wla ls --json`, every column, as JSON


def catalog_rows(listed: Listing, pages: dict[str, str]) -> list[Row]:
    """The listing's rows for the logs that have a page, in `wla ls` order,
    with the cells of the columns the index shows."""
    rows = []
    for record in listed.to_dict():
        if record["name"] not in pages:
            continue
        cells = [Cell(c, shown(record[c], c), as_json(record[c]), sort_key(record[c]), c in NUMERIC) for c in SHOWN]
        rows.append(Row(record["name"], record["kind"], pages[record["name"]], cells, as_json(record)))
    return rows
