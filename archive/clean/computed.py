"""Rules whose decisions Python computes (what SQL cannot do well).

Each returns the jobs to drop with their reasons; the rule's SQL reads them
from `computed_drops`, so the step is still a view.
"""
from __future__ import annotations

from typing import Callable

import pandas as pd

from ..kernel.errors import WlaError
from ..kernel.progress import Parts
from ..store.catalog import machine_size


def _capacity_params(params: dict, facts: dict) -> dict:
    out = dict(params)
    out["capacity"] = machine_size(facts, out.get("capacity"), "give capacity in the step")
    return out


def _capacity_drops(jobs: pd.DataFrame, params: dict, facts: dict,
                    progress: Parts | None = None) -> tuple[pd.DataFrame, str]:
    from ..analysis.capacity.choice import capacity_deletions  # scipy loads only when the rule runs

    choice = capacity_deletions(jobs, params["capacity"], slack=params["slack"],
                                threshold=params["threshold"], node_limit=params["node_limit"],
                                size_limit=params["size_limit"],
                                unix_start_time=facts.get("unix_start_time"), tz=facts.get("tz"),
                                progress=progress)
    return choice.deletions[["line_no", "reason"]], choice.message


# computed name -> (fill log-dependent parameters, compute the drops; the
# latter is also given `progress=`, told as its parts finish)
COMPUTED: dict[str, tuple[Callable[[dict, dict], dict],
                          Callable[..., tuple[pd.DataFrame, str]]]] = {
    "capacity": (_capacity_params, _capacity_drops),
}


def computed(name: str):
    if name not in COMPUTED:
        raise WlaError(f"no computation named {name!r} (known: {', '.join(COMPUTED)})")
    return COMPUTED[name]
