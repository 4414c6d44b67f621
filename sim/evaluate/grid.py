"""The points of a sweep: grids over simulation parameters, each written
NAME=VALUES, several multiplied in the order given (the last varies
fastest).

VALUES is a range `A:B:STEP` (B included when the steps reach it; each
value rounded to the step's decimals, so 0.5:0.95:0.01 gives 0.5, 0.51, ...,
0.95 exactly as written), a list `V1,V2,...`, or for estimates `last:A..B`
or `badness:A:B:STEP`. Parameters: load (the load factor: interarrival times
divided by it; in a resampled sweep the resampling's load factor),
estimate, badness (the factor F of badness:F), policy, procs, runtime_scale
and size_scale (run times and sizes multiplied: sim/scaling.py), overrun,
rb_npw (resampled sweeps: rare-behavior users per week), and the shaking's
own settings degree, jobs (the percent of jobs shaken) and attribute, which
set how each point's runs are shaken rather than how they are simulated.
"""
from __future__ import annotations

import itertools
from decimal import Decimal, InvalidOperation, Overflow, localcontext
from typing import Any, get_args

from wla.archive.kernel.errors import OptionError, ParameterError, UsageError
from wla.archive.kernel.ranges import number
from wla.archive.kernel.settings import canonical, spec

from ..predictors import MAX_BADNESS, parse_estimator
from ..settings import SimSettings
from .resample.settings import ResampleSettings
from .settings import ATTRIBUTES


def _setting(name: str, cls: type = SimSettings) -> tuple[type, Any]:
    """A setting's kind and range check, as its settings class declares them."""
    field, kind = cls.described_one(name)
    kind = next((k for k in get_args(kind) if k is not type(None)), kind)  # int | None: int
    return kind, spec(field).check


# grid name: (the setting it edits, kind of value, range check); a value is
# checked as the setting is, refused before any run.
_BADNESS = (float, lambda n, v: number(n, v, 0, MAX_BADNESS))  # the F of estimate badness:F


def _attribute(name: str, value: str) -> str:
    """The attribute a value names, in any case (RUNTIME is runtime)."""
    found = canonical(value, ATTRIBUTES)
    if found is None:
        raise OptionError(name, f"is one of {', '.join(ATTRIBUTES)}, not {value!r}")
    return found


# The shaking's settings as perturb.py bounds them: a degree of seconds (or
# processors) >= 0, a percent of jobs from 0 to 100.
_DEGREE = (float, lambda n, v: number(n, v, 0))
_JOBS = (float, lambda n, v: number(n, v, 0, 100))
GRID = {
    "load": ("load_factor", *_setting("load_factor")),
    "estimate": ("estimate", str, None),  # parse_estimator checks each
    "badness": ("estimate", *_BADNESS),
    "policy": ("policy", str, None),  # a choice, checked with every point's settings
    "procs": ("procs", *_setting("procs")),
    "runtime_scale": ("runtime_scale", *_setting("runtime_scale")),  # run and requested times multiplied
    "size_scale": ("size_scale", *_setting("size_scale")),  # sizes multiplied, rounded, held in [1, P]
    "overrun": ("overrun", str, None),
    "rb_npw": ("rb_npw", *_setting("rb_npw", ResampleSettings)),  # resampled sweeps only: RB_NPW
    "degree": ("degree", *_DEGREE),  # these three shake each point's runs (ShakeSettings)
    "jobs": ("jobs", *_JOBS),
    "attribute": ("attribute", str, _attribute),
}
PARAMETERS = {name: (setting, kind) for name, (setting, kind, _) in GRID.items()}
# In a resampled sweep these set each run's workload, not simulate(): load is
# the resampling's load factor (more or fewer users), rb_npw its RB_NPW.
RESAMPLE_PARAMETERS = ("load", "rb_npw")
# These set the shaking of a point's runs, not simulate(): shaken sweeps only.
SHAKE_PARAMETERS = ("degree", "jobs", "attribute")
MAX_POINTS = 1_000_000


def is_settings_sweep(names: list[str] | tuple[str, ...]) -> bool:
    """Whether a sweep's grids are the shaking's settings, degree and jobs
    among them (the shaking paper's Figs. 6 to 9): its --plot draws maps of
    span, distance and concentration, not curves against the first grid."""
    return set(names) <= set(SHAKE_PARAMETERS) and {"degree", "jobs"} <= set(names)
# Digits a grid's number may have after the point: more than any parameter
# needs, few enough that no range spins on its count or its rounding.
MAX_DIGITS = 20


def _decimal(text: str, grid: str) -> Decimal:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise OptionError("grid", f"{grid}: {text!r} is not a number") from None
    if not value.is_finite():
        raise OptionError("grid", f"{grid}: {text!r} is not a number")
    if -value.as_tuple().exponent > MAX_DIGITS:
        raise OptionError("grid", f"{grid}: {text.strip()!r} has more than {MAX_DIGITS} digits after the point")
    return value


