"""A sweep written down: a TOML file holding the command line's options by
their names (`log`, `runs`, `seed`, `policy`, `attribute`, ...) and a
`[grid]` table, each entry a parameter and its values as `--grid` writes
them ("0.5:0.95:0.01", "last:1..30") or as a TOML list. Options given on
the command line win over the file's."""
from __future__ import annotations

import os
import tomllib
from typing import Any

from wla.archive.errors import UsageError

from .grid import parse_grid

KEYS = {"log", "version", "query", "policy", "estimate", "overrun", "procs", "tau", "warmup",
        "stop_at_last_arrival", "exclude", "load_factor", "ties", "passes", "attribute", "degree", "relative",
        "absolute", "jobs", "runs", "seed"}


def read_config(path: str | os.PathLike) -> tuple[dict[str, Any], list[tuple[str, list]]]:
    """The file's options and its grids, in the order written."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{path}: not TOML: {e}") from None
    grid = data.pop("grid", {})
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise UsageError(f"{path}: unknown keys {', '.join(unknown)}; known: {', '.join(sorted(KEYS))}, [grid]")
    if not isinstance(grid, dict):
        raise UsageError(f"{path}: [grid] is a table of parameter = values")
    grids = []
    for name, values in grid.items():
        text = ",".join(str(v) for v in values) if isinstance(values, list) else str(values)
        grids.append(parse_grid(f"{name}={text}"))
    return data, grids
