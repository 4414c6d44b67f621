"""Ingest: files in, one transaction per log.

Each worker thread reads, inflates, hashes, tokenizes and writes a file in
its own transaction, through its own cursor: zlib, hashlib, the compiled
tokenizer and DuckDB all release the GIL, and DuckDB takes appends to one
table from several transactions at once. Log ids are fixed before any work
starts and results are reported in file order, so nothing depends on timing.
"""
from __future__ import annotations

import errno
import hashlib
import os
import queue
import stat
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import duckdb
import pandas as pd
from sqlglot import exp

from ..kernel.errors import InputError, InvalidName, LogExists, ParameterError, UsageError, WlaError, visible
from ..kernel.names import check_log_name
from ..kernel.ranges import MAX_WORKERS, whole
from ..kernel.statements import delete_where, insert_row, insert_select, run
from ..swf.header import header_facts
from ..swf.reader import ParsedLog, log_name, parse_bytes, read_bytes
from ..swf.tokenizer import warm
from .figures import keep_figures
from .file import Archive, one_line, transaction

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


def _readable(folder: Path) -> None:
    """Refuse a folder, or a folder inside it, that cannot be listed: a
    listing that silently skipped it would say the files are not there."""
    def refuse(e: OSError) -> None:
        raise InputError(e.filename or str(folder), None, e.strerror.lower() if e.strerror else str(e))

    for _ in os.walk(folder, onerror=refuse):
        pass


def find_files(paths: Iterable[str | os.PathLike]) -> list[str]:
    """The SWF files named, and those inside named folders (sorted). Only a
    name that names nothing is refused here; anything else named, and every
    entry of a folder named *.swf or *.swf.gz whatever it is (a FIFO, a
    device, a folder, a link loop), goes on to be read, which reports one that
    is not a readable regular file as a failed file while the others go in."""
    out: list[str] = []
    for p in paths:
        path = Path(p)
        try:
            is_dir = stat.S_ISDIR(os.stat(path).st_mode)
        except OSError as e:
            if e.errno in (errno.ENOENT, errno.ENOTDIR) and not path.is_symlink():
                raise InputError(str(path), None, "no such file or folder") from None
            is_dir = False
        except ValueError:  # a NUL in the name
            raise InputError(str(path), None, "not a file name") from None
        if is_dir:
            _readable(path)
            found = sorted(
                str(f) for f in path.rglob("*")
                if f.name.lower().endswith(SWF_SUFFIXES)
            )
            if not found:
                raise UsageError(f"{path}: no .swf or .swf.gz files in this folder")
            out.extend(found)
        else:
            out.append(str(path))
    return out


@dataclass
class _Plan:
    index: int  # position in the batch: results and ties go by it
    path: str
    name: str
    log_id: int  # assigned up front, in file order, so ids do not depend on timing
    refused: WlaError | None = None  # a file whose own name is no log name fails alone


class _Batch:
    """What the workers of one ingest share: the names and bytes already held."""

    def __init__(self, held: list[tuple[int, str, str, str]]):
        self.lock = threading.Lock()
        self.files = {name: file for _, name, _, file in held}  # name -> file it came from
        self.shas = {sha: (-1, name) for _, name, sha, _ in held}  # sha -> (index, name)
        self.done: queue.SimpleQueue[tuple[int, IngestResult]] = queue.SimpleQueue()
        self.warm: Callable[[], object] | None = None  # once a file is read: load the tokenizer

    def file_read(self) -> None:
        """A file's bytes are in: load (or compile) the tokenizer beside the
        reading of the others; not before, so that a run whose files all fail
        to open neither waits for nor announces a compile."""
        with self.lock:
            start, self.warm = self.warm, None
        if start is not None:
            start()


def _plans(held: list[tuple[int, str, str, str]], files: list[str],
           name: str | None) -> list[_Plan]:
    ids = {nm: log_id for log_id, nm, _, _ in held}
    next_id = max(ids.values(), default=0) + 1
    plans = []
    for i, f in enumerate(files):
        if name is not None:
            nm = check_log_name(name, where=visible(f))
        else:
            nm = log_name(f)
            try:
                check_log_name(nm, where=visible(f))
            except InvalidName as e:
                plans.append(_Plan(i, f, nm, 0, e))
                continue
        if nm not in ids:
            ids[nm], next_id = next_id, next_id + 1
        plans.append(_Plan(i, f, nm, ids[nm]))
    return plans


