"""Commands that replay workloads on a simulated machine: simulate, esp."""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import List, Optional

import typer
from wla.sim.settings import SimSettings

from . import options, progress, text
from .app import app, context
from .present import show, warn
from .settings import takes


@app.command("simulate")
@takes(sim=SimSettings)
def simulate_cmd(
    log: Optional[str] = options.SimLog,
    version: Optional[str] = options.Version,
    query: Optional[str] = options.SimQuery,
    sim: SimSettings = SimSettings(),
    save: Optional[str] = options.Save,
    force: bool = options.Force,
    batch_means: Optional[int] = options.BatchMeans,
    batch_by: str = options.BatchBy,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Replay a log, a version or a query on a simulated machine and print the metrics."""
    from wla.archive import UsageError
    from wla.archive.analysis.diagnosis.warnings import log_warnings
    from wla.sim.simulate import simulate
    from wla.sim.workload import from_archive

    if log is None and query is None:
        raise UsageError("give a log to simulate, or --query SQL")
    sim.checked()  # a setting out of range, refused before the archive is opened
    if save is not None:
        from wla.sim.save import check_target

        check_target(save, force)
    if batch_means is not None:
        from wla.sim.evaluate.batch_means import check_batches

        check_batches(batch_means, batch_by)  # before the simulation
    ctx = context(archive)
    with progress.display("simulate", quiet=as_json):
        with ctx.reading() as a:  # closed before the simulation: ingest may write meanwhile
            workload = from_archive(a, log, version, query, sim.procs, sim.exclude)
            warnings = log_warnings(a, workload.source["log"]) if "log" in workload.source else []
        result = simulate(workload, sim)
    saved = None
    if save is not None:
        from wla.sim.save import save as save_result  # pyarrow: only when saving

        if save.endswith(".parquet"):
            saved = save_result(result, save, force=force)
        else:
            with ctx.writing() as a:
                saved = save_result(result, save, a)
    data = {**result.summary(), "warnings": warnings}
    if batch_means is not None:
        from wla.sim.evaluate.batch_means import result_batch_means

        data["batch_means"] = [b.to_dict() for b in result_batch_means(result, batch_means, batch_by)]
    show(data, as_json, text.simulation, wide=wide)
    warn(warnings)
    if sim.check:
        typer.echo("schedule checked: valid", err=True)
    if saved:
        typer.echo(f"schedule saved to {saved}", err=True)


@app.command("esp")
@takes(sim=(SimSettings, {n: None for n in ("procs", "tau", "warmup", "stop_at_last_arrival", "exclude",
                                              "load_factor", "runtime_scale", "size_scale", "backlog")}))
def esp_cmd(
    procs: int = options.EspProcs,
    mix: Optional[Path] = options.Mix,
    full_arrivals: List[float] = options.FullAt,
    full_first: bool = options.FullFirst,
    boot: float = options.Boot,
    between_boots: Optional[float] = options.BetweenBoots,
    seeds: Optional[int] = options.EspSeeds,
    two_stage: bool = options.TwoStage,
    sim: SimSettings = SimSettings(),
    as_json: bool = options.Json,
    archive: Optional[Path] = options.Archive,  # accepted as by every command; the workload is made up
) -> None:
    """Score a policy on an ESP-style workload: efficiency, and with the MWF idle-at-end taken out."""
    from wla.archive import UsageError
    from wla.sim.esp import mix_path, read_mix, run_esp

    mix = mix_path(mix)
    jobs = read_mix(mix)
    given = dict(estimate=sim.estimate, overrun=sim.overrun, ties=sim.ties, passes=sim.passes, check=sim.check,
                 boot=boot, between_boots=between_boots)
    if seeds is not None and two_stage:
        raise UsageError("give --seeds or --two-stage, not both")
    with progress.display("esp", quiet=as_json):
        if seeds is not None:
            from wla.sim.esp_study import distribution, esp_over_seeds

            runs = esp_over_seeds(jobs, procs, seeds, sim.seed, sim.policy, full_arrivals, full_first=full_first,
                                  **given)
            data = {"mix": mix.name, "procs": procs, "policy": sim.policy, "full_first": full_first,
                    "seeds": [sim.seed, sim.seed + seeds - 1], "distribution": distribution(runs),
                    "runs": runs.to_dict(orient="records")}
            show(data, as_json, text.esp_seeds)
            return
        if two_stage:
            from wla.sim.esp_study import two_stage as stages

            data = {"mix": mix.name, "procs": procs, "policy": sim.policy, "seed": sim.seed,
                    **stages(jobs, procs, sim.seed, sim.policy, full_arrivals, **given)}
            show(data, as_json, text.esp_two_stage)
            return
        result, score = run_esp(jobs, procs, sim.policy, sim.seed, full_arrivals, full_first, **given)
    show({**result.summary(), "esp": score.to_dict()}, as_json, partial(text.esp, mix=mix.name))
