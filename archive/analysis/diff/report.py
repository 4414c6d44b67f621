"""What `wla diff A B` finds: `LogDiff` (the counts, the jobs of one log
only, the changed fields, the findings) and its `Finding`s, with the shares
from which a finding is worth saying."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ...swf.fields import COLUMNS

# A description holds for "most" of a group from this share up, and is worth
# saying only if the whole log has it clearly less often (share times this).
FEW = 10  # the jobs of one changed field below this are not described (how they changed still is)
MOST = 0.75
DISTINCT = 0.9
SPREAD = 0.5  # a group submitted over more than this share of the log's span has no period of its own


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
