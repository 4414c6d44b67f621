"""The settings of the shaken studies (shake, compare, sweep), each declared
once (docs/pages/definitions/shaking.md's defaults); the simulation's are SimSettings
(sim/settings.py), the resampling's ResampleSettings (resample/settings.py).
No heavy import."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wla.archive.kernel.errors import UsageError
from wla.archive.kernel.ranges import MAX_SEED, whole
from wla.archive.kernel.settings import Settings, setting

from ..settings import SimSettings

ATTRIBUTES = ("interarrival", "runtime", "estimate", "size")


@dataclass(frozen=True)
class ShakeSettings(Settings):
    """How a study shakes its workload, and how often."""

    attribute: str = setting("interarrival", "What to shake: interarrival, runtime, estimate or size")
    degree: float = setting(60.0, "Largest change: seconds, or processors for size")
    relative: float | None = setting(10.0, "Relative shaking: at most this percent of the value (the gap, for "
                                           "interarrival)", metavar="PCT")  # None: absolute shaking
    jobs: float = setting(100.0, "Percent of jobs shaken", metavar="PCT")
    runs: int = setting(100, "Shaken runs (the original is simulated too)")
    seed: int = setting(0, "Seed: run i is shaken by (seed, i) alone; also the simulation's seed",
                        check=lambda n, v: whole(n, v, 0, MAX_SEED))

    def shaking(self) -> Any:
        """The shaking each run applies (shake.Shaking), refused here if perturb would refuse it."""
        from .shake import Shaking

        return Shaking.checked(self.attribute, self.degree, self.relative, self.jobs, self.seed)


def split(shake: ShakeSettings | None, sim: SimSettings | None,
          changes: dict[str, Any]) -> tuple[ShakeSettings, SimSettings]:
    """Keyword arguments of a study, each edit given to the settings it names
    (`runs=10, policy="fcfs"`). The simulation's seed is the study's."""
    shake = (shake or ShakeSettings()).edit(**{k: v for k, v in changes.items() if k in ShakeSettings.names()})
    sim = (sim or SimSettings()).edit(**{k: v for k, v in changes.items() if k not in ShakeSettings.names()})
    if sim.seed not in (SimSettings.default("seed"), shake.seed):
        raise UsageError("give the study's seed once, as `seed`")
    return shake, sim.edit(seed=shake.seed)
