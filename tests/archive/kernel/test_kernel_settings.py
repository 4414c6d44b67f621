"""archive/kernel/settings.py: a settings class declares each setting once;
edits are typed, checks name the setting, unknown names are refused."""
from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass

import pytest
from wla.archive.kernel.errors import OptionError, UsageError
from wla.archive.kernel.ranges import whole
from wla.archive.kernel.settings import Settings, setting, spec


@dataclass(frozen=True)
class Made(Settings):
    size: int = setting(4, "How many", check=lambda n, v: whole(n, v, 1, 10))
    mode: str = setting("fast", "fast or slow", choices=("fast", "slow"), what="mode of running")
    label: str | None = setting(None, "A name", flags=("--label", "-l"), metavar="NAME")


def test_declared_once_read_back():
    assert Made.names() == ("size", "mode", "label")
    assert Made.default("size") == 4 and Made.default("label") is None
    described = {f.name: (kind, spec(f)) for f, kind in Made.described()}
    assert described["size"][0] is int
    assert described["label"][1].flags == ("--label", "-l") and described["label"][1].metavar == "NAME"
    assert described["mode"][1].help == "fast or slow"


def test_edits_are_new_settings_and_unknown_names_are_refused():
    made = Made()
    edited = made.edit(size=7, label="x")
    assert (edited.size, edited.mode, edited.label) == (7, "fast", "x")
    assert made.size == 4  # frozen: the original is unchanged
    with pytest.raises(FrozenInstanceError):
        made.size = 5  # type: ignore[misc]
    with pytest.raises(UsageError, match="^not a setting of Made: colour, speed; one of size, mode, label$"):
        made.edit(speed=1, colour="red")
    assert made.as_dict() == {"size": 4, "mode": "fast", "label": None}


def test_checks_name_the_setting_and_keep_values_as_kept():
    assert Made(size=4.0).checked().size == 4 and type(Made(size=4.0).checked().size) is int
    with pytest.raises(OptionError) as e:
        Made(size=11).checked()
    assert e.value.name == "size" and str(e.value) == "size must be a whole number from 1 to 10, not 11"
    with pytest.raises(UsageError, match="^unknown mode of running 'slowest'; one of fast, slow$"):
        Made(mode="slowest").checked()
    assert Made(label=None).checked() == Made()  # None is not checked: it means "not given"


def test_a_choice_is_named_in_any_case_and_kept_as_declared():
    assert Made(mode="SLOW").checked().mode == "slow" and Made(mode=" Fast ").checked().mode == "fast"
    with pytest.raises(UsageError, match="^unknown mode of running 'SLOWER'"):
        Made(mode="SLOWER").checked()
