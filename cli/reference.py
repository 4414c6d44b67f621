"""The settings' reference page, from the settings classes themselves: each
setting's option, default, range and help, so that the documentation's
table (docs/pages/reference/options.md) cannot drift from what the commands
accept. A range is read from the setting's own check, by what it says of a
value it refuses."""
from __future__ import annotations

import math
from typing import Any

from wla.archive.kernel.errors import OptionError
from wla.archive.kernel.settings import spec

# The classes and the commands that offer their settings.
CLASSES = (
    ("wla.sim.settings:SimSettings", "simulate, esp, shake, sweep, compare, validate"),
    ("wla.sim.evaluate.settings:ShakeSettings", "shake, sweep, compare"),
    ("wla.sim.evaluate.resample.settings:ResampleSettings", "resample, validate, sweep --resample, compare --resample"),
)
BEGIN = "<!-- settings: made by wla.cli.reference, held equal by tests/cli/test_reference.py -->"
END = "<!-- settings end -->"


def _class(path: str) -> type:
    import importlib

    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def accepted(s: Any, name: str) -> str:
    """What a setting accepts: its choices, or the range its check names when
    it refuses a value out of every range (NaN)."""
    if s.choices:
        return ", ".join(s.choices)
    if s.check is None:
        return ""
    try:
        s.check(name, math.nan)
    except OptionError as e:
        return e.problem.removeprefix("must be ").rsplit(", not ", 1)[0]
    except Exception:  # a check of its own kind (an estimate's grammar): its help says it
        return ""
    return ""


def _flag(f: Any) -> str:
    s = spec(f)
    return " ".join(s.flags) if s.flags else "--" + f.name.replace("_", "-")


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|")


def settings_markdown() -> str:
    """The tables, one per settings class, between the page's markers."""
    out = [BEGIN, ""]
    for path, commands in CLASSES:
        cls = _class(path)
        out += [f"### {cls.__name__} ({commands})", "", "| option | default | accepts | meaning |", "|---|---|---|---|"]
        for f, _kind in cls.described():
            s = spec(f)
            default = "(none)" if f.default is None else f"`{f.default}`"
            out.append(f"| `{_cell(_flag(f))}` | {_cell(default)} | {_cell(accepted(s, f.name))} | {_cell(s.help)} |")
        out.append("")
    out.append(END)
    return "\n".join(out)
