"""Any two logs or versions compared job by job (`wla diff A B`): the jobs
one holds and the other does not, the fields that differ, and what the
differing jobs have in common. It is how a copy of a log from a third party
is told from the published one, and how two published versions of a log are
told apart.

Jobs are matched by job number; a number that occurs k times in a log is
matched by order of occurrence (its i-th line in A with its i-th line in
B). The 18 fields are compared as stored: -1 is a value like any other.
"""
from __future__ import annotations

from ...kernel.clock import log_clock
from ...resolve import resolve
from ...store.file import Archive
from ...swf.fields import COLUMNS
from .fields import changes
from .findings import findings
from .pairing import paired
from .report import LogDiff
from .sql import statement

ROW_COLUMNS = ["line_no", "occurrence", *COLUMNS]


def log_diff(archive: Archive, a: str, b: str) -> LogDiff:
    """Compare the logs or versions `a` and `b` (LOG or LOG@VERSION) job by job."""
    named_a, named_b = resolve(archive, a), resolve(archive, b)
    with paired(archive, named_a.log_id, named_b.log_id):
        diff = _collect(archive, named_a.name, named_b.name)
        diff.rejects_a, diff.rejects_b = (_rejects(archive, n.log_id) for n in (named_a, named_b))
        clocks = {side: _clock(archive, n.log_id) for side, n in (("A", named_a), ("B", named_b))}
        diff.findings = findings(archive, diff, clocks)
    return diff


def _collect(archive: Archive, a: str, b: str) -> LogDiff:
    sizes = {side: (int(n), int(r)) for side, n, r in archive.rows(statement("sizes"))}
    (jobs_a, rep_a), (jobs_b, rep_b) = sizes.get("A", (0, 0)), sizes.get("B", (0, 0))
    only = {side: archive.df(statement("only"), {"state": f"only in {side}", "side": side}) for side in ("A", "B")}
    return LogDiff(a, b, jobs_a, jobs_b, jobs_a - len(only["A"]), rep_a, rep_b,
                   only["A"][ROW_COLUMNS], only["B"][ROW_COLUMNS], changes(archive))


def _rejects(archive: Archive, log_id: int) -> int:
    return int(archive.rows(statement("rejects"), {"log_id": log_id})[0][0])


def _clock(archive: Archive, log_id: int):
    [(start, tz)] = archive.rows(statement("clock"), {"log_id": log_id})
    return log_clock(start, tz)