def ingest(
    archive: Archive,
    paths: Iterable[str | os.PathLike],
    lenient: bool = False,
    replace: bool = False,
    name: str | None = None,
    workers: int = 2,
    on_result: Callable[[IngestResult], None] | None = None,
) -> list[IngestResult]:
    """Ingest SWF files and folders; a file that fails leaves the archive as
    it was. Results (and `on_result` calls) come in the order of the files."""
    archive.require_writable()
    workers = whole("workers", workers, 1, MAX_WORKERS)
    files = find_files(paths)
    if name is not None and len(files) != 1:
        raise ParameterError("{name} needs exactly one file", "name")
    held = archive.con.execute("SELECT log_id, name, sha256, file_name FROM logs").fetchall()
    plans = _plans(held, files, name)
    batch = _Batch(held)
    groups: dict[str, list[_Plan]] = {}
    for plan in plans:  # one log name, one worker: its files go in order
        if plan.refused is not None:
            refused = type(plan.refused).naming(f"{plan.refused}; ingest it with {{name}}", "name")
            batch.done.put((plan.index, IngestResult(plan.path, plan.name, "failed", message=str(refused),
                                                     error=refused)))
        else:
            groups.setdefault(plan.name, []).append(plan)
    results: list[IngestResult | None] = [None] * len(plans)
    shown = 0
    with archive.bulk_writes(), ThreadPoolExecutor(max_workers=workers) as pool:
        batch.warm = lambda: pool.submit(warm)
        futures = [pool.submit(_ingest_group, archive.con.cursor(), group, lenient, replace, batch)
                   for group in groups.values()]
        for _ in plans:
            i, res = batch.done.get()
            if isinstance(res, BaseException):
                raise res
            results[i] = res
            while shown < len(results) and results[shown] is not None:
                if on_result is not None:
                    on_result(results[shown])
                shown += 1
        for fut in futures:
            fut.result()
    _keep_first_of_same_bytes(archive, plans, results)
    return results  # type: ignore[return-value]


def _ingest_group(con: duckdb.DuckDBPyConnection, group: list[_Plan], lenient: bool,
                  replace: bool, batch: _Batch) -> None:
    try:
        for plan in group:
            try:
                res = _ingest_one(con, plan, lenient, replace, batch)
            except WlaError as e:
                res = IngestResult(plan.path, plan.name, "failed", message=str(e), error=e)
            except duckdb.Error as e:  # rolled back; the other files go on
                err = WlaError(f"{plan.path}: database error: {one_line(e)}")
                res = IngestResult(plan.path, plan.name, "failed", message=str(err), error=err)
            except BaseException as e:  # a bug: the caller re-raises it
                batch.done.put((plan.index, e))
                raise
            batch.done.put((plan.index, res))
    finally:
        con.close()


def _same_bytes(name: str, existing: str) -> str:
    where = "" if existing == name else f" as log {existing!r}"
    return f"already in the archive{where} (same bytes); nothing to do"


def _ingest_one(con: duckdb.DuckDBPyConnection, plan: _Plan, lenient: bool, replace: bool,
                batch: _Batch) -> IngestResult:
    data, size = read_bytes(plan.path)
    batch.file_read()
    sha = hashlib.sha256(data).hexdigest()
    with batch.lock:
        holder = batch.shas.get(sha)
        if holder is None or holder[0] > plan.index:
            batch.shas[sha] = (plan.index, plan.name)
        current = batch.files.get(plan.name)
    if holder is not None and holder[0] < plan.index:
        return IngestResult(plan.path, plan.name, "unchanged", message=_same_bytes(plan.name, holder[1]))
    if current is not None and not replace:
        raise LogExists.naming(
            f"{plan.path}: the archive already holds a different log named {plan.name!r} "
            f"(from {current}); use {{replace}} to replace it, or {{name}} to ingest it under another name",
            "replace", "name")
    if current is not None:
        _check_replaceable(con, plan)
    p = parse_bytes(plan.path, data, size, lenient, plan.name, sha=sha)
    del data
    facts = header_facts(p.header)
    # Checked before the transaction: a failed query would abort it.
    facts["tz"] = valid_tz(con, facts["time_zone_string"])
    with transaction(con):
        if current is not None:
            _delete_log(con, plan.log_id)
        _insert_log(con, plan.log_id, p, facts)
    with batch.lock:
        batch.files[plan.name] = plan.path
    status = "replaced" if current is not None else "ingested"
    msg = f"{p.jobs:,} jobs, {len(p.header)} header lines"
    if p.rejects:
        msg += f", {len(p.rejects):,} bad lines kept in rejects"
    return IngestResult(p.path, p.name, status, p.jobs, len(p.rejects), msg)


