"""Writing logs and query results out: a log as SWF, CSV or Parquet; a
query's rows as CSV, JSON or Parquet.

A log ingested with its layout (schema version 3, archive/swf/layout.py)
goes back out as the file it came from, byte for byte: its job lines
rendered in the layout, its header lines, and the lines kept as written
(`verbatim_lines`), each in its place. A subset (`where`, `exclude`) is that
file less the job lines not chosen and the rejected lines. A version is its
header lines (the original's, then its notes) and its jobs, in the layout of
its original: a job line the original kept as written stays so while the
recipe leaves its values alone; a changed field is spelled in the layout
within the columns the old value took. A log ingested before has no layout:
it is re-rendered, each column right-aligned as wide as its widest value,
numbers in their shortest exact form.
"""
from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import numpy as np
from sqlglot import exp

from ..kernel.errors import UsageError, WlaError
from ..kernel.output import write_bytes
from ..kernel.statements import call, run, text
from ..swf.fields import COLUMNS, FIELDS
from .file import Archive, one_line, query_error
from .migrate import schema_version
from .select import log_select, selection

if TYPE_CHECKING:  # the layout module loads numba, which `wla sql` does not need
    from ..swf.layout import Layout

# What `export` writes, by the end of the output file's name (any case).
EXPORTS = {".swf": "swf", ".swf.gz": "swf", ".parquet": "parquet", ".csv": "csv"}
LAYOUT_SCHEMA = 3  # logs keep their layout from this schema version on
_TOKEN = re.compile(rb"(\s*)(\S+)")


def export_format(path: str | os.PathLike) -> str:
    """What a file of this name receives: swf, parquet or csv."""
    name = str(path).lower()
    for suffix, fmt in EXPORTS.items():
        if name.endswith(suffix):
            return fmt
    raise UsageError(f"{Path(path).name}: unknown kind of file; name it "
                     f"{', '.join('FILE' + s for s in EXPORTS)}")


def export(archive: Archive, name: str, path: str | os.PathLike, where: str | None = None,
           exclude: str | None = None) -> int:
    """Write a log or version, or its jobs chosen by `where` and `exclude`,
    as SWF, Parquet or CSV by the file's name; returns the jobs written."""
    fmt = export_format(path)
    if fmt == "swf":
        write_bytes(path, swf_bytes(archive, name, where, exclude))
    else:
        rows = (log_select if fmt == "parquet" else _csv_select)(archive, name, where, exclude)
        _write_rows(archive.con.sql(text(rows)).to_arrow_reader(), fmt, str(path))
    query = exp.select("count(*)").from_("jobs").where(selection(archive, name, where, exclude))
    return int(run(archive.con, query).fetchall()[0][0])


def export_query(archive: Archive, query: str, path: str | os.PathLike) -> None:
    """Write a query's rows as Parquet or CSV, by the file's name."""
    fmt = export_format(path)
    if fmt == "swf":
        raise UsageError(f"{Path(path).name}: a query's rows are written as FILE.parquet or FILE.csv")
    write_query(archive, query, fmt, path)


def export_swf(archive: Archive, name: str, path: str | os.PathLike, where: str | None = None,
               exclude: str | None = None) -> int:
    """Write a log back as SWF (gzip'd when the name ends in .gz); returns jobs."""
    if export_format(path) != "swf":
        raise UsageError(f"{Path(path).name}: an SWF file is named FILE.swf or FILE.swf.gz")
    return export(archive, name, path, where, exclude)


def _csv_select(archive: Archive, name: str, where: str | None, exclude: str | None) -> exp.Select:
    """The jobs as `log_select` gives them, numbers spelled as in SWF: a
    whole value without '.0', so -1 stays -1."""
    return (exp.select("line_no", *(_formatted(f.column, f.integer).as_(f.column) for f in FIELDS))
            .from_("jobs").where(selection(archive, name, where, exclude), copy=False).order_by("line_no"))


