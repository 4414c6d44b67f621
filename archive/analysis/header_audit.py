"""The header audit: what a log's header claims, held against its jobs.

A header is written once, by hand or by a converter, and copied into every
cleaned version; a claim that no longer fits the jobs (a file cut short, a
count left from before cleaning) misleads whoever sizes a simulation or
quotes the log by it. Each check is one row; a label the header lacks is
not checked (no row). Tolerances:

- MaxJobs: the highest job number, the number of jobs, or the jobs plus
  those the Notes say were removed (removed jobs keep their numbers, and
  the last ones may have gone too).
- MaxRecords: exactly the job lines, or those and the lines lenient ingest
  set apart.
- UnixStartTime: submit times count from it, so when job 1 is kept the
  first submit is within [0, 60] s; when the first jobs were removed it is
  not negative. When StartTime and EndTime agree with the jobs between them
  but both disagree with UnixStartTime, UnixStartTime is the claim that is
  wrong, and the one reported.
- StartTime: the instant of submit 0 (UnixStartTime), within 60 s; read in
  the log's time zone, or by its written offset (GMT-6). With neither, the
  clock is read as UTC and a day of tolerance is allowed each way.
- EndTime: the end of the last job to end, which may lie up to a day before
  it (jobs removed at the end) and not more than 60 s after it.
- MaxProcs: no job used or requested more processors. MaxNodes the same,
  only when the header gives no MaxProcs (the job fields count nodes then).
- MaxRuntime: no run longer by more than 60 s, no request longer.
- MaxMemory: no job used or requested more (KB per processor).
- Note: the jobs the Notes say a filter removed (`(944 jobs removed)`) or a
  wla step dropped (`845 jobs dropped`) are the job numbers missing from 1
  to the highest, or from 1 to MaxJobs.
- job numbers: in file order, from 1 (ingest refuses a number written
  twice); gaps only where a Note says jobs were removed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from ..kernel.clock import DAY
from ..kernel.units import count
from ..store.file import Archive
from .header_times import read_time, write_time

COLUMNS = ["label", "line_no", "claim", "data", "difference", "ok"]
SLACK = 60  # seconds a written time or a run may be off
_REMOVED = re.compile(r"\((\d+) jobs? removed\)")
_DROPPED = re.compile(r"\b(\d+) jobs? dropped\b")
_GAPS_SHOWN = 3

_FACTS = """
SELECT count(*) AS records, min(job) AS lowest, max(job) AS highest,
       min(submit) FILTER (WHERE submit <> -1) AS first_submit,
       max(submit + greatest(wait, 0) + greatest(run, 0)) FILTER (WHERE submit <> -1) AS last_end,
       max(procs) AS procs, max(req_procs) AS req_procs, max(run) AS run, max(req_time) AS req_time,
       max(mem) AS mem, max(req_mem) AS req_mem,
       count(*) FILTER (WHERE job < 1) AS below_one,
       count(*) FILTER (WHERE job < prev) AS descents, min(job) FILTER (WHERE job < prev) AS first_descent
FROM (SELECT *, lag(job) OVER (ORDER BY line_no) AS prev FROM jobs WHERE log_id = ?)
"""
# `before`: how many numbers are missing just below each one, from 1 up. (A
# number written twice never reaches the archive: ingest refuses the line.)
_NUMBERS = """
WITH per AS (SELECT DISTINCT job FROM jobs WHERE log_id = ?),
g AS (SELECT job, job - greatest(coalesce(lag(job) OVER (ORDER BY job), 0), 0) - 1 AS before FROM per)
SELECT count(*) AS numbers,
       count(*) FILTER (WHERE job >= 1 AND before > 0) AS gaps,
       coalesce(sum(before) FILTER (WHERE job >= 1 AND before > 0), 0) AS missing,
       (list(job ORDER BY job) FILTER (WHERE job >= 1 AND before > 0))[1:?] AS gap_ends,
       (list(before ORDER BY job) FILTER (WHERE job >= 1 AND before > 0))[1:?] AS gap_sizes
