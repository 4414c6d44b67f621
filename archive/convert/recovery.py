"""Raw accounting records, and the rules that turn their times into SWF times.

A raw record (a CSV row, a Slurm job) holds what the accounting system wrote:
arrival, start and end instants, a run time, CPU time, a status. SWF wants
submit, wait and run. Which of the raw values exist varies from job to job, so
docs/pages/definitions/cleaning.md section 2 gives a table saying how to compute ARR, WAIT and RUN
from whatever is there; section 1 then normalizes what comes out. Both are
here, written so that a reader can hold them against docs/pages/definitions/cleaning.md row by row.

Values are Decimals (None = missing) so that the arithmetic is exact: a
fractional epoch time minus another is the difference that was written, not a
binary rounding of it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from decimal import Decimal
from typing import Callable, NamedTuple

from ..kernel.clock import DAY

# -- a raw record --------------------------------------------------------------


@dataclass
class RawJob:
    line: int  # where the record starts in its file
    arr: Decimal | None = None  # epoch seconds
    start: Decimal | None = None
    end: Decimal | None = None
    run: Decimal | None = None  # wall-clock seconds
    cpu: Decimal | None = None  # average CPU seconds per processor
    status: int | None = None  # SWF code
    procs: int | None = None
    req_procs: int | None = None
    req_time: Decimal | None = None  # seconds
    mem: Decimal | None = None  # KB per processor
    req_mem: Decimal | None = None  # KB per processor
    user: str | None = None
    group: str | None = None
    app: str | None = None
    queue: str | None = None
    partition: str | None = None


# -- raw values: text to numbers -------------------------------------------------
# Each parser returns a value or raises ValueError saying what was expected;
# the readers add the file, line and column.

_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)")
_CLOCK = re.compile(r"(?:(\d+)-)?(\d+):(\d+)(?::(\d+))?(\.\d+)?")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def parse_decimal(text: str) -> Decimal:
    if not _DECIMAL.fullmatch(text):
        raise ValueError("not a number")
    return Decimal(text)


def parse_whole(text: str) -> int:
    """A count: `4`, or `4.0` as tables written from floating point have it."""
    if not _DECIMAL.fullmatch(text):
        raise ValueError("not a whole number")
    value = Decimal(text)
    if value != value.to_integral_value():
        raise ValueError("not a whole number")
    return int(value)


def parse_time(text: str, zone: tzinfo) -> Decimal:
    """Epoch seconds, or an ISO 8601 date-time; one without an offset is a
    local time in `zone`."""
    if _DECIMAL.fullmatch(text):
        return Decimal(text)
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError("not a time (epoch seconds or ISO 8601 date-time)") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=zone)
    since = when - _EPOCH  # exact: whole days, seconds and microseconds
    return Decimal(since.days * DAY + since.seconds) + Decimal(since.microseconds).scaleb(-6)


def parse_duration(text: str, minutes_seconds: bool = False) -> Decimal:
    """Seconds, or [D-]HH:MM:SS[.fff]. With `minutes_seconds` (Slurm's
    TotalCPU and Elapsed) a two-part MM:SS[.fff] is accepted too; elsewhere it
    would be ambiguous with HH:MM and is refused."""
    if _DECIMAL.fullmatch(text):
        return Decimal(text)
    m = _CLOCK.fullmatch(text)
    if m is None:
        raise ValueError("not a duration (seconds or [D-]HH:MM:SS)")
    days, first, second, third, fraction = m.groups()
    if third is None:  # two parts: MM:SS
        if not minutes_seconds or days is not None:
            raise ValueError("not a duration (seconds or [D-]HH:MM:SS)")
        hours, minutes, seconds = 0, int(first), int(second)
    else:
        hours, minutes, seconds = int(first), int(second), int(third)
    if seconds >= 60 or (third is not None and minutes >= 60):
        raise ValueError("not a duration: minutes and seconds must be below 60")
    total = ((int(days or 0) * 24 + hours) * 60 + minutes) * 60 + seconds
    return Decimal(total) + (Decimal(fraction) if fraction else 0)


# -- docs/pages/definitions/cleaning.md section 2: the recovery table -------------


class Times(NamedTuple):
    arr: Decimal | None  # ARR, epoch seconds
    wait: Decimal | None  # WAIT
    run: Decimal | None  # RUN


def _either(a: Decimal | None, b: Decimal | None) -> Decimal | None:
    """`(a)? a : b`"""
    return a if a is not None else b


# Each row gets (arr, start, end, run, cpu, succ); its pattern says which of
# arr, start and end are there, so the row may use those without a check.
Row = Callable[..., Times]


def _row1(arr, start, end, run, cpu, succ) -> Times:
    # ok ok ok: ARR=arr; WAIT=start-arr; RUN = (run)? run : end-start
    return Times(arr, start - arr, _either(run, end - start))


def _row2(arr, start, end, run, cpu, succ) -> Times:
    # ok ok missing: ARR=arr; WAIT=start-arr; RUN = (run)? run : (cpu)? cpu : unknown
    return Times(arr, start - arr, _either(run, cpu))


def _row3(arr, start, end, run, cpu, succ) -> Times:
    # ok missing missing: ARR=arr; RUN = (run)? run : (cpu)? cpu : unknown; WAIT unknown
    return Times(arr, None, _either(run, cpu))


def _row4(arr, start, end, run, cpu, succ) -> Times:
    # ok missing ok: ARR=arr; (run)? WAIT=(end-run)-arr : (cpu)? WAIT=(end-cpu)-arr :
    #   (succ)? {RUN=end-arr; WAIT=0} : WAIT=end-arr (RUN unknown)
    # The run (or cpu) that places the start is also the job's RUN.
    if run is not None:
        return Times(arr, (end - run) - arr, run)
    if cpu is not None:
        return Times(arr, (end - cpu) - arr, cpu)
    if succ:
        return Times(arr, Decimal(0), end - arr)
    return Times(arr, end - arr, None)


def _row5(arr, start, end, run, cpu, succ) -> Times:
    # missing ok ok: ARR=start; RUN = (run)? run : end-start; WAIT unknown
    # (Table 5 sets none: the arrival is the start only for want of one)
    return Times(start, None, _either(run, end - start))


def _row6(arr, start, end, run, cpu, succ) -> Times:
    # missing ok missing: ARR=start; RUN = (run)? run : (cpu)? cpu : unknown; WAIT unknown
    return Times(start, None, _either(run, cpu))


def _row7(arr, start, end, run, cpu, succ) -> Times:
    # missing missing missing: RUN = (run)? run : (cpu)? cpu : unknown; ARR unknown
    return Times(None, None, _either(run, cpu))


def _row8(arr, start, end, run, cpu, succ) -> Times:
    # missing missing ok: (run)? ARR=end-run : (cpu)? ARR=end-cpu : ARR=end;
    #   RUN likewise from run or cpu; WAIT unknown
    # As in rows 5 and 6, the arrival stands in for a missing one; the wait
    # was not observed.
    if run is not None:
        return Times(end - run, None, run)
    if cpu is not None:
        return Times(end - cpu, None, cpu)
    return Times(end, None, None)


OK, MISSING = True, False
# (arr, start, end) -> row; the eight patterns are all there is, so the first
# matching row is the only one.
RECOVERY_TABLE: dict[tuple[bool, bool, bool], Row] = {
    (OK, OK, OK): _row1,
    (OK, OK, MISSING): _row2,
    (OK, MISSING, MISSING): _row3,
    (OK, MISSING, OK): _row4,
    (MISSING, OK, OK): _row5,
    (MISSING, OK, MISSING): _row6,
    (MISSING, MISSING, MISSING): _row7,
    (MISSING, MISSING, OK): _row8,
}

CANCELED = 5
COMPLETED = 1


def recover(job: RawJob) -> Times:
    """ARR, WAIT and RUN of a raw record (None = unknown).

    A canceled job that never started (no start, no positive run or CPU time)
    gets its interval end - arrival as wait time and an unknown run time. Row 4
    gives the same when run and cpu are missing; the rule matters for records
    such as Slurm's, which write a zero Elapsed for a job canceled in the queue.
    """
    if (job.status == CANCELED and job.start is None and job.arr is not None
            and job.end is not None and not _ran(job.run) and not _ran(job.cpu)):
        return Times(job.arr, job.end - job.arr, None)
    row = RECOVERY_TABLE[(job.arr is not None, job.start is not None, job.end is not None)]
    return row(job.arr, job.start, job.end, job.run, job.cpu, job.status == COMPLETED)


def _ran(seconds: Decimal | None) -> bool:
    return seconds is not None and seconds > 0


# -- docs/pages/definitions/cleaning.md section 1: normalization ------------------

# 1 h 5 min: daylight-saving changes and clock drift. The normalize rule's
# default allowance (schema/rules/normalize.sql); a test holds them equal, and
# holds this normalization to the rule's on every real log.
CLOCK_ALLOWANCE = Decimal(3900)


def normalize_span(seconds: Decimal | None) -> Decimal | None:
    """A wait or run time: more negative than -CLOCK_ALLOWANCE s is unknown,
    a smaller negative value is clock skew and becomes 0."""
    if seconds is None or seconds >= 0:
        return seconds
    return None if seconds < -CLOCK_ALLOWANCE else Decimal(0)


def positive_or_unknown(value: int | Decimal | None) -> int | Decimal | None:
    """Processors, requested processors, used and requested memory and
    requested time recorded as 0 are unknown."""
    return None if value is not None and value == 0 else value
