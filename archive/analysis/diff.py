"""Any two logs or versions compared job by job: the jobs one holds and the
other does not, the fields that differ, and what the differing jobs have in
common. It is how a copy of a log from a third party is told from the
published one, and how two published versions of a log are told apart.

Jobs are matched by job number; a number that occurs k times in a log is
matched by order of occurrence (its i-th line in A with its i-th line in
B). The 18 fields are compared as stored: -1 is a value like any other.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..kernel.clock import DAY, WEEK, local_date, log_clock
from ..resolve import resolve
from ..store.file import Archive
from ..swf.fields import COLUMNS, FIELDS

# A description holds for "most" of a group from this share up, and is worth
# saying only if the whole log has it clearly less often (share times this).
FEW = 10  # the jobs of one changed field below this are not described (how they changed still is)
MOST = 0.75
DISTINCT = 0.9
SPREAD = 0.5  # a group submitted over more than this share of the log's span has no period of its own

# What a job may have that is worth knowing when jobs differ: a column of
# _TRAITS, and how it reads after "have".
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
INTEGER = {f.column for f in FIELDS if f.integer}
TITLE = {f.column: f.title for f in FIELDS}
ROW_COLUMNS = ["line_no", "occurrence", *COLUMNS]

# Each log's jobs with the occurrence of their job number (1 for its first line).
_ROWS = """
CREATE OR REPLACE TEMP TABLE wla_diff_rows AS
SELECT 'A' AS side, row_number() OVER (PARTITION BY job ORDER BY line_no) AS occurrence, * EXCLUDE (log_id)
FROM jobs WHERE log_id = $a
UNION ALL
SELECT 'B', row_number() OVER (PARTITION BY job ORDER BY line_no), * EXCLUDE (log_id)
FROM jobs WHERE log_id = $b
"""

# Every job number and occurrence that is not the same in both: in one log only, or changed.
_MATCH = """
CREATE OR REPLACE TEMP TABLE wla_diff_match AS
WITH x AS (SELECT * FROM wla_diff_rows WHERE side = 'A'),
     y AS (SELECT * FROM wla_diff_rows WHERE side = 'B'),
     m AS (
        SELECT coalesce(x.job, y.job) AS job, coalesce(x.occurrence, y.occurrence) AS occurrence,
               CASE WHEN y.job IS NULL THEN 'only in A' WHEN x.job IS NULL THEN 'only in B'
                    WHEN x.submit IS DISTINCT FROM y.submit OR x.wait IS DISTINCT FROM y.wait
                      OR x.run IS DISTINCT FROM y.run OR x.procs IS DISTINCT FROM y.procs
                      OR x.cpu IS DISTINCT FROM y.cpu OR x.mem IS DISTINCT FROM y.mem
                      OR x.req_procs IS DISTINCT FROM y.req_procs OR x.req_time IS DISTINCT FROM y.req_time
                      OR x.req_mem IS DISTINCT FROM y.req_mem OR x.status IS DISTINCT FROM y.status
                      OR x.user_id IS DISTINCT FROM y.user_id OR x.group_id IS DISTINCT FROM y.group_id
                      OR x.app_id IS DISTINCT FROM y.app_id OR x.queue_id IS DISTINCT FROM y.queue_id
                      OR x.partition_id IS DISTINCT FROM y.partition_id
                      OR x.prev_job IS DISTINCT FROM y.prev_job OR x.think IS DISTINCT FROM y.think
                    THEN 'changed' ELSE 'same' END AS state
        FROM x FULL JOIN y ON x.job = y.job AND x.occurrence = y.occurrence)
SELECT * FROM m WHERE state <> 'same'
"""

# The fields of changed jobs, one row each, as text (exact for BIGINT and DOUBLE alike).
_VALUES = """
CREATE OR REPLACE TEMP TABLE wla_diff_values AS
UNPIVOT (SELECT side, job, occurrence, line_no, COLUMNS(* EXCLUDE (side, job, occurrence, line_no))::VARCHAR
         FROM wla_diff_rows SEMI JOIN (SELECT job, occurrence FROM wla_diff_match WHERE state = 'changed')
              USING (job, occurrence))
ON COLUMNS(* EXCLUDE (side, job, occurrence, line_no)) INTO NAME field VALUE value
"""

_CHANGES = """
SELECT x.job, x.occurrence, x.line_no AS line_a, y.line_no AS line_b, x.field,
       x.value AS value_a, y.value AS value_b
