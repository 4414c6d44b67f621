"""The `wla` command: parses arguments, calls wla's functions, prints."""
from __future__ import annotations

import errno
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import List, Optional

import duckdb
import pandas as pd
import typer
from wla.archive import WlaError
from wla.archive import open as open_archive
from wla.archive.analysis.quality import COUNTS, quality
from wla.archive.convert.records import convert
from wla.archive.errors import OptionError
from wla.archive.store.catalog import SETTABLE, catalog, log_info, set_fact
from wla.archive.store.export import export_swf, log_query, write_query
from wla.archive.store.file import one_line
from wla.archive.store.ingest import IngestResult, ingest

from . import analysis, cleaning, simulation  # noqa: F401  (register their commands)
from .app import ArchiveOpt, Escaped, ExcludeOpt, WhereOpt, _chosen, app, archive_path
from .render import frame_text, percent_columns


@app.command("ingest")
def ingest_cmd(
    paths: List[Path] = typer.Argument(..., readable=False, help=".swf / .swf.gz files and folders"),
    lenient: bool = typer.Option(False, help="Keep bad lines in the rejects table instead of refusing the file"),
    replace: bool = typer.Option(False, help="Replace a log of the same name holding a different file"),
    name: Optional[str] = typer.Option(None, help="Log name (one file only) [default: file name]"),
    workers: int = typer.Option(2, help="Files parsed at once"),
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Ingest SWF logs; each file in its own transaction."""
    t0 = time.perf_counter()

    def report(r: IngestResult) -> None:
        if r.status == "failed":
            typer.echo(f"wla: {r.message}", err=True)
        else:
            typer.echo(f"{r.status:9} {r.name}: {r.message}")

    with open_archive(archive_path(archive), write=True) as a:
        results = ingest(a, paths, lenient=lenient, replace=replace, name=name,
                         workers=workers, on_result=report)
    dt = time.perf_counter() - t0
    done = [r for r in results if r.status in ("ingested", "replaced")]
    jobs = sum(r.jobs for r in done)
    failed = sum(r.status == "failed" for r in results)
    rejects = sum(r.rejects for r in done)
    line = f"{len(done)} logs, {jobs:,} jobs in {dt:.2f} s"
    if rejects:
        line += f"; {rejects:,} bad lines kept in rejects"
    unchanged = sum(r.status == "unchanged" for r in results)
    if unchanged:
        line += f"; {unchanged} unchanged"
    if failed:
        line += f"; {failed} failed"
    typer.echo(line)
    if failed:
        raise typer.Exit(1)


@app.command("convert")
def convert_cmd(
    path: Path = typer.Argument(..., readable=False,
                                help="Accounting records: a CSV with named columns, or sacct --parsable2 output"),
    fmt: str = typer.Option(..., "--format", "-f", help="csv or sacct"),
    name: Optional[str] = typer.Option(None, help="Log name [default: the file's name]"),
    out: Optional[Path] = typer.Option(None, "--out", "-o", readable=False, help="Also keep the SWF file here"),
    tz: Optional[str] = typer.Option(None, help="Time zone of times written without one, e.g. Europe/Paris"),
    max_procs: Optional[int] = typer.Option(None, help="Processors of the machine (the header's MaxProcs)"),
    replace: bool = typer.Option(False, help="Replace a log of the same name"),
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Turn raw accounting records into an SWF log (recovery, normalization, anonymization) and ingest it."""
    with open_archive(archive_path(archive), write=True) as a:
        r = convert(a, path, fmt, name=name, out=out, tz=tz, max_procs=max_procs, replace=replace)
    typer.echo(f"{r.status} {r.name}: {r.message}")


@app.command("ls")
def ls_cmd(archive: Optional[Path] = ArchiveOpt) -> None:
    """One row per log: period, machine size, users, jobs, utilization."""
    with open_archive(archive_path(archive)) as a:
        frame = catalog(a)
    typer.echo(frame_text(percent_columns(frame, ["utilization"])))


@app.command("info")
def info_cmd(log: str, archive: Optional[Path] = ArchiveOpt) -> None:
    """A log's file, header lines and figures."""
    with open_archive(archive_path(archive)) as a:
        info = log_info(a, log)
    row, summary = info["log"], info["summary"]
    typer.echo(f"{row['name']}  (from {row['file_name']}, {row['file_size']:,} bytes, "
               f"sha256 {row['sha256']}, ingested {row['ingested_at']})")
    typer.echo("")
    for text in info["header"]["text"]:
        typer.echo(text)
    if info["header"].empty:
        typer.echo("(no header lines)")
    typer.echo("")
    size = row["machine_size"]
    facts = {
        "jobs": f"{row['jobs']:,}",
        "rejected lines": f"{row['rejects']:,}",
        "machine size": (f"{int(size)} ({row['machine_size_source']})" if pd.notna(size)
                         else "unknown: set it with `wla set LOG max-procs N`"),
        "time zone": row["tz"] if row["tz"] else "unknown (UTC used)",
        "first submit": _day(summary["first_submit_date"]),
        "last submit": _day(summary["last_submit_date"]),
        "months": summary["months"],
        "users": summary["users"],
        "utilization": (f"{summary['utilization']:.1%}" if pd.notna(summary["utilization"])
                        else "unknown"),
    }
    width = max(map(len, facts))
    for k, v in facts.items():
        typer.echo(f"{k:>{width}}: {v}")


def _day(value) -> str:
    return "unknown" if pd.isna(value) else str(pd.Timestamp(value).date())


@app.command("set")
def set_cmd(
    log: str,
    fact: str = typer.Argument(..., help=f"One of: {', '.join(SETTABLE)}"),
    value: str = typer.Argument(...),
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Set a fact a log's header lacks (machine size, start time, time zone)."""
    with open_archive(archive_path(archive), write=True) as a:
        typer.echo(set_fact(a, log, fact, value))


@app.command("sql")
def sql_cmd(
    query: str,
    fmt: str = typer.Option("table", "--format", "-f", help="table, csv, json or parquet"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", readable=False, help="Write to this file"),
    read_files: bool = typer.Option(False, "--read-files",
                                    help="Let the query read files (read_csv, read_parquet, ...); off by default"),
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Run one read-only SQL query over all logs (tables: logs, jobs, typed_jobs, ...)."""
    with open_archive(archive_path(archive), read_files=read_files) as a:
        if fmt == "table":
            frame = a.sql(query)
            text = frame_text(frame)
            if output:
                output.write_text(text + "\n", encoding="utf-8")
            else:
                typer.echo(text)
            return
        text = write_query(a, query, fmt, output)
    if text is not None:
        typer.echo(text.rstrip("\n"))


@app.command("export")
def export_cmd(
    log: Optional[str] = typer.Argument(None, help="Log to export"),
    output: Path = typer.Option(..., "--output", "-o", readable=False,
                                help="FILE.swf, FILE.swf.gz or FILE.parquet"),
    query: Optional[str] = typer.Option(None, help="Export this query's rows instead of a log (Parquet)"),
    where: Optional[str] = WhereOpt,
    exclude: Optional[str] = ExcludeOpt,
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Write a log back as SWF, or a log or query as Parquet."""
    if (log is None) == (query is None):
        raise WlaError("name a log or give --query, not both")
    parquet = output.suffix.lower() == ".parquet"
    with open_archive(archive_path(archive)) as a:
        if query is not None:
            if not parquet:
                raise WlaError("--query exports to Parquet: name the output FILE.parquet")
            write_query(a, query, "parquet", output)
            typer.echo(f"wrote {output}")
        elif parquet:
            write_query(a, log_query(a, log, where, exclude), "parquet", output)
            typer.echo(f"wrote {output}")
        else:
            n = export_swf(a, log, output, where, exclude)
            typer.echo(f"wrote {output}: {n:,} jobs")


@app.command("quality")
def quality_cmd(
    logs: Optional[List[str]] = typer.Argument(None, help="Logs [default: all]"),
    as_json: bool = typer.Option(False, "--json", help="Print JSON"),
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Inconsistency counts, utilization and its exceptions, per log."""
    with open_archive(archive_path(archive)) as a:
        frame = quality(a, logs or None)
    if as_json:
        typer.echo(json.dumps(json.loads(frame.to_json(orient="records", date_format="iso")), indent=1))
        return
    counts = frame[["name", "jobs", *COUNTS]].rename(columns=SHORT)
    typer.echo(frame_text(counts))
    typer.echo("")
    usage = frame[["name", "first_submit_date", "last_submit_date", "users", "machine_size",
                   "utilization", "exceptions", "worst_excess", "ceiling", "ceiling_share",
                   "flurry_weeks", "large_flurry_weeks", "dominant_users"]].rename(
        columns={"flurry_weeks": "flurries", "large_flurry_weeks": "large", "dominant_users": "dominant"})
    typer.echo(frame_text(percent_columns(usage, ["utilization", "ceiling_share"])))


SHORT = {
    "missing_submit": "no_submit", "missing_start": "no_start", "missing_run": "no_run",
    "negative_wait": "neg_wait", "negative_run": "neg_run",
    "run_over_requested": "run>req", "procs_over_requested": "procs>req",
    "mem_over_requested": "mem>req", "cpu_over_run": "cpu>run",
}


TRACEBACK_ENV = "WLA_TRACEBACK"
EX_SOFTWARE = 70  # sysexits.h: a bug in wla, not in its input
EX_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C
EX_PIPE = 141  # 128 + SIGPIPE: whoever read the output stopped (`wla sql ... | head`)


def main() -> None:
    """The `wla` command. Whatever ends it early is one line on stderr: status
    1 for what the user can change (input, options, memory), 130 for an
    interrupt, 70 for a bug in wla; a closed output pipe ends it quietly.
    WLA_TRACEBACK=1 raises instead, with the traceback."""
    logging.getLogger("sqlglot").setLevel(logging.ERROR)  # its warnings would print before wla's error
    try:
        try:
            app()
        finally:
            sys.stdout.flush()  # a closed pipe shows here, not in Python's flush at exit
    except SystemExit:
        raise
    except BaseException as e:  # every way out is reported below
        error = e.error if isinstance(e, Escaped) else e
        if os.environ.get(TRACEBACK_ENV, "") not in ("", "0"):
            if error is e:
                raise
            raise error from None
        try:
            status, message = failure(error)
        except Exception:  # the report itself failed: still one line
            status, message = EX_SOFTWARE, _internal(error)
        if message is not None:
            try:
                typer.echo(f"wla: {message}", err=True)
            except OSError:  # stderr closed too: the status is all that is left
                pass
        sys.exit(status)


def failure(error: BaseException) -> tuple[int, str | None]:
    """The exit status and the one line (None: say nothing) for an exception
    that ended a command."""
    if isinstance(error, OptionError):
        return 1, f"{_spelled(error.name)} {error.problem}"
    if isinstance(error, WlaError):
        return 1, " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    if isinstance(error, (KeyboardInterrupt, duckdb.InterruptException)):
        return EX_INTERRUPTED, "interrupted"
    if isinstance(error, (MemoryError, duckdb.OutOfMemoryException)):
        command = _chosen.get("command")
        return 1, "out of memory" + (f" while running `wla {command}`" if command else "")
    if isinstance(error, duckdb.Error):  # a database failure wla did not foresee: still one line
        return 1, f"database error: {one_line(error)}"
    if isinstance(error, OSError) and error.errno == errno.EPIPE:
        _quiet_stdout()
        return EX_PIPE, None
    if isinstance(error, OSError) and error.errno is not None and error.strerror:
        # The system refused: a file given (an output folder that is missing,
        # a file that cannot be written), a full disk. Not a bug in wla.
        return 1, (f"{error.filename}: " if error.filename else "") + error.strerror
    return EX_SOFTWARE, _internal(error)


def _internal(error: BaseException) -> str:
    what = f"{type(error).__name__}: {one_line(error)}" if str(error).strip() else type(error).__name__
    return f"internal error: {what} (set {TRACEBACK_ENV}=1 to see the traceback; please report it)"


def _spelled(name: str) -> str:
    """A parameter as the command line spells it: --load-factor for
    load_factor, JOB for an argument; the name itself outside a command."""
    from typer.main import get_command

    command = get_command(app).commands.get(_chosen.get("command", ""))
    for param in command.params if command is not None else []:
        if param.name == name:
            if param.param_type_name == "option":
                return max(param.opts, key=len)
            return name.upper()  # an argument, as --help shows it
    return name


def _quiet_stdout() -> None:
    """Point stdout at the null device: Python flushes it again at exit, and
    would fail on the closed pipe with a message of its own."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, sys.stdout.fileno())
        finally:
            os.close(null)
    except (OSError, ValueError, AttributeError):  # no descriptor (tests capture into memory)
        pass


if __name__ == "__main__":
    main()
