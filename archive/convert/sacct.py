"""Slurm accounting (`sacct --parsable2`) as raw job records.

sacct writes a row per job and a row per job step (`123.batch`, `123.extern`,
`123.0`); a heterogeneous job has a row per component (`123+0`, `123+1`) and
an array job a job per element (`123_4`). A workload log wants one record per
job, so steps are folded into their job:

- the job's own row gives submit, start, end, elapsed, time limit, state,
  user, group, partition and ReqMem; a heterogeneous job's first component
  stands for it, and its components' AllocCPUS, ReqCPUS and TotalCPU are
  summed. A job whose own row is absent from the file is represented by its
  first step row.
- MaxRSS is the maximum over the job's rows; TotalCPU comes from the job's own
  row(s), or is the sum over its steps when they have none.
- The same JobID appearing again as a job row (`sacct --duplicates` lists each
  run of a requeued job) starts a new job; steps go to the latest one.

Units. SWF's memory fields are KB per processor. MaxRSS is the largest
resident set of any one task; it is taken as the memory of one processor
(one task per processor, the usual MPI layout), converted to KB; a bare
number is bytes. ReqMem with `c` (per core) is already per processor;
with `n` (per node) it is multiplied by the node count (NNodes or AllocNodes,
1 when neither column is there) and divided by the job's processors; a bare
amount (Slurm 21.08 and later) is the job's total and is divided by its
processors. A ReqMem without a unit letter is in megabytes. The processors
are AllocCPUS, or ReqCPUS when that is unknown; the SWF CPU time is TotalCPU
divided by the same count.

States. COMPLETED is 1; FAILED, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE,
PREEMPTED and TIMEOUT are 0 (a job killed at its time limit did not complete:
SWF has no separate code for it); CANCELLED, with or without `by UID`, is 5.
Jobs that have not finished (PENDING, RUNNING, SUSPENDED, REQUEUE_HOLD, ...)
have no final record yet and are skipped; a later extract will hold them.
Any other state (REQUEUED: an earlier run of a requeued job; REVOKED;
SPECIAL_EXIT) is kept with status -1.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import tzinfo
from decimal import Decimal
from typing import Callable, Iterable

from ..kernel.errors import InputError
from .recovery import RawJob, parse_duration, parse_time, parse_whole

STATUS = {
    "COMPLETED": 1,
    "FAILED": 0, "NODE_FAIL": 0, "OUT_OF_MEMORY": 0, "BOOT_FAIL": 0,
    "DEADLINE": 0, "PREEMPTED": 0, "TIMEOUT": 0,
    "CANCELLED": 5,
}
UNFINISHED = frozenset({
    "PENDING", "RUNNING", "SUSPENDED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD",
    "RESIZING", "CONFIGURING", "COMPLETING", "SIGNALING", "STAGE_OUT", "STOPPED",
})
# Cell values that mean "not known" in the columns that hold numbers and times.
MISSING = frozenset({"", "unknown", "none", "unlimited", "partition_limit", "invalid"})

_JOBID = re.compile(r"(\d+(?:_(?:\d+|\[[^\]]*\]))?)(\+\d+)?(?:\.(.+))?")
_AMOUNT = re.compile(r"(\d+(?:\.\d*)?)([KMGTP]?)([cn]?)", re.I)
_KB_PER_UNIT = {"B": Decimal(1) / 1024, "K": 1, "M": 1024, "G": 1024**2, "T": 1024**3, "P": 1024**4}


def _memory(text: str, bare_unit: str, per: bool) -> tuple[Decimal, str]:
    """An amount such as `4000Mc`, `4G` or `1234K`, in KB, and its `c`/`n`
    suffix ('' when none)."""
    m = _AMOUNT.fullmatch(text)
    if m is None or (m.group(3) and not per):
        raise ValueError("not a memory size (like 4000M, 4G, 1234K" + (", 4000Mc, 4000Mn)" if per else ")"))
    unit = m.group(2).upper() or bare_unit
    amount = Decimal(m.group(1))
    return amount * _KB_PER_UNIT[unit], m.group(3).lower()


def _req_mem(text: str) -> tuple[Decimal, str]:
    return _memory(text, "M", per=True)


def _max_rss(text: str) -> Decimal:
    return _memory(text, "B", per=False)[0]


def _state(text: str) -> str:
    """`CANCELLED by 123` is CANCELLED; a trailing `+` (more states) is dropped."""
    return text.split()[0].rstrip("+").upper() if text.strip() else ""


@dataclass
class _Row:
    line: int
    values: dict[str, object]  # attribute -> value; a missing value is absent


# sacct column (lower case) -> (attribute, parser); the parser gets the cell
# text and the time zone of naive times.
Parser = Callable[[str, tzinfo], object]
COLUMNS: dict[str, tuple[str, Parser]] = {
    "jobid": ("jobid", lambda s, z: s),
    "user": ("user", lambda s, z: s),
    "group": ("group", lambda s, z: s),
    "submit": ("submit", parse_time),
    "start": ("start", parse_time),
    "end": ("end", parse_time),
    "elapsed": ("elapsed", lambda s, z: parse_duration(s, minutes_seconds=True)),
    "alloccpus": ("alloc", lambda s, z: parse_whole(s)),
    "reqcpus": ("req_cpus", lambda s, z: parse_whole(s)),
    "nnodes": ("nodes", lambda s, z: parse_whole(s)),
    "allocnodes": ("nodes", lambda s, z: parse_whole(s)),
    "timelimit": ("timelimit", lambda s, z: parse_duration(s, minutes_seconds=True)),
    "state": ("state", lambda s, z: _state(s)),
    "partition": ("partition", lambda s, z: s),
    "totalcpu": ("total_cpu", lambda s, z: parse_duration(s, minutes_seconds=True)),
    "reqmem": ("req_mem", lambda s, z: _req_mem(s)),
    "maxrss": ("max_rss", lambda s, z: _max_rss(s)),
}
_TEXT = {"jobid", "user", "group", "partition", "state"}


@dataclass
class _Job:
    own: list[_Row] = field(default_factory=list)  # the job's row, or its components
    steps: list[_Row] = field(default_factory=list)
    own_ids: set[str] = field(default_factory=set)


@dataclass
class SacctLog:
    jobs: list[RawJob]
    warnings: list[str]


def read_sacct(path: str, lines: Iterable[str], zone: tzinfo) -> SacctLog:
    """The jobs of a `sacct --parsable2` listing (header row first), one
    record per job in the order of their first rows."""
    rows, names = _rows(path, lines, zone)
    jobs: list[_Job] = []
    latest: dict[str, _Job] = {}  # job key -> its latest run
    for row in rows:
        jobid = row.values["jobid"]
        m = _JOBID.fullmatch(jobid)
        if m is None:
            raise InputError(path, row.line, "JobID is not like 123, 123.batch, 123_4 or 123+0", jobid)
        key, step = m.group(1), m.group(3)
        job = latest.get(key)
        if step is None:
            own_id = key + (m.group(2) or "")
            if job is None or own_id in job.own_ids:
                job = _Job()
                jobs.append(job)
                latest[key] = job
            job.own.append(row)
            job.own_ids.add(own_id)
        else:
            if job is None:
                job = _Job()
                jobs.append(job)
                latest[key] = job
            job.steps.append(row)
    out: list[RawJob] = []
    skipped: Counter[str] = Counter()
    stepless = per_node = 0
    for job in jobs:
        main = (job.own or job.steps)[0]
        state = main.values.get("state", "")
        if state in UNFINISHED:
            skipped[state] += 1
            continue
        stepless += not job.own
        per_node += "nodes" not in names and _per(main) == "n"
        out.append(_fold(job))
    warnings = []
    if skipped:
        which = ", ".join(f"{n} {s}" for s, n in sorted(skipped.items()))
        warnings.append(f"{sum(skipped.values())} unfinished jobs skipped ({which})")
    if stepless:
        warnings.append(f"{stepless} jobs have only step rows; the first step stands for the job")
    if per_node:
        warnings.append(f"{per_node} per-node ReqMem values read as one node each (no NNodes column)")
    return SacctLog(out, warnings)


def _per(row: _Row) -> str:
    return row.values["req_mem"][1] if "req_mem" in row.values else ""


def _rows(path: str, lines: Iterable[str], zone: tzinfo) -> tuple[list[_Row], set[str]]:
    it = iter(enumerate(lines, start=1))
    header: list[str] | None = None
    for line_no, text in it:
        if text.strip():
            header = text.rstrip("\r\n").split("|")
            break
    if header is None:
        raise InputError(path, None, "empty file: no header row")
    if header[-1] == "" and len(header) > 1:  # `--parsable` ends every line with |
        header = header[:-1]
    names = [h.strip().lower() for h in header]
    for name in names:
        if name in COLUMNS and names.count(name) > 1:
            raise InputError(path, line_no, f"column {name!r} appears twice")
    if "nnodes" in names and "allocnodes" in names:
        names[names.index("allocnodes")] = ""  # the same count twice: NNodes is read
    if "jobid" not in names:
        raise InputError(path, line_no, "no JobID column: sacct output needs one to fold steps into jobs")
    used = [(i, COLUMNS[n]) for i, n in enumerate(names) if n in COLUMNS]
    rows = []
    for line_no, text in it:
        if not text.strip():
            continue
        cells = text.rstrip("\r\n").split("|")
        if len(cells) == len(header) + 1 and cells[-1] == "":
            cells = cells[:-1]
        if len(cells) != len(header):
            raise InputError(path, line_no, f"{len(cells)} fields, the header has {len(header)}", text)
        values: dict[str, object] = {}
        for i, (attr, parse) in used:
            cell = cells[i].strip()
            if names[i] in _TEXT:
                if cell:
                    values[attr] = parse(cell, zone)
                continue
            if cell.lower() in MISSING:
                continue
            try:
                values[attr] = parse(cell, zone)
            except ValueError as e:
                raise InputError(path, line_no, f"column {header[i].strip()}: {e}", cell) from None
        if "jobid" not in values:
            raise InputError(path, line_no, "empty JobID", text)
        rows.append(_Row(line_no, values))
    return rows, {COLUMNS[n][0] for n in names if n in COLUMNS}


def _total(values: Iterable[object]) -> object | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _fold(job: _Job) -> RawJob:
    own = job.own or job.steps[:1]
    main = own[0].values
    procs = _total(r.values.get("alloc") for r in own)
    req_procs = _total(r.values.get("req_cpus") for r in own)
    count = procs if procs else req_procs if req_procs else None
    total_cpu = _total(r.values.get("total_cpu") for r in own)
    if total_cpu is None:
        total_cpu = _total(r.values.get("total_cpu") for r in job.steps)
    rss = [r.values["max_rss"] for r in job.own + job.steps if "max_rss" in r.values]
    state = main.get("state", "")
    return RawJob(
        line=own[0].line,
        arr=main.get("submit"),
        start=main.get("start"),
        end=main.get("end"),
        run=main.get("elapsed"),
        cpu=total_cpu / count if total_cpu is not None and count else None,
        status=STATUS.get(state, -1 if state else None),
        procs=procs,
        req_procs=req_procs,
        req_time=main.get("timelimit"),
        mem=max(rss) if rss else None,
        req_mem=_req_mem_per_processor(own[0].values),
        user=main.get("user"),
        group=main.get("group"),
        partition=main.get("partition"),
    )


def _req_mem_per_processor(values: dict[str, object]) -> Decimal | None:
    if "req_mem" not in values:
        return None
    kb, per = values["req_mem"]
    if per == "c":
        return kb
    count = values.get("alloc") or values.get("req_cpus")
    if not count:
        return None
    nodes = (values.get("nodes") or 1) if per == "n" else 1
    return kb * nodes / count
