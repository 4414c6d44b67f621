"""Two versions of one log (either may be the original) compared line by
line, each dropped job and changed field attributed to the cleaning rule
that decided it (`wla diff LOG V1 V2`). A version keeps each job's line in
the original, so a line is a job, and the table `decisions` of the versions
in each one's lineage says which rule dropped or changed it."""
from __future__ import annotations

import pandas as pd

from ...resolve import lineage, resolve
from ...store.file import Archive
from .sql import statement


def rule_diff(archive: Archive, log: str, v1: str, v2: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Jobs dropped or changed between two versions of `log` (either may be
    'original'): a summary grouped by rule, and one row per job and field."""
    a, b = resolve(archive, log, v1), resolve(archive, log, v2)
    detail = archive.df(statement("by_rule"), {
        "in1": f"dropped in {v1}", "in2": f"dropped in {v2}", "ida": a.log_id, "idb": b.log_id,
        "la": lineage(archive, a.name), "lb": lineage(archive, b.name)})
    summary = (detail.groupby(["change", "rule"], sort=True)
               .agg(jobs=("line_no", "nunique"), values=("line_no", "size")).reset_index())
    return summary, detail
