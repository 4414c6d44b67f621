"""Capacity (docs/pages/definitions/cleaning.md section 4): when running jobs hold more processors
than the machine has, and which jobs the capacity rule deletes.

One job per module: `report.py` (the usage profile, its exceptions and
their components: `capacity_report`), `programs.py` (per component, the 0/1
programs), `parts.py` (the greedy deletion, and programs too large to solve
whole, in windows), `highs.py` (the calls to HiGHS), `quiet.py` (HiGHS's
stray prints kept off standard output), `choice.py` (the deletion the rule
makes: `capacity_deletions`), `plot.py` (daily lowest and highest
utilization). The report's names are importable from here; scipy and
matplotlib load only with `choice`, `programs`, `parts`, `highs` and `plot`,
which callers import inside the function that solves or draws.
"""
from __future__ import annotations

from .report import (
    MAX_HELD,
    NO_STARTS,
    CapacityReport,
    Cliques,
    Held,
    Profile,
    capacity_report,
    check_capacity,
    component_table,
    daily_utilization,
    find_cliques,
    held_jobs,
    plain,
    records,
    starts_known,
    usage_profile,
)

__all__ = [
    "MAX_HELD", "NO_STARTS", "CapacityReport", "Cliques", "Held", "Profile", "capacity_report", "check_capacity",
    "component_table", "daily_utilization", "find_cliques", "held_jobs", "plain", "records", "starts_known",
    "usage_profile",
]
