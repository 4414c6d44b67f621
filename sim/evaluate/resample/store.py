"""A resampled workload as an SWF file whose header says how it was made,
stored in the archive as a derived log (kind 'resampled') with a row per
job in `resampled_jobs`: its source job, user and replica, and the
rare-behavior flag."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Sequence

import numpy as np
import pandas as pd
from wla.archive.swf.fields import FIELDS

from .pools import Triple
from .settings import ResampleSettings
from .workload import Resampled, SourceLog, method, read_source, resample_source

if TYPE_CHECKING:
    from wla.archive.store.file import Archive

# Facts of the source header a resampled log keeps: the machine and its clock.
KEPT = (("computer", "Computer"), ("installation", "Installation"), ("unix_start_time", "UnixStartTime"),
        ("time_zone_string", "TimeZoneString"), ("max_nodes", "MaxNodes"), ("max_procs", "MaxProcs"),
        ("max_queues", "MaxQueues"), ("max_partitions", "MaxPartitions"))


def _column(values: np.ndarray, integer: bool) -> list[str]:
    if integer:
        return [str(v) for v in values.astype(np.int64).tolist()]
    return [str(int(v)) if v.is_integer() else repr(v) for v in values.astype(np.float64).tolist()]


def _what(settings: dict) -> str:
    return {"session": "single sessions", "job": "single jobs"}.get(settings.get("unit", "user"), "users' jobs")


def notes(r: Resampled) -> list[str]:
    import wla

    s, f = r.parameters["settings"], r.parameters["figures"]
    lines = [f"A resampled workload of {r.source}, made by wla {wla.__version__} by {method(s)}: "
             f"{_what(s)} recombined, shifted by whole weeks.",
             "Settings: " + ", ".join(f"{k}={'log' if v is None else v}" for k, v in s.items()) + ".",
             "Used: " + ", ".join(f"{k}={round(v, 6) if isinstance(v, float) else v}" for k, v in f.items()) + ".",
             "User numbers are user instances (source user, replica); the archive's table resampled_jobs "
             "maps each job to its source job and user.",
             f"Rare-behavior jobs: {int(r.rare.sum())} (not measured by simulations)."]
    favor = r.parameters.get("favor")
    if favor:
        lines.append(f"Favored: users in the top {favor['top']:g} by {favor['figure']} ({favor['users']} users), "
                     f"each {favor['weight']:g} times as likely to be drawn; their jobs: {favor['jobs']}.")
    mix = r.parameters.get("mix")
    if mix:
        lines.append(f"Users of {len(mix['logs'])} logs mixed on {mix['machine_size']} processors: "
                     + "; ".join(f"{m['log']} (users + {m['user_offset']}, submits + {m['shift_seconds']:g} s)"
                                 for m in mix["logs"]) + ".")
    for t in r.parameters["rare_behavior"]:
        lines.append(f"Rare-behavior triple: user {t['user']}, submit {t['begin']:g} to {t['end']:g}.")
    return lines


def swf_text(r: Resampled, facts: dict) -> bytes:
    header = ["; Version: 2.2"]
    header += [f"; {label}: {facts[key]}" for key, label in KEPT if facts.get(key) is not None]
    if facts.get("max_procs") is None and facts.get("machine_size") is not None:  # set by hand
        header.append(f"; MaxProcs: {facts['machine_size']}")
    header += [f"; MaxJobs: {len(r)}", f"; MaxRecords: {len(r)}"]
    header += [f"; Note: {n}" for n in notes(r)]
    columns = [_column(r.jobs[f.column].to_numpy(), f.integer) for f in FIELDS]
    body = [" ".join(values) for values in zip(*columns)]
    return ("\n".join(header + body) + "\n").encode()


def store_resampled(archive: Archive, r: Resampled, name: str) -> int:
    """Store the workload as log `name`; its jobs' origins in resampled_jobs."""
    from wla.archive.store.catalog import log_facts
    from wla.archive.store.derived import store_derived

    facts = log_facts(archive, r.source)
    if "mix" in r.parameters:  # the machine asked for, not the first log's
        facts = {**facts, "max_procs": r.P, "max_nodes": None, "machine_size": r.P}
    rows = pd.DataFrame({"job": r.jobs["job"].to_numpy(np.int64), "source_line": r.source_line.astype(np.int32),
                         "source_job": r.source_job, "source_user": r.source_user,
                         "replica": r.replica.astype(np.int32), "rare": r.rare})
    parameters = json.loads(json.dumps(r.parameters))
    return store_derived(archive, name, swf_text(r, facts), kind="resampled", method=method(r.parameters["settings"]),
                         source_log_id=archive.log_id(r.source), parameters=parameters,
                         per_job=("resampled_jobs", rows))


def resample_log(archive: Archive, log: str, version: str | None = None, *, name: str | None = None,
                 settings: ResampleSettings = ResampleSettings(), rb: list[Triple] | tuple = (),
                 rb_from_flurries: bool = False, long_term_weeks: float = 12.0,
                 edge_weeks: float = 4.0, mix: Sequence[str] = (), procs: int | None = None) -> tuple[str, Resampled]:
    """Resample a log and store the workload as log `name` (default
    LOG-rSEED); returns the name and the workload. `mix` names more logs
    whose users join the log's (mix.py), on a machine of `procs` processors."""
    from wla.archive.resolve import resolve
    from wla.archive.store.derived import free_name

    base = resolve(archive, log, version).name.replace('@', '-') + ("-mix" if mix else "")
    name = free_name(archive, name or f"{base}-r{settings.seed}")
    src = mixed_source(archive, log, version, rb, rb_from_flurries, long_term_weeks, edge_weeks, mix, procs)
    r = resample_source(src, settings)
    store_resampled(archive, r, name)
    return name, r


def mixed_source(archive: Archive, log: str, version: str | None, rb: list[Triple] | tuple = (),
                 rb_from_flurries: bool = False, long_term_weeks: float = 12.0, edge_weeks: float = 4.0,
                 mix: Sequence[str] = (), procs: int | None = None) -> SourceLog:
    """The log read once, or with `mix` the users of it and of every log
    named (each LOG or LOG@VERSION) on `procs` processors."""
    from wla.archive.kernel.errors import ParameterError

    src = read_source(archive, log, version, rb, rb_from_flurries, long_term_weeks, edge_weeks)
    if not mix:
        if procs is not None:
            raise ParameterError("{procs} sets the machine of a mix: give {mix} LOG too", "procs", "mix")
        return src
    if procs is None:
        raise ParameterError("{mix} puts users of several logs on one machine: give its size, {procs} N",
                             "mix", "procs")
    from .mix import mix_sources

    others = [read_source(archive, m, None, (), rb_from_flurries, long_term_weeks, edge_weeks) for m in mix]
    return mix_sources([src, *others], procs)
