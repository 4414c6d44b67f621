"""Every random stream of the simulator and its studies, made one way: PCG64
seeded through numpy's SeedSequence, from the numbers the result records.

- `stream(seed)`: the one stream of a seed (badness estimates, ESP's job
  order, the five steps of a resampling); the same draws as
  `np.random.default_rng(seed)`.
- `run_rng(seed, run)`: run `run`'s stream in a shaking study, a function of
  the two numbers alone (the seed's SeedSequence, spawn key `(run,)`), so
  runs can be done in any order, anywhere.
- `run_seed(seed, run)`: run `run`'s seed in a resampled study, 63 bits of
  SeedSequence([seed, run]); the run's workload is then `stream` of it, and
  `wla resample --seed` makes it again.
"""
from __future__ import annotations

import numpy as np


def stream(seed: int) -> np.random.Generator:
    """The stream of one seed: PCG64 over SeedSequence(seed)."""
    return np.random.Generator(np.random.PCG64(seed))


def run_rng(seed: int, run: int) -> np.random.Generator:
    """The generator of run `run` of a study seeded `seed`: a function of the
    two numbers alone, so runs can be done in any order, anywhere."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy=int(seed), spawn_key=(int(run),))))


def run_seed(seed: int, run: int) -> int:
    """The resampling seed of run `run` (63 bits, from numpy's SeedSequence)."""
    return int(np.random.SeedSequence([int(seed), int(run)]).generate_state(1, np.uint64)[0]) >> 1