FROM wla_diff_values AS x JOIN wla_diff_values AS y USING (job, occurrence, field)
WHERE x.side = 'A' AND y.side = 'B' AND x.value IS DISTINCT FROM y.value
ORDER BY x.job, x.occurrence, list_position($fields, x.field)
"""

# The jobs of each group: A and B whole (what a group is compared with), the
# jobs in one log only, the changed jobs (as A has them) and those per field.
_GROUPS = """
CREATE OR REPLACE TEMP TABLE wla_diff_groups AS
SELECT side AS grp, side AS base, * FROM wla_diff_rows
UNION ALL
SELECT m.state, r.side, r.* FROM wla_diff_rows AS r JOIN wla_diff_match AS m USING (job, occurrence)
WHERE m.state = 'only in A' AND r.side = 'A' OR m.state = 'only in B' AND r.side = 'B'
UNION ALL
SELECT 'changed', 'A', r.* FROM wla_diff_rows AS r JOIN wla_diff_match AS m USING (job, occurrence)
WHERE m.state = 'changed' AND r.side = 'A'
UNION ALL
SELECT 'changed ' || c.field, 'A', r.* FROM wla_diff_rows AS r
JOIN (SELECT DISTINCT job, occurrence, field FROM wla_diff_values) AS c USING (job, occurrence)
JOIN (SELECT x.job, x.occurrence, x.field FROM wla_diff_values AS x JOIN wla_diff_values AS y
      USING (job, occurrence, field)
      WHERE x.side = 'A' AND y.side = 'B' AND x.value IS DISTINCT FROM y.value) AS d
  USING (job, occurrence, field)
WHERE r.side = 'A'
"""

_TRAITS = """
SELECT grp, base, count(*) AS jobs,
       count(*) FILTER (WHERE run > req_time AND req_time > 0) AS run_over_req,
       count(*) FILTER (WHERE procs > req_procs AND req_procs > 0) AS procs_over_req,
       count(*) FILTER (WHERE cpu > run AND run >= 0) AS cpu_over_run,
       count(*) FILTER (WHERE wait > $day) AS wait_over_day,
       count(*) FILTER (WHERE submit = -1) AS submit_unknown,
       count(*) FILTER (WHERE wait = -1) AS wait_unknown,
       count(*) FILTER (WHERE run = -1) AS run_unknown,
       count(*) FILTER (WHERE run = 0) AS run_zero,
       count(*) FILTER (WHERE procs = -1) AS procs_unknown,
       count(*) FILTER (WHERE procs = 0) AS procs_zero,
       count(*) FILTER (WHERE cpu = -1) AS cpu_unknown,
       count(*) FILTER (WHERE cpu = 0) AS cpu_zero,
       count(*) FILTER (WHERE mem = -1) AS mem_unknown,
       count(*) FILTER (WHERE mem = 0) AS mem_zero,
       count(*) FILTER (WHERE req_procs = -1) AS req_procs_unknown,
       count(*) FILTER (WHERE req_time = -1) AS req_time_unknown,
       min(job) AS first_job, max(job) AS last_job, min(line_no) AS first_line, max(line_no) AS last_line,
       count(DISTINCT user_id) AS users,
       min(submit) FILTER (WHERE submit >= 0) AS first_submit,
       max(submit) FILTER (WHERE submit >= 0) AS last_submit
FROM wla_diff_groups GROUP BY grp, base ORDER BY grp
"""

# The three most common values of each VALUE_FIELDS field per group, with how
# many jobs of the group's whole log hold the same value.
_VALUES_OF_GROUPS = """
WITH v AS (UNPIVOT (SELECT grp, base, status, user_id, group_id, app_id, queue_id, partition_id, procs, req_procs
                    FROM wla_diff_groups)
           ON COLUMNS(* EXCLUDE (grp, base)) INTO NAME field VALUE value),
     c AS (SELECT grp, base, field, value, count(*) AS n FROM v GROUP BY ALL),
     r AS (SELECT *, row_number() OVER (PARTITION BY grp, field ORDER BY n DESC, value) AS rank,
                  count(*) OVER (PARTITION BY grp, field) AS values FROM c)
