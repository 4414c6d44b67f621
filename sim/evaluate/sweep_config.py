"""A sweep written down: a TOML file holding the command line's options by
their names (`log`, `runs`, `seed`, `policy`, `attribute`, ...) and a
`[grid]` table, each entry a parameter and its values as `--grid` writes
them ("0.5:0.95:0.01", "last:1..30") or as a TOML list. Options given on
the command line win over the file's.

It is read as a recipe is (a regular UTF-8 file, TOML errors with their
line and column, nesting bounded), and each value must have its option's
type: `runs = "many"`, `runs = 1.5` or `runs = true` is refused, naming the
key; the ranges are then checked where the options are."""
from __future__ import annotations

import json
import os
from typing import Any

from wla.archive.clean.textfile import parse_toml, read_text
from wla.archive.kernel.errors import ParameterError, UsageError, visible

from .grid import parse_grid

# Each key and the TOML types it takes (a whole number is a number too).
TEXT, WHOLE, NUMBER, FLAG = "text", "a whole number", "a number", "true or false"
KEYS = {
    "log": TEXT, "version": TEXT, "query": TEXT, "policy": TEXT, "estimate": TEXT, "overrun": TEXT,
    "exclude": TEXT, "ties": TEXT, "passes": TEXT, "attribute": TEXT,
    "procs": WHOLE, "runs": WHOLE, "seed": WHOLE,
    "tau": NUMBER, "warmup": NUMBER, "load_factor": NUMBER,
    "runtime_scale": NUMBER, "size_scale": NUMBER, "degree": NUMBER, "relative": NUMBER, "jobs": NUMBER,
    "stop_at_last_arrival": FLAG, "absolute": FLAG,
}


def _typed(value: object, kind: str) -> bool:
    if kind == TEXT:
        return isinstance(value, str)
    if kind == FLAG:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    return isinstance(value, int) if kind == WHOLE else isinstance(value, (int, float))


def _grid_text(name: str, values: object, shown: str) -> str:
    if isinstance(values, list) and values and all(
            isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in values):
        return ",".join(str(v) for v in values)
    if isinstance(values, str):
        return values
    raise ParameterError(f"{shown}: grid {name} is a text as {{grid}} writes it or a list of values, "
                         f"not {type(values).__name__}", "grid")


def read_config(path: str | os.PathLike) -> tuple[dict[str, Any], list[tuple[str, list]]]:
    """The file's options and its grids, in the order written."""
    shown = visible(os.fspath(path))
    data = parse_toml(read_text(path, "sweep config", UsageError), shown, UsageError)
    grid = data.pop("grid", {})
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise UsageError(f"{shown}: unknown keys {', '.join(unknown)}; known: {', '.join(sorted(KEYS))}, [grid]")
    for key, value in data.items():
        if not _typed(value, KEYS[key]):
            raise UsageError(f"{shown}: {key} is {KEYS[key]}, not {json.dumps(value, default=str)}")
    if not isinstance(grid, dict):
        raise UsageError(f"{shown}: [grid] is a table of parameter = values")
    grids = [parse_grid(f"{name}={_grid_text(name, values, shown)}") for name, values in grid.items()]
    return data, grids