def _check_replaceable(con: duckdb.DuckDBPyConnection, plan: _Plan) -> None:
    """A cleaned version is not a file, and an original with versions would
    leave them describing jobs it no longer has."""
    kind = con.execute("SELECT kind FROM logs WHERE log_id = ?", [plan.log_id]).fetchall()
    if kind and kind[0][0] == "version":
        raise LogExists(f"{plan.path}: {plan.name!r} is a cleaned version; ingest the file under another name")
    found = con.execute("SELECT name FROM versions WHERE base_log_id = ? OR source_log_id = ? ORDER BY name",
                        [plan.log_id, plan.log_id]).fetchall()
    if kind and kind[0][0] == "resampled":
        raise LogExists(f"{plan.path}: {plan.name!r} is a resampled workload; ingest the file under another name")
    derived = con.execute("SELECT name FROM logs WHERE source_log_id = ? AND kind = 'resampled' ORDER BY name",
                          [plan.log_id]).fetchall()
    if derived:
        raise LogExists(f"{plan.path}: {plan.name!r} has resampled workloads ({', '.join(r[0] for r in derived)}); "
                        "it cannot be replaced (ingest the file under another name)")
    if found:
        raise LogExists(f"{plan.path}: {plan.name!r} has cleaned versions ({', '.join(r[0] for r in found)}); "
                        "it cannot be replaced (ingest the file under another name)")


def _keep_first_of_same_bytes(archive: Archive, plans: list[_Plan],
                              results: list[IngestResult | None]) -> None:
    """Two files of one batch with the same bytes under different names can
    both go in when they are read at once; the later one is taken out again,
    so the outcome is what reading them in order gives."""
    stored = archive.con.execute(
        "SELECT sha256, list(log_id ORDER BY log_id) FROM logs GROUP BY sha256 HAVING count(*) > 1"
    ).fetchall()
    by_id = {p.log_id: p for p in plans if p.refused is None}
    for _, ids in stored:
        ours = sorted((by_id[i] for i in ids if i in by_id), key=lambda p: p.index)
        keep = next((p for p in ours if results[p.index].status != "unchanged"), None)
        for plan in ours:
            res = results[plan.index]
            if plan is keep or res.status not in ("ingested", "replaced"):
                continue
            with transaction(archive.con):
                _delete_log(archive.con, plan.log_id)
            results[plan.index] = IngestResult(plan.path, plan.name, "unchanged",
                                               message=_same_bytes(plan.name, keep.name))


def _delete_log(con: duckdb.DuckDBPyConnection, log_id: int) -> None:
    for table in ("jobs", "log_figures", "header_lines", "rejects", "verbatim_lines", "logs"):
        run(con, delete_where(table, "log_id"), [log_id])


def valid_tz(con: duckdb.DuckDBPyConnection, name: str | None) -> str | None:
    """`name` if the database knows that time zone, else None."""
    if not name:
        return None
    try:
        con.execute("SELECT timezone(?, TIMESTAMPTZ '2000-01-01 00:00:00+00')", [name]).fetchall()
    except duckdb.Error:
        return None
    return name


def _insert_log(con: duckdb.DuckDBPyConnection, log_id: int, p: ParsedLog,
                facts: dict[str, object]) -> None:
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
        "layout": p.layout.to_json() if p.layout is not None else None,
        **facts,
    }
    run(con, insert_row("logs", list(row), now=["ingested_at"]), list(row.values()))
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
    keep_figures(con, log_id)
    if p.rejects:
        rejects = pd.DataFrame(
            {
                "line_no": [r.line_no for r in p.rejects],
                "text": [r.text for r in p.rejects],
                "reason": [r.reason for r in p.rejects],
            }
        )
        _append(con, "rejects", log_id, rejects)
    if p.verbatim:
        verbatim = pd.DataFrame({"line_no": [ln for ln, _ in p.verbatim],
                                 "text": [text for _, text in p.verbatim]})
        _append(con, "verbatim_lines", log_id, verbatim)


def _append(con: duckdb.DuckDBPyConnection, table: str, log_id: int, frame: pd.DataFrame) -> None:
    con.register("_incoming", frame)
    try:
        run(con, insert_select(table, exp.select(exp.Literal.number(int(log_id)), "*").from_("_incoming")))
    finally:
        con.unregister("_incoming")
