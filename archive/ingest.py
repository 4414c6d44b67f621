"""Ingest: files in, one transaction per log.

Reading, inflating, hashing and tokenizing run on a thread pool (zlib,
hashlib and the compiled tokenizer release the GIL); the main thread writes
each parsed file in its own transaction, in the order given, while the next
files are being parsed.
"""
from __future__ import annotations

import hashlib
import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import duckdb
import pandas as pd

from .errors import InputError, LogExists, UsageError, WlaError
from .header import header_facts
from .reader import ParsedLog, log_name, parse_bytes, read_bytes
from .store import Archive
from .tokenizer import warm

SWF_SUFFIXES = (".swf", ".swf.gz")


@dataclass
class IngestResult:
    path: str
    name: str
    status: str  # 'ingested', 'replaced', 'unchanged' or 'failed'
    jobs: int = 0
    rejects: int = 0
    message: str = ""
    error: WlaError | None = None


def find_files(paths: Iterable[str | os.PathLike]) -> list[str]:
    """The SWF files named, and those inside named folders (sorted)."""
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(
                str(f) for f in path.rglob("*")
                if f.is_file() and f.name.lower().endswith(SWF_SUFFIXES)
            )
            if not found:
                raise UsageError(f"{path}: no .swf or .swf.gz files in this folder")
            out.extend(found)
        elif path.exists():
            out.append(str(path))
        else:
            raise InputError(str(path), None, "no such file or folder")
    return out


class _Unchanged(Exception):
    def __init__(self, sha: str):
        self.sha = sha


def _read(path: str, name: str, lenient: bool, known_sha: set[str]) -> ParsedLog:
    data, size = read_bytes(path)
    sha = hashlib.sha256(data).hexdigest()
    if sha in known_sha:
        raise _Unchanged(sha)
    return parse_bytes(path, data, size, lenient, name, sha=sha)


def ingest(
    archive: Archive,
    paths: Iterable[str | os.PathLike],
    lenient: bool = False,
    replace: bool = False,
    name: str | None = None,
    workers: int = 2,
    on_result: Callable[[IngestResult], None] | None = None,
) -> list[IngestResult]:
    """Ingest SWF files and folders; a file that fails leaves the archive as it was."""
    archive.require_writable()
    files = find_files(paths)
    if name is not None and len(files) != 1:
        raise UsageError("--name needs exactly one file")
    known = dict(archive.con.execute("SELECT sha256, name FROM logs").fetchall())
    results: list[IngestResult] = []
    with archive.bulk_writes(), ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        pool.submit(warm)  # overlaps loading the compiled tokenizer with reading
        futures: list[tuple[str, str, Future]] = []
        for f in files:
            nm = name or log_name(f)
            futures.append((f, nm, pool.submit(_read, f, nm, lenient, set(known))))
        for f, nm, fut in futures:
            try:
                res = _store(archive, fut.result(), replace, known)
            except _Unchanged as u:
                res = IngestResult(f, nm, "unchanged",
                                   message=_same_bytes(nm, known[u.sha]))
            except WlaError as e:
                res = IngestResult(f, nm, "failed", message=str(e), error=e)
            results.append(res)
            if on_result is not None:
                on_result(res)
    return results


def _same_bytes(name: str, existing: str) -> str:
    where = "" if existing == name else f" as log {existing!r}"
    return f"already in the archive{where} (same bytes); nothing to do"


def _store(archive: Archive, p: ParsedLog, replace: bool, known: dict[str, str]) -> IngestResult:
    con = archive.con
    if p.sha256 in known:
        return IngestResult(p.path, p.name, "unchanged", message=_same_bytes(p.name, known[p.sha256]))
    rows = con.execute("SELECT log_id, file_name FROM logs WHERE name = ?", [p.name]).fetchall()
    row = rows[0] if rows else None
    if row is not None and not replace:
        raise LogExists(
            f"{p.path}: the archive already holds a different log named {p.name!r} "
            f"(from {row[1]}); use --replace to replace it, or --name to ingest it under another name"
        )
    with archive.transaction():
        if row is not None:
            log_id = int(row[0])
            for table in ("jobs", "header_lines", "rejects", "logs"):
                con.execute(f"DELETE FROM {table} WHERE log_id = ?", [log_id])
        else:
            log_id = int(con.execute("SELECT coalesce(max(log_id), 0) + 1 FROM logs").fetchall()[0][0])
        _insert_log(con, log_id, p)
    for sha, nm in list(known.items()):
        if nm == p.name:
            del known[sha]
    known[p.sha256] = p.name
    status = "replaced" if row is not None else "ingested"
    msg = f"{p.jobs:,} jobs, {len(p.header)} header lines"
    if p.rejects:
        msg += f", {len(p.rejects):,} bad lines kept in rejects"
    return IngestResult(p.path, p.name, status, p.jobs, len(p.rejects), msg)


def valid_tz(con: duckdb.DuckDBPyConnection, name: str | None) -> str | None:
    """`name` if the database knows that time zone, else None."""
    if not name:
        return None
    try:
        con.execute("SELECT timezone(?, TIMESTAMPTZ '2000-01-01 00:00:00+00')", [name]).fetchall()
    except duckdb.Error:
        return None
    return name


def _insert_log(con: duckdb.DuckDBPyConnection, log_id: int, p: ParsedLog) -> None:
    facts = header_facts(p.header)
    facts["tz"] = valid_tz(con, facts["time_zone_string"])
    row = {
        "log_id": log_id,
        "name": p.name,
        "file_name": p.path,
        "file_size": p.file_size,
        "data_size": p.data_size,
        "sha256": p.sha256,
        "lenient": p.lenient,
        "lines": p.lines,
        "header_lines": len(p.header),
        "blank_lines": p.blank_lines,
        "jobs": p.jobs,
        "rejects": len(p.rejects),
        **facts,
    }
    cols = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    con.execute(
        f"INSERT INTO logs (ingested_at, {cols}) VALUES (now(), {marks})", list(row.values())
    )
    if p.header:
        header = pd.DataFrame(
            {
                "seq": range(1, len(p.header) + 1),
                "line_no": [h.line_no for h in p.header],
                "text": [h.text for h in p.header],
                "label": [h.label for h in p.header],
                "value": [h.value for h in p.header],
            }
        )
        _append(con, "header_lines", log_id, header)
    _append(con, "jobs", log_id, pd.DataFrame(p.columns, copy=False))
    if p.rejects:
        rejects = pd.DataFrame(
            {
                "line_no": [r.line_no for r in p.rejects],
                "text": [r.text for r in p.rejects],
                "reason": [r.reason for r in p.rejects],
            }
        )
        _append(con, "rejects", log_id, rejects)


def _append(con: duckdb.DuckDBPyConnection, table: str, log_id: int, frame: pd.DataFrame) -> None:
    con.register("_incoming", frame)
    try:
        con.execute(f"INSERT INTO {table} SELECT {int(log_id)}, * FROM _incoming")
    finally:
        con.unregister("_incoming")
