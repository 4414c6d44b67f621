"""A sweep as asked for, made whole before it runs: the settings named
(a command line's options) over a config file's over the defaults, the
grids merged, every cross-setting rule checked, the journal placed and a
resampled sweep's log read. A Python caller and the command line get the
same sweep and the same refusals."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from wla.archive.kernel.errors import ParameterError

from ..settings import SimSettings
from .grid import PARAMETERS, SHAKE_PARAMETERS, parse_grid
from .settings import ShakeSettings

if TYPE_CHECKING:
    from wla.archive.store.file import Archive

    from .resample.study import Resampling

# The simulation's settings a sweep fixes (or sweeps); it checks no schedule
# and counts saturation one way.
FIXED = tuple(n for n in SimSettings.names() if n not in ("check", "backlog"))
WHERE = ("log", "version", "query")  # what is swept over


@dataclass(frozen=True)
class SweepSetup:
    """Everything sweep() and the workload need, typed."""

    log: str | None
    version: str | None
    query: str | None
    grids: list  # (name, values), in the order given: the last varies fastest
    shake: ShakeSettings
    sim: SimSettings


def sweep_setup(grid: Sequence[str] = (), config: str | os.PathLike | None = None, *, absolute: bool = False,
                **given: Any) -> SweepSetup:
    """The sweep of the `grid` texts (NAME=VALUES) and of the settings `given`
    (log, version, query, ShakeSettings' and SimSettings' names): each given
    one wins over the `config` file's (sweep_config.py), which wins over
    the default; the given grids replace the file's of the same name.
    `absolute`: shake by the degree whatever the value (no `relative`)."""
    unknown = sorted(set(given) - set(WHERE) - set(ShakeSettings.names()) - set(FIXED))
    if unknown:
        raise ParameterError("not a setting of a sweep: %s" % ", ".join("{%s}" % n for n in unknown), *unknown)
    from_file: dict[str, Any] = {}
    merged: list[tuple[str, list]] = []
    if config is not None:
        from .sweep_config import read_config

        from_file, merged = read_config(config)
    named: set[str] = set()
    for text in grid:
        name, values = parse_grid(text)
        if name in named:
            raise ParameterError("{grid} %s is given twice; give each parameter's values in one {grid}" % name,
                                 "grid")
        named.add(name)
        merged = [(n, v) for n, v in merged if n != name] + [(name, values)]
    if not merged:
        raise ParameterError("give at least one {grid} NAME=VALUES (or a {config} file with a [grid] table)",
                             "grid", "config")
    values = {**from_file, **given}
    if values.get("log") is None and values.get("query") is None:
        raise ParameterError("give a log to sweep, or {query} SQL", "query")
    swept = {PARAMETERS[n][0] for n, _ in merged} | {n for n, _ in merged}
    for key in (*FIXED, *SHAKE_PARAMETERS):
        if key in swept and key in values:
            raise ParameterError("{%s} is swept by a {grid}; do not also give it" % key, key, "grid")
    absolute = bool(values.pop("absolute", absolute))
    shake = ShakeSettings().edit(**{k: v for k, v in values.items() if k in ShakeSettings.names()})
    if absolute:
        shake = shake.edit(relative=None)
    sim = SimSettings().edit(**{k: v for k, v in values.items() if k in FIXED})
    return SweepSetup(values.get("log"), values.get("version"), values.get("query"), merged, shake, sim)


def resampling_for(archive: Archive, setup: SweepSetup, resample: bool = False, weeks: int | None = None,
                   phase: str = "activity", rb: Sequence[str] = (),
                   rb_from_flurries: bool = False) -> Resampling | None:
    """The log read once for a resampled sweep (None: runs are shaken)."""
    if not resample:
        if weeks is not None or rb or rb_from_flurries:
            raise ParameterError("{weeks}, {rb} and {rb_from_flurries} shape resampled workloads: give {resample}",
                                 "weeks", "rb", "rb_from_flurries", "resample")
        return None
    from wla.archive.resolve import resolve

    from .resample.settings import ResampleSettings
    from .resample.study import Resampling
    from .resample.triples import log_triples
    from .resample.workload import read_source

    if setup.log is None or setup.sim.exclude is not None:
        raise ParameterError("{resample} resamples a log (LOG or LOG@VERSION), not a {query}, and takes no "
                             "{exclude}", "resample", "query", "exclude")
    name = resolve(archive, setup.log, setup.version).name
    src = read_source(archive, name, None, log_triples(archive, name, rb), rb_from_flurries)
    return Resampling(src, ResampleSettings(weeks=weeks, phase=phase))


def journal_for(archive_path: str | os.PathLike, save: str | None, resume: bool = False) -> Path | None:
    """Where a sweep saved as `save` records its runs as they finish: beside
    the Parquet file, or beside the archive for a table (None: not saved)."""
    if save is None:
        if resume:
            raise ParameterError("{resume} finishes the sweep that {save} names: give {save} too", "resume", "save")
        return None
    if save.endswith(".parquet"):
        return Path(save + ".journal")
    archive_path = Path(archive_path)
    return archive_path.with_name(f"{archive_path.name}.{save}.sweep-journal")
