"""Commands that replay workloads on a simulated machine: simulate, esp."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer
from wla.archive import UsageError
from wla.archive import open as open_archive
from wla.sim.esp import EXAMPLE_MIX, read_mix, run_esp
from wla.sim.result import SimResult
from wla.sim.save import save
from wla.sim.simulate import simulate
from wla.sim.workload import from_archive

from .app import ArchiveOpt, app, archive_path

PolicyOpt = typer.Option("easy", "--policy", help="easy, fcfs or conservative")
EstimateOpt = typer.Option("user", "--estimate", help="user, exact, badness:F or last:K")
OverrunOpt = typer.Option("truncate", "--overrun", help="Jobs running past their estimate: truncate, extend or keep")
TauOpt = typer.Option(10.0, "--tau", help="Bounded-slowdown threshold, seconds")
SeedOpt = typer.Option(0, "--seed", help="Seed of every random draw (badness estimates, ESP batches)")
TiesOpt = typer.Option("log", "--ties", help="Simultaneous arrivals: log (log order) or reverse")
PassesOpt = typer.Option("instant", "--passes",
                         help="instant: one scheduling pass per instant, after all its events; event: one per event")
CheckOpt = typer.Option(False, "--check", help="Check the schedule's invariants")
JsonOpt = typer.Option(False, "--json", help="Print the result as JSON")


def _number(x, unit: str = "") -> str:
    if x is None:
        return "-"
    return f"{x:,.0f}{unit}" if abs(x) >= 100 else f"{x:,.2f}{unit}"


def report(result: SimResult, title: str) -> str:
    """The result as a short text: what ran, on what, and the metrics."""
    s, c, m = result.settings, result.counts, result.metrics
    procs_from = result.source.get("procs_from")
    lines = [f"{title}: {s['policy'].upper()} on {s['procs']:,} processors"
             + (f" ({procs_from})" if procs_from else "")
             + f"; estimates {s['estimate']}, overrun {s['overrun']}"]
    left = ", ".join(f"{n:,} {r}" for r, n in c["not_simulated"].items() if n)
    lines.append(f"jobs {c['jobs']:,}: simulated {c['simulated']:,}" + (f"; not simulated: {left}" if left else ""))
    out = ", ".join(f"{n:,} {r}" for r, n in c["not_measured"].items() if n)
    lines.append(f"measured {c['measured']:,}" + (f" (not measured: {out})" if out else ""))
    lines.append("")
    lines.append(f"{'':18}{'mean':>12}{'median':>12}{'p95':>12}")
    for key, label in (("wait", "wait (s)"), ("response", "response (s)"),
                       ("bounded_slowdown", "bounded slowdown")):
        stats = m[key]
        lines.append(f"{label:18}" + "".join(f"{_number(stats[k]):>12}" for k in ("mean", "median", "p95")))
    lines.append("")
    util = "-" if m["utilization"] is None else f"{m['utilization']:.1%}"
    lines.append(f"utilization {util}   throughput {_number(m['throughput_per_hour'])} jobs/hour   "
                 f"makespan {_number(m['makespan'])} s")
    shown = ("tau", "warmup", "stop_at_last_arrival", "exclude", "load_factor", "seed", "ties", "passes")
    lines.append("settings: " + " ".join(f"{k}={json.dumps(s[k])}" for k in shown))
    return "\n".join(lines)


@app.command("simulate")
def simulate_cmd(
    log: Optional[str] = typer.Argument(None, help="Log to replay (or give --query)"),
    version: Optional[str] = typer.Option(None, "--version", help="Replay this cleaned version of the log"),
    query: Optional[str] = typer.Option(None, "--query", help="Replay the rows of this read-only SQL query"),
    policy: str = PolicyOpt,
    estimate: str = EstimateOpt,
    overrun: str = OverrunOpt,
    procs: Optional[int] = typer.Option(None, "--procs", help="Processors [default: MaxProcs, else MaxNodes]"),
    tau: float = TauOpt,
    warmup: float = typer.Option(0.01, "--warmup", help="Fraction of the first jobs simulated but not measured"),
    stop_at_last_arrival: bool = typer.Option(
        True, "--stop-at-last-arrival/--measure-to-end",
        help="Measure only jobs ending by the last arrival, utilization up to it"),
    exclude: Optional[str] = typer.Option(None, "--exclude", help="Simulate but do not measure jobs matching this"),
    load_factor: float = typer.Option(1.0, "--load-factor", help="Divide interarrival times by this"),
    seed: int = SeedOpt,
    ties: str = TiesOpt,
    passes: str = PassesOpt,
    check: bool = CheckOpt,
    save_to: Optional[str] = typer.Option(None, "--save", help="Store the schedule: a table name, or FILE.parquet"),
    as_json: bool = JsonOpt,
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Replay a log, a version or a query on a simulated machine and print the metrics."""
    if log is None and query is None:
        raise UsageError("give a log to simulate, or --query SQL")
    path = archive_path(archive)
    with open_archive(path) as a:  # read-only, whatever is saved afterwards
        workload = from_archive(a, log, version, query, procs, exclude)
    result = simulate(workload, policy=policy, estimate=estimate, overrun=overrun, tau=tau, warmup=warmup,
                      stop_at_last_arrival=stop_at_last_arrival, load_factor=load_factor, seed=seed,
                      ties=ties, passes=passes, check=check)
    saved = None
    if save_to is not None and save_to.endswith(".parquet"):
        saved = save(result, save_to)
    elif save_to is not None:
        with open_archive(path, write=True) as a:
            saved = save(result, save_to, a)
    if as_json:
        typer.echo(result.to_json())
    else:
        title = result.source.get("log") or "query"
        typer.echo(report(result, title))
    if check:
        typer.echo("schedule checked: valid", err=True)
    if saved:
        typer.echo(f"schedule saved to {saved}", err=True)


@app.command("esp")
def esp_cmd(
    procs: int = typer.Option(..., "--procs", help="Processors of the machine"),
    mix: Path = typer.Option(EXAMPLE_MIX, "--mix", readable=False,
                             help="Job mix CSV: type,fraction,run,count [default: an example]"),
    full_arrivals: List[float] = typer.Option([], "--full-at",
                                              help="Arrival time (s) of a full-machine job; once per job"),
    policy: str = PolicyOpt,
    estimate: str = EstimateOpt,
    overrun: str = OverrunOpt,
    seed: int = SeedOpt,
    ties: str = TiesOpt,
    passes: str = PassesOpt,
    check: bool = CheckOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Score a policy on an ESP-style workload: efficiency, and with the MWF idle-at-end taken out."""
    result, score = run_esp(read_mix(mix), procs, policy, seed, full_arrivals, estimate=estimate, overrun=overrun,
                            ties=ties, passes=passes, check=check)
    if as_json:
        typer.echo(json.dumps({**result.summary(), "esp": score.to_dict()}, indent=2))
        return
    typer.echo(f"ESP mix {mix.name}: {result.counts['simulated']} jobs, {policy.upper()} on {procs:,} processors, "
               f"seed {seed}")
    typer.echo(f"elapsed {score.elapsed:,.0f} s, work {score.work:,.0f} processor-seconds")
    typer.echo(f"efficiency            {score.efficiency:.4f}")
    typer.echo(f"efficiency (MWF IAE)  {score.corrected:.4f}   idle-at-end {score.idle_at_end:,.0f} "
               f"processor-seconds, MWF makespan {score.mwf_makespan:,.0f} s")