FROM g
"""
_LOG = """
SELECT max_jobs, max_records, unix_start_time, tz, max_nodes, max_procs, max_runtime, max_memory, rejects
FROM logs WHERE log_id = ?
"""
_HEADER = "SELECT line_no, text, label, value FROM header_lines WHERE log_id = ? ORDER BY seq"


@dataclass(frozen=True)
class _Claim:
    label: str
    line_no: int
    text: str  # the value as written
    number: int | None  # its leading integer, as the logs table holds it


def header_audit(archive: Archive, name: str) -> pd.DataFrame:
    """One row per check made on the log's header: label, line_no (of the
    claim), claim (as written), data (what the jobs show), difference
    (empty when they agree) and ok."""
    log_id = archive.log_id(name)
    facts = archive.rows(_FACTS, [log_id])[0]
    facts = dict(zip(["records", "lowest", "highest", "first_submit", "last_end", "procs", "req_procs", "run",
                      "req_time", "mem", "req_mem", "below_one", "descents", "first_descent"], facts))
    log = dict(zip(["max_jobs", "max_records", "unix_start_time", "tz", "max_nodes", "max_procs",
                    "max_runtime", "max_memory", "rejects"], archive.rows(_LOG, [log_id])[0]))
    facts["rejects"] = int(log["rejects"] or 0)
    header = archive.rows(_HEADER, [log_id])
    claims = _claims(header, log)
    noted = _noted_removals(header)
    numbers = _numbers(archive, log_id, facts)
    rows: list[dict] = []
    rows += _counts(claims, facts, noted, numbers)
    rows += _times(claims, facts, log["tz"])
    rows += _limits(claims, facts)
    rows += _notes(noted, numbers, claims.get("MaxJobs"), facts["highest"] or 0)
    if facts["records"]:
        rows.append(_consecutive(numbers, facts, noted is not None))
    audit = pd.DataFrame(rows, columns=COLUMNS)
    audit["line_no"] = audit["line_no"].astype("Int64")
    return audit


def mismatch_lines(audit: pd.DataFrame) -> list[str]:
    """One line per claim the data contradicts: the claim, the data, the difference."""
    return [f"{r.label}: {r.claim} claimed; {r.data}: {r.difference}"
            for r in audit.itertuples() if not r.ok]


def verdict(audit: pd.DataFrame) -> str:
    """The audit in one phrase: how many checks, how many disagree."""
    checks = len(audit)
    claims = int((audit["label"] != "job numbers").sum())
    wrong = int((~audit["ok"]).sum())
    if wrong:
        return f"{wrong} of {checks} checks disagree"
    if not claims:
        return "no header claims to check; the job numbers are consecutive" if checks else "nothing to check"
    return f"the header agrees with the jobs ({checks} checks)"


# -- what the header says ----------------------------------------------------------------

_LABELS = {"maxjobs": "MaxJobs", "maxrecords": "MaxRecords", "unixstarttime": "UnixStartTime",
           "starttime": "StartTime", "endtime": "EndTime", "maxprocs": "MaxProcs", "maxnodes": "MaxNodes",
           "maxruntime": "MaxRuntime", "maxmemory": "MaxMemory"}
_COLUMN = {"MaxJobs": "max_jobs", "MaxRecords": "max_records", "UnixStartTime": "unix_start_time",
           "MaxProcs": "max_procs", "MaxNodes": "max_nodes", "MaxRuntime": "max_runtime",
           "MaxMemory": "max_memory"}


def _claims(header: list[tuple], log: dict) -> dict[str, _Claim]:
    """The first line of each audited label (as the logs table reads it)."""
    out: dict[str, _Claim] = {}
    for line_no, _, label, value in header:
        known = _LABELS.get((label or "").lower())
        if known and known not in out:
            number = log.get(_COLUMN.get(known, ""))
            out[known] = _Claim(known, line_no, (value or "").strip(), None if number is None else int(number))
    return out


@dataclass(frozen=True)
class _Noted:
    jobs: int
    line_no: int  # the first Note that says so
    notes: int  # how many filters or steps
    dropped: int = 0  # of `jobs`, those wla's own step Notes dropped: a version keeps its log's MaxRecords


def _noted_removals(header: list[tuple]) -> _Noted | None:
    """What the Notes say was removed: `(N jobs removed)` on a Note line or
    the unlabelled lines continuing it, and wla's own `N jobs dropped`."""
    counts: list[int] = []
    dropped = 0
    first = None
    in_note = False
    for line_no, text, label, _ in header:
        if label is not None:
            in_note = label.lower() == "note"
        elif text.strip() == ";":
            in_note = False
        if not in_note:
            continue
        ours = [int(n) for n in _DROPPED.findall(text)]
        found = [int(n) for n in _REMOVED.findall(text)] + ours
        if found and first is None:
            first = line_no
        counts += found
        dropped += sum(ours)
    return _Noted(sum(counts), first, len(counts), dropped) if counts else None


