"""A simulation's outcome: per-job arrays, summaries, and every setting that
produced it, so that a result says how it was obtained."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from .settings import SimSettings


@dataclass(frozen=True)
class SimResult:
    settings: dict  # every option and default, as used
    source: dict  # log, version or query, and where P came from
    counts: dict  # jobs, simulated, not simulated by reason, measured, left out by reason
    metrics: dict  # summaries of docs/pages/definitions/simulation.md
    job: np.ndarray  # per simulated job, in log order from here on
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    run: np.ndarray  # time the job held its processors
    procs: np.ndarray
    estimate: np.ndarray  # what the scheduler believed when it started the job
    wait: np.ndarray
    response: np.ndarray
    bounded_slowdown: np.ndarray
    measured: np.ndarray
    reservation: np.ndarray | None = None  # conservative: the reservation each job got on arrival
    trace_submit: np.ndarray | None = None  # the submit time the trace gives (after load factor and shaking);
    # `submit` is when the job arrived, later with feedback when it waited for another
    sim_settings: SimSettings | None = None  # the settings as given; `settings` writes them out with what they implied

    def summary(self) -> dict:
        return {"source": self.source, "settings": self.settings, "counts": self.counts,
                "metrics": self.metrics}

    def to_json(self) -> str:
        return json.dumps(self.summary(), indent=2)

    def schedule(self) -> pd.DataFrame:
        """The per-job schedule (what --save stores); under conservative
        backfilling, each job's first reservation too."""
        import pandas as pd

        columns = {
            "job": self.job, "submit": self.submit, "start_time": self.start, "end_time": self.end,
            "processors": self.procs, "estimate": self.estimate, "measured": self.measured,
        }
        if self.sim_settings is not None and self.sim_settings.feedback and self.trace_submit is not None:
            columns["trace_submit"] = self.trace_submit
        if self.reservation is not None:
            columns["reservation"] = self.reservation
        return pd.DataFrame(columns)
