"""Writing logs and query results out: SWF as ingested, or Parquet/CSV/JSON."""
from __future__ import annotations

import io
import json
import os
from pathlib import Path

import duckdb
import numpy as np
from sqlglot import exp

from ..errors import UsageError
from ..output import write_bytes
from ..statements import call, run
from ..swf.fields import FIELDS
from .file import Archive, one_line, query_error
from .select import selection


def _formatted(column: str, integer: bool) -> exp.Expression:
    """One field as SWF text: integers plain, doubles without a spurious
    '.0' and otherwise in their shortest round-trip form."""
    col = exp.column(column)
    text = exp.cast(col.copy(), "VARCHAR")
    if integer:
        return text
    whole = exp.cast(exp.cast(col.copy(), "BIGINT"), "VARCHAR")
    return exp.Case(ifs=[exp.If(this=col.eq(call("trunc", col.copy())), true=whole)], default=text)


def _job_lines(archive: Archive, cond: exp.Expression) -> tuple[np.ndarray, np.ndarray]:
    """Line numbers and right-aligned text of a log's job lines, in file order."""
    n = range(len(FIELDS))
    texts = exp.select("line_no", *(_formatted(f.column, f.integer).as_(f"c{i}") for i, f in enumerate(FIELDS)))
    widths = exp.select(*(exp.cast(call("max", call("length", exp.column(f"c{i}"))), "INTEGER").as_(f"w{i}")
                          for i in n)).from_("t")
    padded = [part for i in n for part in (exp.Literal.string(" "),
                                           call("lpad", exp.column(f"c{i}"), exp.column(f"w{i}"),
                                                exp.Literal.string(" ")))][1:]
    query = (exp.select("line_no", call("concat", *padded).as_("line")).from_("t")
             .join("w", join_type="cross").order_by("line_no")
             .with_("t", as_=texts.from_("jobs").where(cond.copy()))
             .with_("w", as_=widths))
    rows = run(archive.con, query).fetchnumpy()
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


def export_swf(archive: Archive, name: str, path: str | os.PathLike, where: str | None = None,
               exclude: str | None = None) -> int:
    """Write a log back as SWF (gzip'd when the name ends in .gz); returns jobs."""
    text = swf_text(archive, name, where, exclude)
    write_bytes(path, text.encode("utf-8"))
    query = exp.select("count(*)").from_("jobs").where(selection(archive, name, where, exclude))
    return int(run(archive.con, query).fetchall()[0][0])


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