SELECT r.grp, r.field, r.value, r.n, r.rank, r.values, w.n AS in_log
FROM r JOIN c AS w ON w.grp = r.base AND w.field = r.field AND w.value = r.value
WHERE r.rank <= 3 ORDER BY r.grp, r.field, r.rank
"""

# How each field changed: direction, size, and the other field it now equals.
_HOW = """
WITH c AS (
    SELECT x.job, x.occurrence, x.field, TRY_CAST(x.value AS DOUBLE) AS a, TRY_CAST(y.value AS DOUBLE) AS b
    FROM wla_diff_values AS x JOIN wla_diff_values AS y USING (job, occurrence, field)
    WHERE x.side = 'A' AND y.side = 'B' AND x.value IS DISTINCT FROM y.value)
SELECT field, count(*) AS changes,
       count(*) FILTER (WHERE a = -1) AS from_unknown,
       count(*) FILTER (WHERE b = -1) AS to_unknown,
       count(*) FILTER (WHERE b > a AND a <> -1 AND b <> -1) AS raised,
       count(*) FILTER (WHERE b < a AND a <> -1 AND b <> -1) AS lowered,
       min(b - a) FILTER (WHERE b > a AND a <> -1 AND b <> -1) AS raised_min,
       median(b - a) FILTER (WHERE b > a AND a <> -1 AND b <> -1) AS raised_median,
       max(b - a) FILTER (WHERE b > a AND a <> -1 AND b <> -1) AS raised_max,
       min(b / a) FILTER (WHERE b > a AND a > 0) AS raised_factor_min,
       median(b / a) FILTER (WHERE b > a AND a > 0) AS raised_factor_median,
       max(b / a) FILTER (WHERE b > a AND a > 0) AS raised_factor_max,
       min(b - a) FILTER (WHERE b < a AND a <> -1 AND b <> -1) AS lowered_min,
       median(b - a) FILTER (WHERE b < a AND a <> -1 AND b <> -1) AS lowered_median,
       max(b - a) FILTER (WHERE b < a AND a <> -1 AND b <> -1) AS lowered_max,
       mode(b) AS common_value, count(*) FILTER (WHERE b = mode_b) AS common_count
FROM (SELECT *, mode(b) OVER (PARTITION BY field) AS mode_b FROM c)
GROUP BY field
"""

# For each changed field, the other field (of the same job, in A or in B)
# its new value most often equals; -1 and 0 equal too much to say anything.
_EQUALS = """
WITH c AS (
    SELECT x.job, x.occurrence, x.field, TRY_CAST(y.value AS DOUBLE) AS b
    FROM wla_diff_values AS x JOIN wla_diff_values AS y USING (job, occurrence, field)
    WHERE x.side = 'A' AND y.side = 'B' AND x.value IS DISTINCT FROM y.value),
     e AS (
    SELECT c.field, o.field AS other, o.side, count(*) AS n
    FROM c JOIN wla_diff_values AS o ON o.job = c.job AND o.occurrence = c.occurrence AND o.field <> c.field
    WHERE TRY_CAST(o.value AS DOUBLE) = c.b AND c.b NOT IN (-1, 0)
    GROUP BY ALL)
