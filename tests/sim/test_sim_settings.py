"""sim/settings.py: SimSettings is what simulate() takes, carries and
writes out; its ranges are the simulator's."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from wla.archive.kernel.errors import OptionError, UsageError
from wla.sim import simulate
from wla.sim.settings import LOAD_FACTORS, TAU, WARMUP, SimSettings

# Four jobs on 4 processors, worked by hand under FCFS: job 2 (3 procs)
# waits for job 1 (2 procs, runs 0..10); job 3 (1 proc) waits behind it.
JOBS = pd.DataFrame({"job": [1, 2, 3, 4], "submit": [0, 1, 2, 3], "run": [10, 5, 5, 1], "procs": [2, 3, 1, 1],
                     "req_time": [10, 5, 5, 1], "user_id": [1, 2, 3, 4]})


def test_the_defaults_are_simulation_md_s():
    s = SimSettings()
    assert (s.policy, s.estimate, s.overrun, s.procs) == ("easy", "user", "truncate", None)
    assert (s.tau, s.warmup) == (TAU, WARMUP)
    assert (TAU, WARMUP) == (10.0, 0.01)
    assert (s.stop_at_last_arrival, s.load_factor, s.seed, s.ties, s.passes, s.check, s.backlog) == \
        (True, 1.0, 0, "log", "instant", False, "waiting")


@pytest.mark.parametrize("changes, message", [
    (dict(tau=0), "tau must be"), (dict(warmup=1.0), "warmup must be"),
    (dict(load_factor=LOAD_FACTORS[1] * 10), "load_factor must be"), (dict(procs=0), "procs must be"),
    (dict(seed=-1), "seed must be"),
])
def test_a_number_out_of_range_names_its_setting(changes, message):
    with pytest.raises(OptionError, match=f"^{message}"):
        SimSettings(**changes).checked()


def test_a_choice_or_an_estimate_the_simulator_lacks_is_refused():
    with pytest.raises(UsageError, match="^unknown policy 'sjf'; one of fcfs, easy, conservative$"):
        SimSettings(policy="sjf").checked()
    with pytest.raises(UsageError, match="^unknown estimate 'oracle'"):
        SimSettings(estimate="oracle").checked()


def test_simulate_takes_settings_or_keywords_alike_and_carries_them():
    fcfs = SimSettings(policy="fcfs", warmup=0, stop_at_last_arrival=False)
    by_settings = simulate(JOBS, fcfs, procs=4)
    by_keywords = simulate(JOBS, policy="fcfs", warmup=0, stop_at_last_arrival=False, procs=4)
    # By hand: job 1 at 0; job 2 at 10 (needs 3 of 4); job 3 (FCFS, behind job 2) at 10; job 4 at 15.
    assert list(by_settings.start) == [0, 10, 10, 15] == list(by_keywords.start)
    assert by_settings.sim_settings == fcfs.edit(procs=4)
    assert by_settings.settings == by_keywords.settings
    assert by_settings.settings["policy"] == "fcfs" and by_settings.settings["checked"] is False
    assert "check" not in by_settings.settings  # written out as `checked`, after what it implied
    # EASY backfills job 4 (1 proc, 1 s) beside job 1: it starts at 3.
    assert simulate(JOBS, fcfs.edit(policy="easy"), procs=4).start[3] == 3
    assert np.isfinite(by_settings.metrics["wait"]["mean"])


def test_choices_and_estimates_in_any_case_are_the_simulator_s_own():
    shouted = simulate(JOBS, policy="FCFS", estimate="USER", ties="Log", passes="INSTANT", procs=4)
    assert shouted.settings["policy"] == "fcfs" and shouted.settings["estimate"] == "user"
    assert list(shouted.start) == list(simulate(JOBS, policy="fcfs", procs=4).start)
