"""sim/evaluate/settings.py and resample/settings.py: the studies' settings,
and how a study's keywords reach the settings they name."""
from __future__ import annotations

import pytest
from wla.archive.kernel.errors import OptionError, ParameterError, UsageError
from wla.sim.evaluate.resample.settings import ResampleSettings
from wla.sim.evaluate.settings import ATTRIBUTES, ShakeSettings, split
from wla.sim.settings import SimSettings


def test_the_shaking_paper_s_defaults():
    s = ShakeSettings()
    assert (s.attribute, s.degree, s.relative, s.jobs, s.runs, s.seed) == ("interarrival", 60.0, 10.0, 100.0, 100, 0)
    assert ATTRIBUTES == ("interarrival", "runtime", "estimate", "size")


def test_keywords_go_to_the_settings_they_name_and_the_seed_is_the_study_s():
    shake, sim = split(None, None, {"runs": 5, "seed": 3, "policy": "fcfs", "degree": 1.0})
    assert (shake.runs, shake.seed, shake.degree) == (5, 3, 1.0)
    assert (sim.policy, sim.seed) == ("fcfs", 3)
    with pytest.raises(UsageError, match="seed once"):
        split(None, SimSettings(seed=9), {"seed": 3})
    with pytest.raises(UsageError, match="^not a setting of SimSettings: speed"):
        split(None, None, {"speed": 2})


def test_a_shaking_perturb_would_refuse_is_refused_before_any_run():
    with pytest.raises(UsageError, match="attribute"):
        ShakeSettings(attribute="colour").shaking()
    assert ShakeSettings(relative=None).shaking().relative is None  # absolute shaking


def test_resampling_settings_name_the_setting_that_is_wrong():
    assert ResampleSettings(weeks=4.0).checked().weeks == 4
    with pytest.raises(ParameterError) as e:
        ResampleSettings(phase="never").checked()
    assert str(e.value) == "phase is one of activity, cycle, not 'never'"
    assert e.value.spelled(lambda n: "--" + n) == "--phase is one of activity, cycle, not 'never'"
    with pytest.raises(OptionError, match="^long_term must be a whole number from 0"):
        ResampleSettings(long_term=-1).checked()


def test_an_attribute_or_a_phase_in_any_case():
    assert ShakeSettings(attribute="RunTime").shaking().attribute == "runtime"
    assert ResampleSettings(phase="CYCLE").checked().phase == "cycle"