def swf_bytes(archive: Archive, name: str, where: str | None = None, exclude: str | None = None) -> bytes:
    """The log, version or subset as SWF text (see the module's doc)."""
    log_id = archive.log_id(name)
    cond = selection(archive, name, where, exclude)
    written = _how_written(archive, log_id)
    if written is None:
        return _rendered(archive, log_id, cond).encode("utf-8")
    layout, base_id, lines = written
    jobs = run(archive.con, exp.select("line_no", *COLUMNS).from_("jobs").where(cond)
               .order_by("line_no")).fetchnumpy()
    out = _Lines(archive.con, layout, jobs)
    if base_id != log_id:
        return out.version(log_id, base_id)
    return out.original(log_id, lines, whole=where is None and exclude is None)


def _how_written(archive: Archive, log_id: int) -> tuple[Layout, int, int] | None:
    """The log's layout, the original its lines come from (itself, or a
    version's base) and that one's number of lines; None without a layout."""
    from ..swf.layout import Layout
    if schema_version(archive.con) < LAYOUT_SCHEMA:  # an older archive, opened to read
        return None
    layout, kind = archive.con.execute("SELECT layout, kind FROM logs WHERE log_id = ?",
                                       [log_id]).fetchall()[0]
    if layout is None:
        return None
    base = log_id
    if kind == "version":
        base = archive.con.execute("SELECT base_log_id FROM versions WHERE log_id = ?",
                                   [log_id]).fetchall()[0][0]
    lines = archive.con.execute("SELECT lines FROM logs WHERE log_id = ?", [base]).fetchall()[0][0]
    return Layout.from_json(layout), int(base), int(lines)


class _Lines:
    """One export: the jobs rendered at once, every other line set among
    them by its line number."""

    def __init__(self, con: duckdb.DuckDBPyConnection, layout: Layout, jobs: dict[str, np.ndarray]):
        from ..swf.layout import blocks, render_lines
        self.con, self.layout = con, layout
        self.line_nos = jobs["line_no"]
        self.ints, self.floats = blocks(jobs)
        self.text, self.offsets, self.lengths = render_lines(layout, self.ints, self.floats)

    def _rows(self, sql: str, params: list) -> list[tuple]:
        return self.con.execute(sql, params).fetchall()

    def _values(self, k: int) -> list:
        from ..swf.tokenizer import SLOT
        return [(self.ints if f.integer else self.floats)[s, k].item() for f, s in zip(FIELDS, SLOT)]

    def original(self, log_id: int, lines: int, whole: bool) -> bytes:
        """The file; when not whole, less the job lines not chosen and the
        rejected lines (blank lines and header lines stay)."""
        verbatim = dict(self._rows("SELECT line_no, text FROM verbatim_lines WHERE log_id = ?", [log_id]))
        others = []
        for ln, line in self._rows("SELECT line_no, text FROM header_lines WHERE log_id = ? ORDER BY seq",
                                   [log_id]):
            others.append((ln, verbatim.pop(ln) if ln in verbatim else line.encode("utf-8") + self.layout.eol))
        chosen = self.line_nos[np.isin(self.line_nos, list(verbatim))].tolist()
        own = {ln: verbatim.pop(ln) for ln in chosen}  # chosen job lines kept as written
        if not whole:
            for (ln,) in self._rows("SELECT line_no FROM rejects WHERE log_id = ? UNION ALL "
                                    "SELECT line_no FROM jobs WHERE log_id = ?", [log_id, log_id]):
                verbatim.pop(ln, None)
        out = self._join(others + list(verbatim.items()), own)
        written = out.count(b"\n")
        if whole and written != lines:
            raise WlaError(f"the archive holds {written:,} lines of this log, which had {lines:,}; "
                           "its tables have been changed by hand")
        return out if self.layout.final_newline or not out else out[:-1]

    def version(self, log_id: int, base_id: int) -> bytes:
        """Its header lines and notes, then its jobs."""
        others = [(ln, line.encode("utf-8") + self.layout.eol) for ln, line in self._rows(
            "SELECT line_no, text FROM header_lines WHERE log_id = ? ORDER BY seq", [log_id])]
        own = {}
        kept = (exp.select("v.line_no", "v.text", *(exp.column(c, "j") for c in COLUMNS))
                .from_("verbatim_lines AS v")
                .join("jobs AS j", on="j.log_id = v.log_id AND j.line_no = v.line_no")
                .where("v.log_id = ?").order_by("v.line_no"))
        for ln, line, *old in run(self.con, kept, [base_id]).fetchall():
            k = int(np.searchsorted(self.line_nos, ln))
            if k < len(self.line_nos) and self.line_nos[k] == ln:
                new = self._values(k)
                own[ln] = line if new == old else _respelled(line, old, new, self.layout)
        return self._join(others, own)

    def _join(self, others: list[tuple[int, bytes]], own: dict[int, bytes]) -> bytes:
        """The job lines in order; each of `others` (line number, text)
        before the first job line numbered after it, those of one number in
        the order given; a job line in `own` as given there."""
        from ..swf.layout import spell_line

        others = sorted(others, key=lambda o: o[0])
        special = sorted(set(own) | set(self.line_nos[self.lengths < 0].tolist()))
        events = sorted([(int(p), 0, i) for i, p in enumerate(
                            np.searchsorted(self.line_nos, [ln for ln, _ in others]))] +
                        [(int(p), 1, i) for i, p in enumerate(np.searchsorted(self.line_nos, special))])
        out = io.BytesIO()
        done = 0  # job lines written so far
        for pos, kind, i in events:
            out.write(self.text[self.offsets[done]:self.offsets[pos]])
            done = max(done, pos)
            if kind == 0:
                out.write(others[i][1] + b"\n")
            else:
                line = own.get(special[i])
                out.write((line if line is not None else spell_line(self.layout, self._values(pos))) + b"\n")
                done = pos + 1
        out.write(self.text[self.offsets[done]:self.offsets[-1]])
        return out.getvalue()