# -- what the jobs show ------------------------------------------------------------------


@dataclass(frozen=True)
class _Numbers:
    numbers: int  # distinct job numbers
    missing: int  # numbers absent from 1 to the highest
    gaps: int
    shown: list[tuple[int, int]]  # the first gaps
    descents: int
    first_descent: int | None


def _numbers(archive: Archive, log_id: int, facts: dict) -> _Numbers:
    numbers, gaps, missing, ends, sizes = archive.rows(
        _NUMBERS, [log_id, _GAPS_SHOWN, _GAPS_SHOWN])[0]
    return _Numbers(int(numbers), int(missing), int(gaps), [(e - n, e - 1) for e, n in zip(ends or [], sizes or [])],
                    int(facts["descents"]), facts["first_descent"])


# -- the checks --------------------------------------------------------------------------


def _row(label: str, claim: _Claim | None, data: str, ok: bool, difference: str = "",
         claim_text: str | None = None, line_no: int | None = None) -> dict:
    return {"label": label, "line_no": claim.line_no if claim else line_no,
            "claim": claim.text if claim_text is None else claim_text, "data": data,
            "difference": "" if ok else difference, "ok": bool(ok)}


def _more(n: int, what: str = "claimed") -> str:
    return f"{abs(n)} {'more' if n > 0 else 'fewer'} {what}"


def _counts(claims: dict[str, _Claim], facts: dict, noted: _Noted | None, numbers: _Numbers) -> list[dict]:
    rows = []
    jobs, highest, records = numbers.numbers, facts["highest"] or 0, facts["records"]
    c = claims.get("MaxJobs")
    if c is not None and c.number is not None:
        data = f"{jobs} jobs, highest job number {highest}"
        fits = {highest, jobs}
        if noted is not None:
            data += f", {jobs + noted.jobs} with the {noted.jobs} the Notes say were removed"
            fits.add(jobs + noted.jobs)
        rows.append(_row("MaxJobs", c, data, c.number in fits,
                         _more(c.number - highest, "claimed than the highest job number")))
    c = claims.get("MaxRecords")
    if c is not None and c.number is not None:
        difference = _more(c.number - records)
        if noted is not None and c.number - records == noted.jobs:
            difference += ", as many as the Notes say were removed"
        elif noted is not None and noted.dropped and c.number - records == noted.dropped:
            difference += ", as many as wla's step Notes say were dropped (a version keeps its log's header)"
        rejects = facts["rejects"]
        data = f"{records} job lines" + (f", {rejects} more set apart by lenient ingest" if rejects else "")
        rows.append(_row("MaxRecords", c, data, c.number in (records, records + rejects), difference))
    return rows


def _seconds(s: float) -> str:
    """A duration as seconds, with days when it is long."""
    s = abs(int(round(s)))
    return f"{s} s ({s / DAY:.1f} days)" if s >= DAY else f"{s} s"


def _off(seconds: float) -> str:
    return f"{_seconds(seconds)} {'later' if seconds > 0 else 'earlier'} claimed"


def _times(claims: dict[str, _Claim], facts: dict, tz: str | None) -> list[dict]:
    """UnixStartTime against the first submit; StartTime against submit 0 and
    EndTime against the last end, both placed by UnixStartTime."""
    u_claim = claims.get("UnixStartTime")
    u = u_claim.number if u_claim is not None else None
    if u is None:
        return []
    first, last_end = facts["first_submit"], facts["last_end"]
    start, end = (read_time(claims[k].text, tz) if k in claims else None for k in ("StartTime", "EndTime"))
    start_row = end_row = None
    if "StartTime" in claims:
        start_row = _unread("StartTime", claims) if start is None else _row(
            "StartTime", claims["StartTime"], f"submit 0 is {write_time(u, tz)}",
            abs(start.epoch - u) <= (SLACK if start.zone_known else DAY), _off(start.epoch - u))
    if "EndTime" in claims and last_end is not None:
        wide = 0 if end is None or end.zone_known else DAY
        end_row = _unread("EndTime", claims) if end is None else _row(
            "EndTime", claims["EndTime"], f"the last job ends {write_time(u + last_end, tz)}",
            -SLACK - wide <= end.epoch - (u + last_end) <= DAY + wide, _off(end.epoch - (u + last_end)))
    rows = [r for r in (start_row, end_row) if r is not None]
    if start_row and end_row and start and end and not start_row["ok"] and not end_row["ok"] \
            and -SLACK <= (end.epoch - start.epoch) - last_end <= DAY:
        # StartTime and EndTime fit the jobs between them: it is UnixStartTime that is off.
        for r in rows:
            r.update(ok=True, difference="")
        return [_row("UnixStartTime", u_claim, f"StartTime and EndTime put submit 0 at {start.epoch}", False,
                     _off(u - start.epoch)), *rows]
    if first is not None:
        data = f"first submit {first:g} s after it ({write_time(u + first, tz)})"
        if first < 0:
            rows.insert(0, _row("UnixStartTime", u_claim, data, False, f"jobs submitted {_seconds(first)} before it"))
        else:  # when job 1 was removed, later jobs may come any time after the start
            rows.insert(0, _row("UnixStartTime", u_claim, data, first <= SLACK or facts["lowest"] != 1,
                                f"job 1 submitted {_seconds(first)} after it"))
    return rows


