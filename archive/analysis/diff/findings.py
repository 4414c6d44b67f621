"""What the jobs of each kind of difference have in common (the jobs only
in A, only in B, the changed jobs and those of each changed field), from a
fixed list of characteristics, each said only when it holds for most of the
group and clearly more often than in the group's whole log."""
from __future__ import annotations

import pandas as pd

from ...kernel.clock import DAY, WEEK, local_date
from ...store.file import Archive
from .fields import how_fields
from .report import DISTINCT, FEW, MOST, SPREAD, Finding, LogDiff
from .sql import statement

# What a job may have that is worth knowing when jobs differ: a column of
# the statement `traits` (schema/diff.sql), and how it reads after "have".
TRAITS: tuple[tuple[str, str], ...] = (
    ("run_over_req", "run > requested time"),
    ("procs_over_req", "more processors than requested"),
    ("cpu_over_run", "CPU time > run time"),
    ("wait_over_day", "waited more than a day"),
    ("submit_unknown", "submit time unknown (-1)"),
    ("wait_unknown", "wait time unknown (-1)"),
    ("run_unknown", "run time unknown (-1)"),
    ("run_zero", "run time 0"),
    ("procs_unknown", "allocated processors unknown (-1)"),
    ("procs_zero", "0 allocated processors"),
    ("cpu_unknown", "CPU time unknown (-1)"),
    ("cpu_zero", "CPU time 0"),
    ("mem_unknown", "used memory unknown (-1)"),
    ("mem_zero", "used memory 0"),
    ("req_procs_unknown", "requested processors unknown (-1)"),
    ("req_time_unknown", "requested time unknown (-1)"),
)

# Fields whose most common value in a group is worth naming ("all have user 3").
VALUE_FIELDS: tuple[str, ...] = ("status", "user_id", "group_id", "app_id", "queue_id", "partition_id",
                                 "procs", "req_procs")
UNKNOWN_SAID = {"procs", "req_procs"}  # their -1 is a trait of TRAITS
STATUS = {-1: "unknown", 0: "failed", 1: "completed", 2: "partial", 3: "last part completed",
          4: "last part failed", 5: "cancelled"}


def findings(archive: Archive, diff: LogDiff, clocks: dict) -> list[Finding]:
    """The findings of every group, in the order the report shows them; the
    paired tables (pairing.py) must be there. `clocks`: each side's log clock."""
    traits = archive.df(statement("traits"), {"day": DAY})
    values = archive.df(statement("values_of_groups"))
    whole = {row.grp: row for row in traits.itertuples() if row.grp in ("A", "B")}
    out: list[Finding] = []
    order = ["only in A", "only in B", "changed", *(f"changed {c}" for c in diff.field_changes())]
    by_group = {row.grp: row for row in traits.itertuples()}
    for group in order:
        row = by_group.get(group)
        if row is None or group.startswith("changed ") and int(row.jobs) in (diff.changed_jobs, *range(FEW)):
            # A field every changed job changed: its jobs are those of "changed". A field
            # a few jobs changed: what its jobs share is chance, not character.
            continue
        if group == "changed":
            out += how_fields(archive, diff)
        base = whole[row.base]
        out += _where(archive, group, row, base, clocks[row.base])
        out += _traits(group, row, base)
        out += _common_values(group, values[values.grp == group], int(row.jobs), base)
    return out


def _noun(group: str) -> str:
    if group.startswith("changed "):
        return f"jobs whose {group.removeprefix('changed ')} changed"
    return "changed jobs" if group == "changed" else f"jobs {group}"


def _share(k: int, n: int) -> str:
    return f"{100 * k / n:.1f}%" if n else "-"


def _worth(k: int, n: int, in_log: int, log_jobs: int) -> bool:
    """Holds for most of the group and clearly more often than in the whole log."""
    return n > 0 and k >= MOST * n and in_log / log_jobs <= DISTINCT * k / n