SELECT field, other, side, n FROM e
QUALIFY row_number() OVER (PARTITION BY field ORDER BY n DESC, side DESC, list_position($fields, other)) = 1
"""

_DROP = ("DROP TABLE IF EXISTS wla_diff_groups", "DROP TABLE IF EXISTS wla_diff_values",
         "DROP TABLE IF EXISTS wla_diff_match", "DROP TABLE IF EXISTS wla_diff_rows")


@dataclass(frozen=True)
class Finding:
    """One thing the jobs of a group have in common, with how many of them."""

    group: str  # 'only in A', 'only in B', 'changed' or 'changed FIELD'
    text: str
    count: int  # jobs (or changes) it holds for
    of: int  # jobs (or changes) of the group


@dataclass
class LogDiff:
    """Two logs compared: counts, the jobs of one only, the changed fields, and findings."""

    a: str
    b: str
    jobs_a: int
    jobs_b: int
    matched: int  # job numbers (and occurrences) in both
    repeated_a: int  # job numbers that occur more than once in A
    repeated_b: int
    only_a: pd.DataFrame  # line_no, occurrence of the job number, the 18 fields, as A holds them
    only_b: pd.DataFrame
    changed: pd.DataFrame  # job, occurrence, line_a, line_b, field, value_a, value_b
    findings: list[Finding] = field(default_factory=list)
    rejects_a: int = 0  # lines of A's file a lenient ingest refused: not jobs, so not compared
    rejects_b: int = 0

    @property
    def changed_jobs(self) -> int:
        return int(self.changed[["job", "occurrence"]].drop_duplicates().shape[0])

    @property
    def same(self) -> bool:
        return self.only_a.empty and self.only_b.empty and self.changed.empty

    def field_changes(self) -> dict[str, int]:
        """Changes per field, in SWF order."""
        counts = self.changed["field"].value_counts()
        return {c: int(counts[c]) for c in COLUMNS if c in counts.index}

    def matching(self) -> str:
        said = "matched by job number"
        if self.repeated_a or self.repeated_b:
            said += (f"; {self.repeated_a:,} job numbers occur more than once in A and {self.repeated_b:,} in B, "
                     "matched by order of occurrence")
        return said

    def counts(self) -> dict[str, int]:
        return {"jobs_a": self.jobs_a, "jobs_b": self.jobs_b, "matched": self.matched,
                "only_a": len(self.only_a), "only_b": len(self.only_b), "changed_jobs": self.changed_jobs,
                "changes": len(self.changed), "repeated_a": self.repeated_a, "repeated_b": self.repeated_b,
                "rejects_a": self.rejects_a, "rejects_b": self.rejects_b}

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "matching": self.matching(), "counts": self.counts(),
                "field_changes": self.field_changes(),
                "findings": [vars(f) for f in self.findings],
                "only_a": self.only_a, "only_b": self.only_b, "changed": self.changed}


def log_diff(archive: Archive, a: str, b: str) -> LogDiff:
    """Compare the logs or versions `a` and `b` (LOG or LOG@VERSION) job by job."""
    named_a, named_b = resolve(archive, a), resolve(archive, b)
    con = archive.con
    try:
        con.execute(_ROWS, {"a": named_a.log_id, "b": named_b.log_id})
        con.execute(_MATCH)
        con.execute(_VALUES)
        con.execute(_GROUPS)
        diff = _collect(archive, named_a.name, named_b.name)
        diff.rejects_a, diff.rejects_b = (_rejects(archive, n.log_id) for n in (named_a, named_b))
        clocks = {side: _clock(archive, n.log_id) for side, n in (("A", named_a), ("B", named_b))}
        diff.findings = _findings(archive, diff, clocks)
    finally:
        for statement in _DROP:
            con.execute(statement)
    return diff


def _collect(archive: Archive, a: str, b: str) -> LogDiff:
    counts = archive.rows(
        "SELECT side, count(*), count(*) FILTER (WHERE occurrence = 2) FROM wla_diff_rows GROUP BY side")
    sizes = {side: (int(n), int(r)) for side, n, r in counts}
    (jobs_a, rep_a), (jobs_b, rep_b) = sizes.get("A", (0, 0)), sizes.get("B", (0, 0))
    only = {side: archive.df(
        "SELECT r.* EXCLUDE (side) FROM wla_diff_rows AS r "
        "JOIN wla_diff_match AS m USING (job, occurrence) WHERE m.state = ? AND r.side = ? ORDER BY r.line_no",
        [f"only in {side}", side]) for side in ("A", "B")}
    changed = archive.df(_CHANGES, {"fields": list(COLUMNS)})
    for column in ("value_a", "value_b"):
        changed[column] = pd.Series([_number(f, v) for f, v in zip(changed["field"], changed[column])],
                                    index=changed.index, dtype=object)
    return LogDiff(a, b, jobs_a, jobs_b, jobs_a - len(only["A"]), rep_a, rep_b,
                   only["A"][ROW_COLUMNS], only["B"][ROW_COLUMNS], changed)


def _rejects(archive: Archive, log_id: int) -> int:
    return int(archive.rows("SELECT count(*) FROM rejects WHERE log_id = ?", [log_id])[0][0])


def _number(name: str, value: str | None) -> int | float | None:
    """A stored value back from its exact text."""
    if value is None:
        return None
    return int(value) if name in INTEGER else float(value)


def _clock(archive: Archive, log_id: int):
    [(start, tz)] = archive.rows("SELECT unix_start_time, tz FROM logs WHERE log_id = ?", [log_id])
    return log_clock(start, tz)


# -- findings ---------------------------------------------------------------------------


def _noun(group: str) -> str:
    if group.startswith("changed "):
        return f"jobs whose {group.removeprefix('changed ')} changed"
    return "changed jobs" if group == "changed" else f"jobs {group}"


def _share(k: int, n: int) -> str:
    return f"{100 * k / n:.1f}%" if n else "-"


def _worth(k: int, n: int, in_log: int, log_jobs: int) -> bool:
    """Holds for most of the group and clearly more often than in the whole log."""
    return n > 0 and k >= MOST * n and in_log / log_jobs <= DISTINCT * k / n


def _findings(archive: Archive, diff: LogDiff, clocks: dict) -> list[Finding]:
    traits = archive.df(_TRAITS, {"day": DAY})
    values = archive.df(_VALUES_OF_GROUPS)
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
            out += _how_fields(archive, diff)
        base = whole[row.base]
        out += _where(archive, group, row, base, clocks[row.base])
        out += _traits(group, row, base)
        out += _common_values(group, values[values.grp == group], int(row.jobs), base)
    return out


def _where(archive: Archive, group: str, row, base, clock) -> list[Finding]:
    """Which job numbers, which lines of the log, when submitted."""
    n, noun, side = int(row.jobs), _noun(group), row.base
    said = f"{n:,} of {n:,} {noun} have job numbers {int(row.first_job)} to {int(row.last_job)}"
    lo, hi = int(row.first_line), int(row.last_line)
    [(within,)] = archive.rows("SELECT count(*) FROM wla_diff_rows WHERE side = ? AND line_no BETWEEN ? AND ?",
                               [side, lo, hi])
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


def _how_fields(archive: Archive, diff: LogDiff) -> list[Finding]:
    """Which fields changed, and how each did."""
    changes = diff.field_changes()
    total = len(diff.changed)
    if len(changes) == 1:
        [(name, k)] = changes.items()
        out = [Finding("changed", f"all {k:,} changes are to {name} ({TITLE[name]})", k, k)]
    else:
        listed = ", ".join(f"{name} {k:,}" for name, k in changes.items())
        out = [Finding("changed", f"{total:,} changes to {len(changes)} fields: {listed}", total, total)]
    how = archive.df(_HOW).set_index("field")
    equals = archive.df(_EQUALS, {"fields": list(COLUMNS)}).set_index("field")
    for name in changes:
        r = how.loc[name]
        m, group = int(r.changes), f"changed {name}"
        said = []
        if r.from_unknown:
            said.append((int(r.from_unknown), "from -1 (unknown) to a known value"))
        if r.to_unknown:
            said.append((int(r.to_unknown), "to -1 (unknown)"))
        for way in ("raised", "lowered"):
            k = int(r[way])
            if k:
                by = _by(r[f"{way}_min"], r[f"{way}_median"], r[f"{way}_max"])
                factor = ""
                if way == "raised" and pd.notna(r.raised_factor_median):
                    factor = ", " + _factor(r.raised_factor_min, r.raised_factor_median, r.raised_factor_max)
                said.append((k, f"{way} {by}{factor}"))
        for k, text in said:
            out.append(Finding(group, f"{k:,} of {m:,} changes to {name}: {text}", k, m))
        k = int(r.common_count)
        if k >= MOST * m and m > 1 and float(r.common_value) != -1:
            out.append(Finding(group, f"{k:,} of {m:,} changes to {name} set it to {_plain(r.common_value)}", k, m))
        if name in equals.index:
            e = equals.loc[name]
            if int(e.n) >= MOST * m:
                out.append(Finding(group, f"{int(e.n):,} of {m:,} changes to {name} set it to the job's "
                                          f"{e.other} in {e.side}", int(e.n), m))
    return out


def _plain(x: float) -> str:
    x = float(x)
    return f"{int(x):,}" if x == int(x) else f"{x:,.2f}"


def _by(lo: float, mid: float, hi: float) -> str:
    if lo == hi:
        return f"each by {float(lo):+,.0f}" if float(lo) == int(lo) else f"each by {float(lo):+,.2f}"
    return f"by {_signed(lo)} to {_signed(hi)} (median {_signed(mid)})"


def _signed(x: float) -> str:
    x = float(x)
    return f"{x:+,.0f}" if x == int(x) else f"{x:+,.2f}"


def _factor(lo: float, mid: float, hi: float) -> str:
    if round(float(lo), 2) == round(float(hi), 2):
        return f"each a factor of {float(lo):.2f}"
    return f"a factor of {float(lo):.2f} to {float(hi):.2f} (median {float(mid):.2f})"
