"""The per-field comparison of the paired jobs: each changed field with its
value in A and in B, and how each field changed (from or to -1, raised or
lowered and by how much, set to one value, set to another field of the job)."""
from __future__ import annotations

import pandas as pd

from ...store.file import Archive
from ...swf.fields import COLUMNS, FIELDS
from .report import MOST, Finding, LogDiff
from .sql import statement

INTEGER = {f.column for f in FIELDS if f.integer}
TITLE = {f.column: f.title for f in FIELDS}


def changes(archive: Archive) -> pd.DataFrame:
    """One row per changed field of a paired job, in SWF order, each value
    the number it was stored as: job, occurrence, line_a, line_b, field,
    value_a, value_b."""
    changed = archive.df(statement("changes"), {"fields": list(COLUMNS)})
    for column in ("value_a", "value_b"):
        changed[column] = pd.Series([_number(f, v) for f, v in zip(changed["field"], changed[column])],
                                    index=changed.index, dtype=object)
    return changed


def _number(name: str, value: str | None) -> int | float | None:
    """A stored value back from its exact text."""
    if value is None:
        return None
    return int(value) if name in INTEGER else float(value)


def how_fields(archive: Archive, diff: LogDiff) -> list[Finding]:
    """Which fields changed, and how each did."""
    changes = diff.field_changes()
    total = len(diff.changed)
    if len(changes) == 1:
        [(name, k)] = changes.items()
        out = [Finding("changed", f"all {k:,} changes are to {name} ({TITLE[name]})", k, k)]
    else:
        listed = ", ".join(f"{name} {k:,}" for name, k in changes.items())
        out = [Finding("changed", f"{total:,} changes to {len(changes)} fields: {listed}", total, total)]
    how = archive.df(statement("how")).set_index("field")
    equals = archive.df(statement("equals"), {"fields": list(COLUMNS)}).set_index("field")
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
