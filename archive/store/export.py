"""Writing logs and query results out: SWF as ingested, or Parquet/CSV/JSON."""
from __future__ import annotations

import gzip
import io
import json
import os
from pathlib import Path

import duckdb
import numpy as np

from ..clean.predicate import LogClock, predicate_sql
from ..errors import UsageError
from ..swf.fields import FIELDS
from .catalog import log_facts
from .file import Archive, one_line, query_error


def _formatted(column: str, integer: bool) -> str:
    """SQL rendering one field as SWF text: integers plain, doubles without a
    spurious '.0' and otherwise in their shortest round-trip form."""
    if integer:
        return f"CAST({column} AS VARCHAR)"
    return (f"CASE WHEN {column} = trunc({column}) THEN CAST(CAST({column} AS BIGINT) AS VARCHAR) "
            f"ELSE CAST({column} AS VARCHAR) END")


def selection(archive: Archive, name: str, where: str | None = None,
              exclude: str | None = None) -> str:
    """SQL condition picking a log's jobs, narrowed by predicates in the
    archive's notation (built through sqlglot's tree, never pasted)."""
    cond = f"log_id = {archive.log_id(name)}"
    if where is None and exclude is None:
        return cond
    info = log_facts(archive, name)
    clock = LogClock(info["unix_start_time"], info["tz"])
    if where is not None:
        cond += f" AND ({predicate_sql(where, clock)})"
    if exclude is not None:
        cond += f" AND NOT ({predicate_sql(exclude, clock)})"
    return cond


def _job_lines(archive: Archive, cond: str) -> tuple[np.ndarray, np.ndarray]:
    """Line numbers and right-aligned text of a log's job lines, in file order."""
    texts = ",\n".join(f"{_formatted(f.column, f.integer)} AS c{i}" for i, f in enumerate(FIELDS))
    widths = ", ".join(f"CAST(max(length(c{i})) AS INTEGER) AS w{i}" for i in range(len(FIELDS)))
    padded = ", ' ', ".join(f"lpad(c{i}, w{i}, ' ')" for i in range(len(FIELDS)))
    rows = archive.con.execute(
        f"""
        WITH t AS (SELECT line_no, {texts} FROM jobs WHERE {cond}),
             w AS (SELECT {widths} FROM t)
        SELECT line_no, concat({padded}) AS line FROM t, w ORDER BY line_no
        """
    ).fetchnumpy()
    return rows["line_no"], rows["line"]


def swf_text(archive: Archive, name: str, where: str | None = None, exclude: str | None = None) -> str:
    """The log as SWF: every header line where it stood, then the jobs."""
    log_id = archive.log_id(name)
    header = archive.con.execute(
        "SELECT line_no, text FROM header_lines WHERE log_id = ? ORDER BY seq", [log_id]
    ).fetchall()
    line_nos, lines = _job_lines(archive, selection(archive, name, where, exclude))
    out = io.StringIO()
    # Header lines go back between the job lines they stood between.
    cut = np.searchsorted(line_nos, [ln for ln, _ in header]) if header else []
    start = 0
    for (_, text), pos in zip(header, cut):
        if pos > start:
            out.write("\n".join(lines[start:pos]))
            out.write("\n")
            start = pos
        out.write(text)
        out.write("\n")
    if start < len(lines):
        out.write("\n".join(lines[start:]))
        out.write("\n")
    return out.getvalue()


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    if str(path).lower().endswith(".gz"):
        # mtime=0 keeps two exports of the same log byte-identical.
        with open(path, "wb") as fh, gzip.GzipFile(
            filename="", mode="wb", fileobj=fh, compresslevel=6, mtime=0
        ) as gz:
            gz.write(data)
    else:
        Path(path).write_bytes(data)


def export_swf(archive: Archive, name: str, path: str | os.PathLike, where: str | None = None,
               exclude: str | None = None) -> int:
    """Write a log back as SWF (gzip'd when the name ends in .gz); returns jobs."""
    text = swf_text(archive, name, where, exclude)
    write_bytes(path, text.encode("utf-8"))
    cond = selection(archive, name, where, exclude)
    return int(archive.con.execute(f"SELECT count(*) FROM jobs WHERE {cond}").fetchall()[0][0])


def log_query(archive: Archive, name: str, where: str | None = None, exclude: str | None = None) -> str:
    """The query that returns a log's jobs as written, in file order."""
    cols = ", ".join(["line_no"] + [f.column for f in FIELDS])
    return f"SELECT {cols} FROM jobs WHERE {selection(archive, name, where, exclude)} ORDER BY line_no"


FORMATS = ("table", "csv", "json", "parquet")


def write_query(archive: Archive, query: str, fmt: str, path: str | os.PathLike | None) -> str | None:
    """Write a user query's rows as csv, json or parquet to `path`; with no
    path (csv, json) return the text instead. The query runs through the gate
    on the read-only archive; the file is written by a separate in-memory
    database that never sees the archive, since the archive's own connection
    cannot reach files."""
    if fmt not in FORMATS[1:]:
        raise UsageError(f"unknown format {fmt!r}; one of: {', '.join(FORMATS[1:])}")
    if fmt == "parquet" and path is None:
        raise UsageError("parquet needs an output file (-o FILE)")
    statement = archive.checked(query)
    try:
        result = archive.con.sql(statement)
        if fmt == "parquet" or (fmt == "csv" and path is not None):
            _write_rows(result.to_arrow_reader(), fmt, str(path))
            return None
        frame = result.df()
    except duckdb.Error as e:
        raise query_error(e) from None
    if fmt == "csv":
        return frame.to_csv(index=False)
    text = json.dumps(json.loads(frame.to_json(orient="records", date_format="iso")), indent=1)
    if path is None:
        return text
    Path(path).write_text(text + "\n", encoding="utf-8")
    return None


def _write_rows(rows: object, fmt: str, path: str) -> None:
    """Stream Arrow record batches into a Parquet or CSV file."""
    writer = duckdb.connect()
    try:
        relation = writer.from_arrow(rows)
        if fmt == "parquet":
            relation.write_parquet(path)
        else:
            relation.write_csv(path)
    except duckdb.Error as e:
        raise UsageError(f"cannot write {path}: {one_line(e)}") from None
    finally:
        writer.close()