def _where(archive: Archive, group: str, row, base, clock) -> list[Finding]:
    """Which job numbers, which lines of the log, when submitted."""
    n, noun, side = int(row.jobs), _noun(group), row.base
    said = f"{n:,} of {n:,} {noun} have job numbers {int(row.first_job)} to {int(row.last_job)}"
    lo, hi = int(row.first_line), int(row.last_line)
    [(within,)] = archive.rows(statement("within"), {"side": side, "first": lo, "last": hi})
    if within == n:  # no job of the log between the group's first and last line
        if lo == int(base.first_line):
            said += f": the first {n:,} jobs of {side}"
        elif hi == int(base.last_line):
            said += f": the last {n:,} jobs of {side}"
        elif n > 1:
            said += f": {n:,} consecutive jobs of {side} (lines {lo} to {hi})"
    out = [Finding(group, said, n, n)]
    span = float(base.last_submit) - float(base.first_submit) if pd.notna(base.first_submit) else 0.0
    if pd.notna(row.first_submit) and float(row.last_submit) - float(row.first_submit) <= SPREAD * span:
        out.append(_period(group, row, base, clock))  # a period most of the log long says nothing
    return out


def _period(group: str, row, base, clock) -> Finding:
    lo, hi, n = float(row.first_submit), float(row.last_submit), int(row.jobs)
    known = n - int(row.submit_unknown)
    day_lo, day_hi = local_date(clock, lo), local_date(clock, hi)
    if day_lo is None:  # no start time: seconds of the log's clock
        when = f"from second {lo:,.0f} to {hi:,.0f} of the log"
    elif day_lo == day_hi:
        when = f"on one day, {day_lo}"
    elif hi - lo <= WEEK:
        when = f"within one week, {day_lo} to {day_hi}"
    else:
        when = f"from {day_lo} to {day_hi}"
    span = (float(base.last_submit) - float(base.first_submit)) if pd.notna(base.first_submit) else 0.0
    part = f" ({(hi - lo) / DAY:,.1f} of the log's {span / DAY:,.1f} days)" if span > 0 else ""
    return Finding(group, f"{known:,} of {n:,} {_noun(group)} were submitted {when}{part}", known, n)


def _traits(group: str, row, base) -> list[Finding]:
    n, out = int(row.jobs), []
    for column, said in TRAITS:
        k, in_log = int(getattr(row, column)), int(getattr(base, column))
        if _worth(k, n, in_log, int(base.jobs)):
            out.append(Finding(group, f"{k:,} of {n:,} {_noun(group)} have {said} "
                                      f"({_share(in_log, int(base.jobs))} of {row.base}'s jobs)", k, n))
    return out


def _value_text(name: str, value: int) -> str:
    if name == "status":
        return f"status {value} ({STATUS.get(value, 'other')})"
    return f"{name} = {value}"


def _common_values(group: str, rows: pd.DataFrame, n: int, base) -> list[Finding]:
    """A value most of the group's jobs hold (user 3, queue 0, ...), or a few users among many."""
    out, noun, log_jobs, users_in_log = [], _noun(group), int(base.jobs), int(base.users)
    for name in VALUE_FIELDS:
        mine = rows[rows.field == name]
        if mine.empty:
            continue
        top, k = mine.iloc[0], int(mine.iloc[0].n)
        if name in UNKNOWN_SAID and int(top.value) == -1:
            continue  # said among the traits: "allocated processors unknown (-1)"
        if _worth(k, n, int(top.in_log), log_jobs):
            out.append(Finding(group, f"{k:,} of {n:,} {noun} have {_value_text(name, int(top.value))} "
                                      f"({_share(int(top.in_log), log_jobs)} of {base.grp}'s jobs)", k, n))
        elif name == "user_id" and 1 < int(top["values"]) <= 3 < users_in_log:
            listed = ", ".join(f"{int(r.value)} ({int(r.n):,})" for r in mine.itertuples())
            out.append(Finding(group, f"{n:,} of {n:,} {noun} belong to {int(top['values'])} of {base.grp}'s "
                                      f"{users_in_log:,} users: {listed}", n, n))
    return out
