"""Keeping a simulated schedule: a table in the archive or a Parquet file,
each carrying the result's settings so that it says how it was obtained."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
from sqlglot import exp
from wla.archive.kernel.errors import ParameterError, UsageError, WlaError
from wla.archive.kernel.statements import comment_on_table, copy_to_parquet, create_table, run
from wla.archive.store.file import Archive, one_line

from .result import SimResult

if TYPE_CHECKING:
    import pandas as pd

KEY = "wla.simulation"  # the Parquet metadata key of the JSON summary
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def save_parquet(result: SimResult, path: str | os.PathLike) -> Path:
    """The schedule as Parquet, the summary JSON in the file's metadata."""
    return frame_to_parquet(result.schedule(), result.to_json(), path)


def _saved_by_wla(path: Path) -> bool:
    try:
        parquet_settings(path)
    except (WlaError, duckdb.Error, ValueError):  # not Parquet, no settings, settings not JSON
        return False
    return True


def check_target(target: str | None, force: bool = False) -> None:
    """Refuse, before a study runs, a --save FILE.parquet that would replace
    what is not a result wla saved (unless `force`), or that is no regular
    file (a folder, a link, a FIFO); a table name is checked when written."""
    if target is not None and target.endswith(".parquet"):
        _check_file(Path(target), force)


def _check_file(path: Path, force: bool) -> None:
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ParameterError(f"{path}: not a regular file; {{target}} writes a new file or replaces a result wla saved",
                             "target")
    if path.exists() and not force and not _saved_by_wla(path):
        raise ParameterError(f"{path} exists and is not a result wla saved; give {{force}} to replace it", "force")


def frame_to_parquet(frame: pd.DataFrame, summary: str, path: str | os.PathLike, force: bool = False) -> Path:
    """A table as Parquet, `summary` (JSON: how it was obtained) in the file's
    metadata; replacing only a result wla saved, unless `force`."""
    path = Path(path)
    _check_file(path, force)
    con = duckdb.connect()
    try:
        con.register("schedule", frame)
        run(con, copy_to_parquet("schedule", str(path), {KEY: summary}))
    except duckdb.Error as e:
        raise UsageError(f"cannot write {path}: {one_line(e)}") from None
    finally:
        con.close()
    return path


def save_table(result: SimResult, archive: Archive, name: str) -> str:
    """The schedule as a table of the archive (replaced if it exists), the
    summary JSON as the table's comment. The archive's own tables and views
    are refused."""
    return frame_to_table(result.schedule(), result.to_json(), archive, name)


def frame_to_table(frame: pd.DataFrame, summary: str, archive: Archive, name: str) -> str:
    """A table of the archive (replaced if it exists) with `summary` as its comment."""
    archive.require_writable()
    if not _NAME.match(name):
        raise UsageError(f"a table name is letters, digits and _, not {name!r}")
    taken = archive.con.execute(
        "SELECT table_name FROM information_schema.tables WHERE lower(table_name) = lower(?)", [name]
    ).fetchall()
    ours = archive.con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE lower(table_name) = lower(?) AND comment LIKE '{%'",
        [name]).fetchone()[0]
    if taken and not ours:
        raise UsageError(f"{name!r} is a table or view of the archive itself; choose another name")
    with archive.transaction() as con:
        con.register("_schedule", frame)
        run(con, create_table(name, exp.select("*").from_("_schedule"), replace=True))
        con.unregister("_schedule")
        run(con, comment_on_table(name, summary))
    return name


def save(result: SimResult, target: str, archive: Archive | None = None, force: bool = False) -> str:
    """A target ending in .parquet is a file; anything else a table name."""
    return save_frame(result.schedule(), result.to_json(), target, archive, force)


def save_frame(frame: pd.DataFrame, summary: str, target: str, archive: Archive | None = None,
               force: bool = False) -> str:
    """A table (a schedule, a study's runs) to FILE.parquet or to a table of
    the archive, with the JSON that says how it was obtained."""
    if target.endswith(".parquet"):
        return str(frame_to_parquet(frame, summary, target, force))
    if archive is None:
        raise UsageError("saving as a table needs the archive")
    return frame_to_table(frame, summary, archive, target)


def parquet_settings(path: str | os.PathLike) -> dict:
    """The summary a saved Parquet schedule carries."""
    rows = duckdb.execute("SELECT value FROM parquet_kv_metadata(?) WHERE key = ?",
                          [str(path), KEY]).fetchall()
    if not rows:
        raise UsageError(f"{path} holds no wla simulation")
    value = rows[0][0]
    return json.loads(value.decode() if isinstance(value, bytes) else value)


def saved_settings(archive: Archive, name: str) -> dict:
    """The summary a saved schedule table carries."""
    rows = archive.con.execute("SELECT comment FROM duckdb_tables() WHERE lower(table_name) = lower(?)",
                               [name]).fetchall()
    if not rows or not rows[0][0]:
        raise UsageError(f"no saved schedule named {name!r}")
    return json.loads(rows[0][0])
