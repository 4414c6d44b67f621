"""Resampled runs of a study: run i's workload is the log resampled with a
seed drawn from (the study's seed, i) alone, so any run can be made again
with `wla resample --seed` and the seed its table row gives."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ...seeds import run_seed
from ...workload import Workload
from .settings import ResampleSettings
from .workload import Resampled, SourceLog, resample_source


@dataclass(frozen=True)
class Resampling:
    """What every task of a resampled study shares: the log read once, and
    the settings its points change (load, rb_npw)."""

    source: SourceLog
    settings: ResampleSettings

    def resampled(self, run: int, load: float | None = None, rb_npw: float | None = None) -> Resampled:
        """Run `run`'s workload with every field; `load` and `rb_npw` as a point sets them."""
        s = replace(self.settings, seed=run_seed(self.settings.seed, run),
                    load=self.settings.load if load is None else load,
                    rb_npw=self.settings.rb_npw if rb_npw is None else rb_npw)
        return resample_source(self.source, s)

    def workload(self, run: int, load: float | None = None, rb_npw: float | None = None) -> Workload:
        return self.resampled(run, load, rb_npw).workload()

    def as_dict(self) -> dict:
        return {"log": self.source.name, **self.settings.checked().as_dict(),
                "seed_rule": "run i resampled with run_seed(seed, i): SeedSequence([seed, i]), 63 bits",
                "pools": {"long_term_weeks": self.source.pools.long_term_weeks,
                          "edge_weeks": self.source.pools.edge_weeks,
                          "rare_behavior_triples": len(self.source.pools.triples)}}