def _respelled(line: bytes, old: list, new: list, layout: Layout) -> bytes:
    """A job line kept as written, with each field whose value changed spelled
    in the layout, right-aligned in the columns the old token and its
    padding took (at least one pad character before it)."""
    from ..swf.layout import spell, spell_line
    tokens = _TOKEN.findall(line)
    if len(tokens) != len(FIELDS):
        return spell_line(layout, new)
    out = []
    for k, (lead, token) in enumerate(tokens):
        if new[k] != old[k]:
            token = spell(layout, k, new[k])
            room = len(lead) + len(tokens[k][1])
            lead = (lead[-1:] or layout.pad.encode("ascii")) * max(1 if k else 0, room - len(token))
        out += [lead, token]
    used = sum(len(lead) + len(token) for lead, token in tokens)
    return b"".join(out) + line[used:]


# -- logs without a layout -----------------------------------------------------------


def _formatted(column: str, integer: bool) -> exp.Expression:
    """One field as SWF text: integers plain, doubles without a spurious
    '.0' and otherwise in their shortest round-trip form."""
    col = exp.column(column)
    as_text = exp.cast(col.copy(), "VARCHAR")
    if integer:
        return as_text
    whole = exp.cast(exp.cast(col.copy(), "BIGINT"), "VARCHAR")
    return exp.Case(ifs=[exp.If(this=col.eq(call("trunc", col.copy())), true=whole)], default=as_text)


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


def _rendered(archive: Archive, log_id: int, cond: exp.Expression) -> str:
    """A log without a layout: every header line where it stood, the jobs
    right-aligned in columns as wide as their widest value."""
    header = archive.con.execute(
        "SELECT line_no, text FROM header_lines WHERE log_id = ? ORDER BY seq", [log_id]
    ).fetchall()
    line_nos, lines = _job_lines(archive, cond)
    out = io.StringIO()
    # Header lines go back between the job lines they stood between.
    cut = np.searchsorted(line_nos, [ln for ln, _ in header]) if header else []
    start = 0
    for (_, line), pos in zip(header, cut):
        if pos > start:
            out.write("\n".join(lines[start:pos]))
            out.write("\n")
            start = pos
        out.write(line)
        out.write("\n")
    if start < len(lines):
        out.write("\n".join(lines[start:]))
        out.write("\n")
    return out.getvalue()


# -- query rows ----------------------------------------------------------------------

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
    body = json.dumps(json.loads(frame.to_json(orient="records", date_format="iso")), indent=1)
    if path is None:
        return body
    Path(path).write_text(body + "\n", encoding="utf-8")
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
