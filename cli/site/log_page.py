"""What a log's page shows: the file, the header lines as written, the
quality report, the header audit, the known issues, the flurry candidates
and the versions;
the figures are drawn apart (figures.py) from the same jobs."""
from __future__ import annotations

import pandas as pd
from wla.archive.analysis.quality import COUNTS
from wla.archive.kernel.errors import UsageError
from wla.archive.kernel.plain import plain, records
from wla.archive.store.file import Archive

# The logs row as the page lists it: the file first, then what the header
# said, then what the archive uses. The layout is for export, not for people.
FILE_FACTS = ["file_name", "file_size", "data_size", "sha256", "ingested_at", "lenient", "lines",
              "header_lines", "blank_lines", "jobs", "rejects"]
HIDDEN = {"log_id", "name", "layout", "kind", "source_log_id"}
USAGE = ["utilization", "users", "first_submit_date", "last_submit_date", "months", "machine_size",
         "machine_size_source", "exceptions", "worst_excess", "ceiling", "ceiling_share", "peak_at",
         "flurry_weeks", "large_flurry_weeks", "dominant_users"]
FLURRY_COLUMNS = ["kind", "user", "period", "date", "jobs", "ratio", "share", "large", "median_procs",
                  "median_run", "proc_seconds_share", "predicate"]


def file_facts(archive: Archive, name: str) -> list[tuple[str, object]]:
    """(column, value) of the log's row: the file's facts, then the header's
    known ones."""
    cursor = archive.con.execute(  # instants in UTC, whatever the machine's zone
        "SELECT * REPLACE (strftime(timezone('UTC', ingested_at), '%Y-%m-%d %H:%M:%S UTC') AS ingested_at) "
        "FROM logs WHERE log_id = ?", [archive.log_id(name)])
    row = dict(zip((d[0] for d in cursor.description), cursor.fetchall()[0]))
    facts = [(c, row[c]) for c in FILE_FACTS]
    facts += [(c, v) for c, v in row.items() if c not in HIDDEN and c not in FILE_FACTS and v is not None]
    return [(c, plain(v)) for c, v in facts]


def header_lines(archive: Archive, name: str) -> list[str]:
    """Every comment line of the log, in file order, as written."""
    return [r[0] for r in archive.con.execute(
        "SELECT text FROM header_lines WHERE log_id = ? ORDER BY seq", [archive.log_id(name)]).fetchall()]


def quality_tables(row: dict) -> dict[str, list[tuple[str, object]]]:
    """One log's row of the quality report as two lists: its inconsistency
    counts and its usage (exceptions, ceiling, flurries)."""
    return {"counts": [("jobs", plain(row["jobs"]))] + [(c, plain(row[c])) for c in COUNTS],
            "usage": [(c, plain(row[c])) for c in USAGE]}


def flurry_table(jobs: pd.DataFrame, facts: dict) -> dict:
    """Every flurry candidate (weekly, daily, dominant users) and the
    averages they were judged by, or why there are none to show."""
    from wla.archive.analysis.flurries import flurries

    try:
        report = flurries(jobs, unix_start_time=facts.get("unix_start_time"), tz=facts.get("tz"))
    except UsageError as e:
        return {"columns": FLURRY_COLUMNS, "rows": [], "summary": str(e), "weekly_average": None}
    rows = [{c: d[c] for c in FLURRY_COLUMNS} for d in (c.to_dict() for c in report.candidates)]
    summary = (f"{report.jobs:,} jobs over {report.weeks:,} weeks; average {report.weekly_average:,.0f} jobs "
               f"a week, {report.daily_average:,.0f} a day")
    return {"columns": FLURRY_COLUMNS, "rows": rows, "summary": summary, "weekly_average": report.weekly_average}


def log_versions(archive: Archive, name: str) -> list[dict]:
    """The versions built from this original, in the order they were built."""
    from wla.archive.clean.versions import versions

    frame = versions(archive, name)
    return records(frame)


def header_audit(archive: Archive, name: str) -> dict:
    """The header audit: what each header line claims against what the jobs
    show, its verdict, and one line per claim the jobs contradict."""
    from wla.archive.analysis import header_audit as audit

    frame = audit.header_audit(archive, name)
    return {"verdict": audit.verdict(frame), "mismatches": audit.mismatch_lines(frame),
            "columns": list(frame.columns),
            "rows": records(frame)}


def diagnosis(name: str, jobs: pd.DataFrame, facts: dict, header: list[str]) -> dict:
    """The diagnosis's findings, as `wla quality` prints them, and how many
    detectors looked, from the jobs the page already read."""
    from wla.archive.analysis.diagnosis.diagnose import diagnose_data
    from wla.archive.analysis.diagnosis.log_data import of_frame
    from wla.archive.analysis.diagnosis.registry import DETECTORS

    return {"findings": [f.as_dict() for f in diagnose_data(of_frame(name, jobs, facts, header))],
            "detectors": len(DETECTORS)}
def known_issues(archive: Archive, name: str) -> list[dict]:
    """What is known of the log: the caveats wla ships for it and the user's
    notes, each with where it comes from (the paper's section, the note's day)."""
    from wla.archive.analysis.caveats import known_issues as issues

    return [{**i.to_dict(), "where": i.where()} for i in issues(archive, name)]


def log_page(archive: Archive, name: str, jobs: pd.DataFrame, facts: dict, quality_row: dict,
             listed: dict) -> dict:
    """Everything the page of log (or version) `name` shows but its figures
    (their captions, with the log's numbers, are here)."""
    from .captions import captions

    flurry = flurry_table(jobs, facts)
    header = header_lines(archive, name)
    return {
        "name": name,
        "kind": listed["kind"],
        "original": listed["original"],
        "summary": listed,
        "facts": file_facts(archive, name),
        "header": header,
        "quality": quality_tables(quality_row),
        "audit": header_audit(archive, name),
        "diagnosis": diagnosis(name, jobs, facts, header),
        "issues": known_issues(archive, name),
        "flurries": flurry,
        "captions": captions(jobs, facts, quality_row, flurry["weekly_average"]),
        "versions": log_versions(archive, name) if listed["kind"] == "original" else [],
    }