def _range(a: str, b: str, step: str, grid: str) -> list[Decimal]:
    lo, hi, by = _decimal(a, grid), _decimal(b, grid), _decimal(step, grid)
    if by <= 0 or hi < lo:
        raise OptionError("grid", f"{grid}: a range is FROM:TO:STEP with FROM <= TO and STEP > 0")
    with localcontext() as ctx:
        ctx.prec = 4 * MAX_DIGITS  # every value of the range exactly, whatever its digits
        ctx.traps[Overflow] = False  # a range past Decimal's largest exponent has too many steps
        steps = (hi - lo) / by
        if steps >= MAX_POINTS:
            raise OptionError("grid", f"{grid}: {int(steps) + 1:,} values; at most {MAX_POINTS:,}"
                              if steps < 10**12 else f"{grid}: more than 10^12 values; at most {MAX_POINTS:,}")
        count = int(steps) + 1
        places = max(-lo.as_tuple().exponent, -by.as_tuple().exponent, 0)
        return [(lo + i * by).quantize(Decimal(1).scaleb(-places)) for i in range(count)]


def _number(value: Decimal, kind: type) -> Any:
    if kind is int:
        if value != value.to_integral_value():
            raise UsageError(f"{value} is not a whole number")
        return int(value)
    return float(value)


def _checked(name: str, values: list[Any]) -> list[Any]:
    """Every value in the range of the option it sets."""
    check = GRID[name][2]
    if check is None:
        return values
    out = []
    for v in values:
        try:
            kept = check(name, v)
        except OptionError as e:
            raise OptionError("grid", f"{name}: {e.problem}") from None
        out.append(v if kept is None else kept)
    return out


def parse_grid(text: str) -> tuple[str, list[Any]]:
    """`NAME=VALUES` as (name, values)."""
    name, eq, values = text.partition("=")
    name = name.strip()
    if not eq or not values.strip():
        raise OptionError("grid", f"is NAME=VALUES, as in load=0.5:0.95:0.01, not {text!r}")
    if name not in PARAMETERS:
        raise OptionError("grid", f"{name}: not a parameter; one of {', '.join(PARAMETERS)}")
    _, kind = PARAMETERS[name]
    values = values.strip()
    if name == "estimate":
        out: list[Any] = []
        for part in values.split(","):
            kind_, _, arg = part.strip().partition(":")
            if kind_ == "last" and ".." in arg:
                a, _, b = arg.partition("..")
                ks = _range(a, b, "1", text)
                out += [f"last:{int(k)}" for k in ks]
            elif kind_ == "badness" and arg.count(":") == 2:
                out += [f"badness:{v}" for v in _range(*arg.split(":"), text)]
            else:
                out.append(part.strip())
        for v in out:
            parse_estimator(v)  # refused here, before any run
        return name, out
    if kind is str:
        return name, _checked(name, [v.strip() for v in values.split(",")])
    parts = values.split(":")
    if len(parts) == 3:
        numbers = _range(*parts, text)
    elif len(parts) == 1:
        numbers = [_decimal(v, text) for v in values.split(",")]
    else:
        raise OptionError("grid", f"{text!r}: a range is FROM:TO:STEP, a list V1,V2,...")
    try:
        return name, _checked(name, [_number(v, kind) for v in numbers])
    except OptionError:
        raise
    except UsageError as e:  # a value that is not a whole number
        raise OptionError("grid", f"{name}: {e}") from None


def points(grids: list[tuple[str, list[Any]]]) -> list[dict[str, Any]]:
    """Every combination, as {grid name: value}; the last grid varies fastest."""
    names = [n for n, _ in grids]
    if len(set(names)) != len(names):
        raise ParameterError("each parameter takes one {grid}", "grid")
    if "estimate" in names and "badness" in names:
        raise ParameterError("{grid} badness sets the estimate: give it or {grid} estimate, not both", "grid")
    total = 1
    for _, values in grids:
        total *= len(values)
    if total > MAX_POINTS:
        raise UsageError(f"the grids give {total:,} points; at most {MAX_POINTS:,}")
    return [dict(zip(names, combo)) for combo in itertools.product(*(v for _, v in grids))]


def options_at(point: dict[str, Any], resampled: bool = False) -> dict[str, Any]:
    """simulate()'s keyword arguments a point sets (procs aside: it shapes the
    workload; so do load and rb_npw in a resampled sweep, and the shaking's
    settings)."""
    out: dict[str, Any] = {}
    for name, value in point.items():
        keyword, _ = PARAMETERS[name]
        if name == "procs" or name in SHAKE_PARAMETERS or (resampled and name in RESAMPLE_PARAMETERS):
            continue
        if name == "rb_npw":
            raise ParameterError("{grid} rb_npw sets resampled workloads: give {resample}", "grid", "resample")
        out[keyword] = f"badness:{value:g}" if name == "badness" else value
    return out
