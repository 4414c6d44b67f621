"""ESP studies (sim/esp_study.py): the score over seeds and the two-stage test."""
from __future__ import annotations

import math

import pandas as pd
import pytest
from wla.sim.esp import EXAMPLE_MIX, read_mix, run_esp
from wla.sim.esp_study import distribution, esp_over_seeds, two_stage


def test_each_seed_is_the_run_of_that_seed_and_repeats():
    mix = read_mix(EXAMPLE_MIX)
    runs = esp_over_seeds(mix, 64, 3, first_seed=5, full_arrivals=[2400, 3600])
    assert runs["seed"].tolist() == [5, 6, 7]
    for _, row in runs.iterrows():
        _, score = run_esp(mix, 64, "easy", int(row["seed"]), [2400, 3600])
        assert row["efficiency"] == score.efficiency and row["by_processor"] == score.by_processor
    pd.testing.assert_frame_equal(runs, esp_over_seeds(mix, 64, 3, first_seed=5, full_arrivals=[2400, 3600]))
    # The batches differ by seed, and so do the scores.
    assert runs["efficiency"].nunique() > 1


def test_distribution_by_hand():
    # Five efficiencies 0.5 .. 0.9: mean 0.7; squared deviations sum to 0.1,
    # std = sqrt(0.1 / 4); linear percentiles: p5 at rank 0.2 -> 0.52,
    # p25 -> 0.6, p50 -> 0.7, p75 -> 0.8, p95 at rank 3.8 -> 0.88.
    runs = pd.DataFrame({"efficiency": [0.9, 0.5, 0.7, 0.6, 0.8], "amortized": [None] * 5})
    d = distribution(runs)
    assert set(d) == {"efficiency"}  # a score no run has is left out
    got = d["efficiency"]
    expected = {"mean": 0.7, "std": math.sqrt(0.1 / 4), "min": 0.5, "p5": 0.52, "p25": 0.6, "p50": 0.7,
                "p75": 0.8, "p95": 0.88, "max": 0.9}
    assert got.keys() == expected.keys()
    for k, v in expected.items():
        assert got[k] == pytest.approx(v, abs=1e-12), k


# P = 4. Three A jobs (0.75 of the machine: 3 processors, 1000 s) in three
# batches at 0, 600 and 1200 (all alike, so the seed's order does not
# matter); one Z job (the whole machine, 10 s) arrives at 700.
# Stage 1, EASY without priority: 0 A1 runs to 1000; 600 A2 waits (1 free);
#   700 Z queues behind A2; 1000 A2 runs to 2000 (free 1), the head Z's
#   reservation is 2000; 1200 A3 queues; 2000 Z runs to 2010; 2010 A3 to 3010.
#   Waits: Z 1300; A 0, 400, 810 (mean 403.33). T = 3010.
# Stage 2, Z first: 1000 Z runs to 1010; 1010 A2 to 2010; 2010 A3 to 3010.
#   Waits: Z 300; A 0, 410, 810 (mean 406.67). T = 3010.
# Work 3 x 3 x 1000 + 4 x 10 = 9040: efficiency 9040 / 12040 in both.
TWO = pd.DataFrame({"type": ["A", "Z"], "fraction": [0.75, 1.0], "run": [1000.0, 10.0], "count": [3, 1]})


def test_two_stage_by_hand():
    got = two_stage(TWO, 4, seed=0, full_arrivals=[700])
    one, two = got["without_priority"], got["full_first"]
    assert one["waits"]["full"] == {"jobs": 1, "mean": 1300, "max": 1300}
    assert one["waits"]["other"]["jobs"] == 3 and one["waits"]["other"]["max"] == 810
    assert one["waits"]["other"]["mean"] == pytest.approx(1210 / 3)
    assert two["waits"]["full"] == {"jobs": 1, "mean": 300, "max": 300}
    assert two["waits"]["other"]["mean"] == pytest.approx(1220 / 3)
    for stage in (one, two):
        assert stage["score"]["elapsed"] == 3010
        assert stage["score"]["efficiency"] == 9040 / (4 * 3010)
        assert stage["score"]["second_full_end"] is None  # one full job: no 90% rule
    assert got == two_stage(TWO, 4, seed=0, full_arrivals=[700])
