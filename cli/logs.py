"""Commands over the logs themselves: ingest, convert, ls, info, set, sql, export."""
from __future__ import annotations

import time
from pathlib import Path
from typing import List, Optional

import typer
from wla.archive.kernel.units import count

from . import options, progress, text
from .app import app, context
from .present import show
from .spelling import told


@app.command("ingest")
def ingest_cmd(
    paths: List[Path] = options.Paths,
    lenient: bool = options.Lenient,
    replace: bool = options.Replace,
    name: Optional[str] = options.Name,
    workers: int = options.Workers,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Ingest SWF logs; each file in its own transaction."""
    from wla.archive.store.ingest import IngestResult, find_files, ingest

    t0 = time.perf_counter()
    done: list[IngestResult] = []

    files = find_files(paths)  # a name that names nothing, a folder that cannot be read: no archive made
    with context(archive).writing(create=True) as a, progress.display("ingest", "files") as shown:
        total = len(files) if shown.drawn else 0  # counted for the bar only

        def report(r: IngestResult) -> None:
            with shown.above():
                if r.status == "failed":
                    typer.echo(f"wla: {told(r.error) if r.error is not None else r.message}", err=True)
                else:
                    typer.echo(f"{r.status:9} {r.name}: {r.message}")
            done.append(r)
            shown(len(done), total, f"{sum(d.jobs for d in done):,} jobs")

        results = ingest(a, files, lenient=lenient, replace=replace, name=name,
                         workers=workers, on_result=report)
    typer.echo(text.ingest(results, time.perf_counter() - t0))
    failed = any(r.status == "failed" for r in results)
    if failed:
        raise typer.Exit(1)


@app.command("convert")
def convert_cmd(
    path: Path = options.Records,
    fmt: str = options.RecordsFormat,
    name: Optional[str] = options.Name,
    out: Optional[Path] = options.KeepSwf,
    tz: Optional[str] = options.TimeZone,
    max_procs: Optional[int] = options.MaxProcs,
    replace: bool = options.Replace,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Turn raw accounting records into an SWF log (recovery, normalization, anonymization) and ingest it."""
    from wla.archive.convert.records import convert

    with context(archive).writing(create=True) as a:
        r = convert(a, path, fmt, name=name, out=out, tz=tz, max_procs=max_procs, replace=replace)
    typer.echo(f"{r.status} {r.name}: {r.message}")


@app.command("ls")
def ls_cmd(as_json: bool = options.Json, wide: bool = options.Wide,
           archive: Optional[Path] = options.Archive) -> None:
    """One row per log, its versions indented beneath it: period, machine size, users, jobs, utilization."""
    from wla.archive.store.listing import listing

    with context(archive).reading() as a:
        rows = listing(a)
    show(rows, as_json, text.catalog, wide=wide)


@app.command("info")
def info_cmd(
    log: str = options.Log,
    version: Optional[str] = options.Version,
    as_json: bool = options.Json,
    archive: Optional[Path] = options.Archive,
) -> None:
    """A log's (or version's) file, header lines, figures and known issues."""
    from wla.archive.analysis.caveats import known_issues
    from wla.archive.resolve import resolve
    from wla.archive.store.catalog import log_info

    with context(archive).reading() as a:
        name = resolve(a, log, version).name
        data = log_info(a, name)
        data["known_issues"] = [issue.to_dict() for issue in known_issues(a, name)]
    show(data, as_json, text.info)


@app.command("set")
def set_cmd(
    log: str = options.Log,
    fact: str = options.Fact,
    value: str = options.Value,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Set a fact a log's header lacks (machine size, start time, time zone)."""
    from wla.archive.resolve import resolve
    from wla.archive.store.catalog import set_fact

    with context(archive).writing() as a:
        typer.echo(set_fact(a, resolve(a, log).name, fact, value))


@app.command("note")
def note_cmd(
    log: str = options.Log,
    note: Optional[str] = options.NoteText,
    day: Optional[str] = options.NoteDate,
    as_json: bool = options.Json,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Keep a note on a log (what you know of it, with its day), or list its notes and known issues."""
    import datetime as dt

    from wla.archive.analysis.caveats import known_issues
    from wla.archive.kernel.errors import UsageError
    from wla.archive.resolve import resolve
    from wla.archive.store.notes import add_note, check_note

    if note is None:
        if day is not None:
            raise UsageError("--date is the day of a new note: give the note's text too")
        with context(archive).reading() as a:
            name = resolve(a, log).name
            shown = {"log": name, "known_issues": [i.to_dict() for i in known_issues(a, name)]}
        show(shown, as_json, text.known_issues_of)
        return
    check_note(note)  # before the archive is opened: a damaged note never waits for the lock
    try:
        on = None if day is None else dt.date.fromisoformat(day)
    except ValueError:
        raise UsageError(f"--date {day!r} is not a day written YYYY-MM-DD") from None
    with context(archive).writing() as a:
        named = resolve(a, log)
        kept = add_note(a, named.log, note, on)
    show({**kept.to_dict(), "log": named.log}, as_json,
         lambda n: f"noted on {n['log']} ({n['noted_on']}, note {n['seq']})")


@app.command("sql")
def sql_cmd(
    query: str = options.Query,
    fmt: str = options.SqlFormat,
    output: Optional[Path] = options.OutputFile,
    limit: int = options.SqlLimit,
    every: bool = options.SqlAll,
    wide: bool = options.Wide,
    read_files: bool = options.ReadFiles,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Run one read-only SQL query over all logs (tables: logs, jobs, typed_jobs, ...)."""
    from wla.archive.store.export import write_query

    from .render import wide as whole

    with context(archive).reading(read_files=read_files) as a:
        if fmt == "table":
            frame = a.sql(query)
        else:
            written = write_query(a, query, fmt, output)
    if fmt == "table":
        if output:  # a file holds every row, every cell whole
            with whole(True):
                output.write_text(text.table(frame) + "\n", encoding="utf-8")
        else:
            shown = frame if every or limit <= 0 or len(frame) <= limit else frame.head(limit)
            with whole(wide):
                typer.echo(text.table(shown))
            if len(shown) < len(frame):
                more = len(frame) - len(shown)
                typer.echo(f"... {count(more, 'more row')} (--limit N shows N, --all every one)")
    elif written is not None:
        typer.echo(written.rstrip("\n"))


@app.command("export")
def export_cmd(
    log: Optional[str] = options.OptionalLog,
    version: Optional[str] = options.Version,
    output: Path = options.ExportTo,
    query: Optional[str] = options.ExportQuery,
    where: Optional[str] = options.Where,
    exclude: Optional[str] = options.Exclude,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Write a log or version back as SWF (the file as ingested), CSV or Parquet, or a query's rows."""
    from wla.archive import UsageError
    from wla.archive.resolve import resolve
    from wla.archive.store.export import export, export_format, export_query

    if (log is None) == (query is None):
        raise UsageError("name a log or give --query, not both")
    if query is not None and version is not None:
        raise UsageError("--version applies to a log, not to a --query")
    fmt = export_format(output)
    with context(archive).reading() as a:
        if query is not None:
            export_query(a, query, output)
            typer.echo(f"wrote {output}")
            return
        n = export(a, resolve(a, log, version).name, output, where, exclude)
    typer.echo(f"wrote {output}: {n:,} jobs" if fmt == "swf" else f"wrote {output}")
