"""Rules whose decisions Python computes (what SQL cannot do well).

Each returns the jobs to drop with their reasons, a note, and the facts of
the log it sets in the version (the regime rule: its machine size); the
rule's SQL reads the drops from `computed_drops`, so the step is still a view.
"""
from __future__ import annotations

from typing import Callable

import pandas as pd

from ..kernel.clock import log_clock
from ..kernel.errors import UsageError, WlaError
from ..kernel.progress import Parts
from ..store.catalog import machine_size
from ..store.predicate import submit_seconds
from .set_rule import set_drops, set_params


def _capacity_params(params: dict, facts: dict) -> dict:
    out = dict(params)
    out["capacity"] = machine_size(facts, out.get("capacity"), "give capacity in the step")
    return out


def _capacity_drops(jobs: pd.DataFrame, params: dict, facts: dict,
                    progress: Parts | None = None) -> tuple[pd.DataFrame, str, dict]:
    from ..analysis.capacity.choice import capacity_deletions  # scipy loads only when the rule runs

    choice = capacity_deletions(jobs, params["capacity"], slack=params["slack"],
                                threshold=params["threshold"], node_limit=params["node_limit"],
                                size_limit=params["size_limit"],
                                unix_start_time=facts.get("unix_start_time"), tz=facts.get("tz"),
                                progress=progress)
    return choice.deletions[["line_no", "reason"]], choice.message, {}


def _regime_params(params: dict, facts: dict) -> dict:
    """A regime, or dates: not both, not neither; dates checked now."""
    dated = [k for k in ("since", "until") if params.get(k) is not None]
    if (params.get("regime") is None) == (not dated):
        raise UsageError("give regime, or since and/or until, in the step" if not dated else
                         f"give regime or {' and '.join(dated)} in the step, not both")
    clock = log_clock(facts.get("unix_start_time"), facts.get("tz"))
    for k in dated:
        if isinstance(params[k], str):
            submit_seconds(params[k], clock)
    return dict(params)


def _regime_drops(jobs: pd.DataFrame, params: dict, facts: dict,
                  progress: Parts | None = None) -> tuple[pd.DataFrame, str, dict]:
    import numpy as np

    from ..analysis.diagnosis import capacity_regimes
    from ..analysis.diagnosis.log_data import FIELDS, LogData

    log = LogData(str(facts.get("name")), {c: jobs[c].to_numpy() for c in ["line_no", *FIELDS]}, facts, [])
    if params["regime"] is not None:
        thresholds = {k: params[k] for k in ("min_days", "min_change", "tolerance", "plateau")}
        found = capacity_regimes.regimes(log, **thresholds)
        if params["regime"] > len(found):
            raise UsageError(f"regime {params['regime']}: the step's jobs hold "
                             f"{len(found)} capacity regime{'s' if len(found) != 1 else ''}")
        r = found[params["regime"] - 1]
        start, end, capacity = r.start, r.end, r.capacity
        what = f"capacity regime {r.number} of {len(found)} ({r.first} to {r.last}, capacity {r.capacity})"
    else:
        clock = log.clock
        start, end = (None if params[k] is None else float(submit_seconds(params[k], clock))
                      if isinstance(params[k], str) else float(params[k]) for k in ("since", "until"))
        what = (f"the span [{'start' if start is None else params['since']}, "
                f"{'end' if end is None else params['until']})")
        capacity = None
    submit = jobs["submit"].to_numpy(np.float64)
    outside = (submit != -1) & (((submit < start) if start is not None else False)
                                | ((submit >= end) if end is not None else False))
    if capacity is None:
        kept = LogData(log.name, {c: v[~outside] for c, v in log.jobs.items()}, facts, [])
        capacity = capacity_regimes.level(kept)
    size = params["size"] if params["size"] is not None else capacity
    if size is None:
        raise UsageError(f"no job of {what} ran: give size in the step")
    drops = pd.DataFrame({"line_no": jobs["line_no"].to_numpy()[outside],
                          "reason": f"submitted outside {what}"})
    return drops, f"kept {what}; machine size {size}", {"machine_size": int(size)}


# computed name -> (fill log-dependent parameters, compute the drops, the
# step's note and the facts it sets; the latter is also given `progress=`,
# told as its parts finish)
COMPUTED: dict[str, tuple[Callable[[dict, dict], dict],
                          Callable[..., tuple[pd.DataFrame, str, dict]]]] = {
    "capacity": (_capacity_params, _capacity_drops),
    "regime": (_regime_params, _regime_drops),
    "set": (set_params, set_drops),
}


def computed(name: str):
    if name not in COMPUTED:
        raise WlaError(f"no computation named {name!r} (known: {', '.join(COMPUTED)})")
    return COMPUTED[name]
