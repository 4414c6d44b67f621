"""The user's notes on a log (`wla note`), kept in the archive's `notes` table.

A note is what a researcher learned of a log that the caveats wla ships do
not say: one line of text and the day it was noted. It is kept under the
original log's name, so every version of the log shows it. Its text is
checked before anything is written: a note is read back in a terminal, a
web page and JSON, so it must be one line of visible text of a sensible
length.
"""
from __future__ import annotations

import datetime as dt
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..kernel.errors import UsageError, shorten, visible
from .migrate import has_table

if TYPE_CHECKING:
    from .file import Archive

MAX_CHARS = 2000  # a note is a line a person reads, not a file


@dataclass(frozen=True)
class Note:
    log: str  # the original log's name
    seq: int  # 1, 2, ...: the order the log's notes were taken in
    noted_on: dt.date
    text: str

    def to_dict(self) -> dict[str, object]:
        return {"log": self.log, "seq": self.seq, "noted_on": self.noted_on.isoformat(), "text": self.text}


def check_note(text: str) -> str:
    """The note's text, stripped of surrounding blanks; refused (UsageError,
    one line) when empty, longer than MAX_CHARS or holding a control
    character (a line break, a tab, a terminal escape)."""
    if not isinstance(text, str):
        raise UsageError(f"a note is text, not {type(text).__name__}")
    stripped = text.strip(" ")
    if not stripped:
        raise UsageError("a note needs text: wla note LOG \"what you know of it\"")
    if len(stripped) > MAX_CHARS:
        raise UsageError(f"a note holds at most {MAX_CHARS:,} characters; this one has {len(stripped):,} "
                         f"('{visible(shorten(stripped, 40))}')")
    bad = next((ch for ch in stripped if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp")), None)
    if bad is not None:
        raise UsageError(f"a note is one line of visible text; it holds {visible(bad)} "
                         f"('{visible(shorten(stripped, 40))}')")
    return stripped


def add_note(archive: Archive, log: str, text: str, on: dt.date | None = None) -> Note:
    """Keep a note on the original log `log` (a name the archive holds), dated
    `on` (default: today, UTC)."""
    archive.require_writable()
    text = check_note(text)
    archive.log_id(log)  # refused, with the names it is close to, if the archive has no such log
    day = on if on is not None else dt.datetime.now(dt.timezone.utc).date()
    with archive.transaction() as con:
        seq = con.execute("SELECT coalesce(max(seq), 0) + 1 FROM notes WHERE log = ?", [log]).fetchall()[0][0]
        con.execute("INSERT INTO notes VALUES (?, ?, ?, ?)", [log, seq, day, text])
    return Note(log, int(seq), day, text)


def notes(archive: Archive, log: str) -> list[Note]:
    """The notes on the original log `log`, in the order taken; none from an
    archive older than notes (a reader does not make the table)."""
    if not has_table(archive.con, "notes"):
        return []
    rows = archive.con.execute("SELECT log, seq, noted_on, text FROM notes WHERE log = ? ORDER BY seq",
                               [log]).fetchall()
    return [Note(*row) for row in rows]
