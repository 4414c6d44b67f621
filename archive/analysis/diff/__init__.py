"""Two logs or versions compared, both ways `wla diff` does it: job by job,
any two logs or versions (`log_diff`, by_job.py), and line by line, two
versions of one log with each difference attributed to the rule that made
it (`rule_diff`, by_rule.py). Every statement of both is in
`schema/diff.sql`, read by name (sql.py).

Modules: `sql.py` (the statements), `pairing.py` (A's and B's jobs paired by
job number and occurrence), `fields.py` (the changed fields and how they
changed), `findings.py` (what the differing jobs have in common),
`report.py` (`LogDiff`, `Finding`), `by_job.py`, `by_rule.py`.
"""
from __future__ import annotations

from .by_job import log_diff
from .by_rule import rule_diff
from .report import Finding, LogDiff

__all__ = ["Finding", "LogDiff", "log_diff", "rule_diff"]