def _unread(label: str, claims: dict[str, _Claim]) -> dict:
    return _row(label, claims[label], "", False, "not a date and time wla reads")


def _known(value: float) -> bool:
    return value is not None and value >= 0


def _limits(claims: dict[str, _Claim], facts: dict) -> list[dict]:
    """Machine and limit claims against the largest values of the fields
    (-1, unknown, is never over a limit)."""
    rows = []
    size = claims.get("MaxProcs")
    if size is None or (size.number or 0) <= 0:
        size = claims.get("MaxNodes")
    if size is not None and (size.number or 0) > 0:
        rows.append(_limit(size, facts["procs"], facts["req_procs"], "processors", 0))
    for label, used, asked, unit, slack in (("MaxRuntime", "run", "req_time", "s", SLACK),
                                            ("MaxMemory", "mem", "req_mem", "KB", 0)):
        c = claims.get(label)
        if c is not None and (c.number or 0) > 0:
            rows.append(_limit(c, facts[used], facts[asked], unit, slack))
    return rows


def _limit(c: _Claim, used: float | None, asked: float | None, unit: str, slack: float) -> dict:
    said = [f"used up to {used:g} {unit}" if _known(used) else "used unknown",
            f"requested up to {asked:g} {unit}" if _known(asked) else "requested unknown"]
    over_used = used - c.number if _known(used) else 0
    over_asked = asked - c.number if _known(asked) else 0
    ok = over_used <= slack and over_asked <= 0
    which, over = ("used", over_used) if over_used - slack >= over_asked else ("requested", over_asked)
    return _row(c.label, c, "jobs " + " and ".join(said), ok, f"{over:g} {unit} more {which}")


def _notes(noted: _Noted | None, numbers: _Numbers, max_jobs: _Claim | None, highest: int) -> list[dict]:
    if noted is None:
        return []
    data = f"{numbers.missing} job numbers missing up to the highest ({highest})"
    fits = {numbers.missing}
    top = max_jobs.number if max_jobs is not None else None
    if top is not None and top > highest:
        through = numbers.missing + top - highest
        data += f", {through} up to MaxJobs ({top})"
        fits.add(through)
    claim = f"{noted.jobs} jobs removed" + (f" by {noted.notes} filters" if noted.notes > 1 else "")
    return [_row("Note", None, data, noted.jobs in fits, _more(noted.jobs - numbers.missing),
                 claim_text=claim, line_no=noted.line_no)]


def _consecutive(numbers: _Numbers, facts: dict, explained: bool) -> dict:
    """Job numbers in file order, from 1: gaps are allowed where a Note
    accounts for removed jobs (the Note row says whether it does)."""
    shown = ", ".join(_span(a, b) for a, b in numbers.shown) + (", ..." if numbers.gaps > len(numbers.shown) else "")
    found = {"missing": (numbers.missing, f"{numbers.missing} missing in {count(numbers.gaps, 'gap')} ({shown})"),
             "out of order": (numbers.descents, f"{numbers.descents} out of order (first {numbers.first_descent})"),
             "below 1": (facts["below_one"], f"{facts['below_one']} below 1")}
    data = "; ".join(text for n, text in found.values() if n) or "consecutive"
    wrong = [f"{n} {what}" for what, (n, _) in found.items() if n and not (what == "missing" and explained)]
    if numbers.missing and not explained:
        wrong[0] += " without a Note"
    return _row("job numbers", None, data, not wrong, ", ".join(wrong),
                claim_text=f"1 to {facts['highest']}, each once, in order")


def _span(a: int, b: int) -> str:
    return str(a) if a == b else f"{a}-{b}"
