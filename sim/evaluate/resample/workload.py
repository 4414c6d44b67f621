"""A resampled workload of a log in the archive: its jobs with every field,
where each came from, and the parameters that made it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from wla.archive.kernel.clock import LogClock
from wla.archive.kernel.errors import UsageError
from wla.archive.kernel.names import for_shell

from ...workload import Workload, from_frame
from .generate import assemble, plan
from .pools import Triple, UserPools, user_pools
from .settings import ResampleSettings

if TYPE_CHECKING:
    import pandas as pd
    from wla.archive.store.file import Archive

METHOD = "user-level resampling (definitions: Resampling)"
UNIT_METHODS = {"session": "session-level resampling (reproductions: Baselines)",
                "job": "job-level resampling (reproductions: Baselines)"}


def method(settings: dict) -> str:
    """How a workload was made, by its settings' unit."""
    return UNIT_METHODS.get(settings.get("unit", "user"), METHOD)


@dataclass(frozen=True)
class SourceLog:
    """A log read once, resampled many times (a validation's 1000 runs)."""

    name: str
    jobs: pd.DataFrame  # log_query's rows: line_no and the 18 fields
    P: int | None
    clock: LogClock
    pools: UserPools
    facts: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Resampled:
    jobs: pd.DataFrame  # the 18 fields, renumbered in submit order
    source_line: np.ndarray
    source_job: np.ndarray
    source_user: np.ndarray
    replica: np.ndarray
    rare: np.ndarray
    P: int | None
    clock: LogClock
    parameters: dict  # every parameter, the figures used, the seed
    source: str

    def __len__(self) -> int:
        return len(self.jobs)

    def workload(self) -> Workload:
        """For the simulator; rare-behavior jobs are simulated but not measured."""
        frame = self.jobs.assign(excluded=self.rare)
        return from_frame(frame, self.P, clock=self.clock,
                          source={"resampled_from": self.source, "seed": self.parameters["settings"]["seed"]})


def read_source(archive: Archive, log: str, version: str | None = None, triples: list[Triple] | tuple = (),
                rb_from_flurries: bool = False, long_term_weeks: float = 12.0,
                edge_weeks: float = 4.0) -> SourceLog:
    """A log or version, its jobs and its user pools."""
    from wla.archive.resolve import resolve
    from wla.archive.store.catalog import log_facts
    from wla.archive.store.select import log_query

    from .triples import flurry_triples

    name = resolve(archive, log, version).name
    facts = log_facts(archive, name)
    jobs = archive.df(log_query(archive, name))
    clock = LogClock(facts.get("unix_start_time"), facts.get("tz"))
    triples = list(triples) + (flurry_triples(jobs, clock) if rb_from_flurries else [])
    pools = user_pools(jobs["submit"].to_numpy(np.float64), jobs["user_id"].to_numpy(np.int64), triples,
                       long_term_weeks, edge_weeks)
    size = facts.get("machine_size")
    return SourceLog(name, jobs, None if size is None else int(size), clock, pools, facts)


def resample_source(src: SourceLog, settings: ResampleSettings) -> Resampled:
    from .favor import user_weights

    settings = settings.checked()
    submit = src.jobs["submit"].to_numpy(np.float64)
    weights, favor = user_weights(src.pools, src.jobs, settings)
    if settings.unit == "user":
        p = plan(src.pools, submit, settings, weights)
    else:
        from wla.archive.analysis.stats.users import job_ends

        from .units import unit_plan

        end = job_ends(submit, src.jobs["wait"].to_numpy(np.float64, na_value=np.nan),
                       src.jobs["run"].to_numpy(np.float64, na_value=np.nan))
        p = unit_plan(src.pools, submit, end, settings, weights)
    jobs = assemble(src.jobs, p)
    parameters = {"settings": settings.checked().as_dict(), "figures": p.figures,
                  "pools": {"long_term_weeks": src.pools.long_term_weeks, "edge_weeks": src.pools.edge_weeks},
                  "rare_behavior": [{"user": t.user, "begin": t.begin, "end": t.end} for t in src.pools.triples]}
    if favor:  # the class, and how much of the workload it holds
        users = np.asarray(favor["favored_users"], np.int64)
        drawn = np.isin(p.instance_user[p.instance], users)
        parameters["favor"] = {**favor, "jobs": int(drawn.sum()),
                               "instances": int(np.isin(p.instance_user[np.unique(p.instance)], users).sum())}
    mix = src.facts.get("mix")
    if mix:  # several logs (mix.py): which users came from which, how their clocks were set
        parameters["mix"] = {"logs": mix, "machine_size": src.P, "weekday_kept": src.facts.get("weekday_kept")}
    return Resampled(
        jobs=jobs, source_line=src.jobs["line_no"].to_numpy(np.int64)[p.source],
        source_job=src.jobs["job"].to_numpy(np.int64)[p.source],
        source_user=p.instance_user[p.instance], replica=p.instance_replica[p.instance],
        rare=p.instance_rare[p.instance], P=src.P, clock=src.clock, parameters=parameters,
        source=mix[0]["log"] if mix else src.name)


def resample(archive: Archive, log: str, version: str | None = None, *, weeks: int | None = None,
             load: float = 1.0, long_term: int | None = None, temporary: float | None = None,
             arrival_rate: float | None = None, rb_npw: float = 0.0, seed: int = 0, phase: str = "activity",
             rb: list[Triple] | tuple = (), rb_from_flurries: bool = False) -> Workload:
    """One resampled workload of a log, ready to simulate (docs/pages/definitions/resampling.md);
    `resample_log` keeps every field, and `store_resampled` stores it."""
    settings = ResampleSettings(weeks, load, long_term, temporary, arrival_rate, rb_npw, seed, phase)
    src = read_source(archive, log, version, rb, rb_from_flurries)
    if src.P is None:
        raise UsageError(f"{src.name} has no machine size: set it with `wla set {for_shell(src.name)} max-procs N`")
    return resample_source(src, settings).workload()
