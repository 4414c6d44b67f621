"""Resampling benchmark: workloads resampled from a log's version with
dependencies (the `dependencies` rule, default parameters), each generated
and simulated with EASY under feedback, on local processes; the same runs
without feedback, measured in the same run, are the baseline.

    python bench/bench_resample.py [--runs 1000] [--workers 2] [--log NAME] [--data DIR]

Prints, for each of the two: seconds, workloads a second, jobs simulated a
second, and the share of the time spent generating; then the ratio of
feedback to the baseline (goal: 1000 SDSC-SP2 workloads with feedback in at
most 5 minutes on 2 cores; feedback at most 2x). The log is read once; each
worker receives it once. The goals are reported, not asserted.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = os.environ.get("WLA_DATA") or str(ROOT.parent / "shared" / "data" / "swf")
GOAL_SECONDS = 300.0
GOAL_RATIO = 2.0


def deps_version(archive, log: str, version: str = "deps", **params) -> str:
    """The log's version with fields 17/18 filled by the dependencies rule."""
    from wla.archive.clean.build import clean
    from wla.archive.clean.recipe import parse_recipe

    lines = [f'log = "{log}"', f'version = "{version}"', "", "[[step]]", 'rule = "dependencies"']
    lines += [f"{k} = {str(v).lower() if isinstance(v, bool) else v}" for k, v in params.items()]
    clean(archive, parse_recipe("\n".join(lines) + "\n"))
    return f"{log}@{version}"


def _run(shared, run: int) -> tuple:
    """Run `run`'s workload generated, then simulated: (jobs, seconds generating, seconds simulating)."""
    from wla.sim import simulate

    resampling, sim = shared
    t = time.perf_counter()
    w = resampling.workload(run)
    t1 = time.perf_counter()
    simulate(w, sim)
    return len(w), t1 - t, time.perf_counter() - t1


def timed(resampling, sim, runs: int, workers: int) -> tuple[float, int, float, float]:
    from wla.sim.evaluate.executors import executor

    t = time.perf_counter()
    jobs = generating = simulating = 0.0
    with executor(workers) as ex:
        for _, (n, g, s) in ex.results(_run, (resampling, sim), range(1, runs + 1)):
            jobs += n
            generating += g
            simulating += s
    return time.perf_counter() - t, int(jobs), generating, simulating


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--log", default="SDSC-SP2-1998-4.2-cln")
    ap.add_argument("--data", default=DEFAULT_DATA)
    args = ap.parse_args()

    from wla.archive import open as open_archive
    from wla.archive.store.ingest import ingest
    from wla.sim.evaluate.resample.settings import ResampleSettings
    from wla.sim.evaluate.resample.study import Resampling
    from wla.sim.evaluate.resample.workload import read_source
    from wla.sim.settings import SimSettings
    from wla.sim.warm import warm

    warm()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.duckdb"
        with open_archive(path, write=True) as a:
            ingest(a, [Path(args.data) / f"{args.log}.swf.gz"])
            name = deps_version(a, args.log)
        with open_archive(path) as a:
            source = read_source(a, name)
    resampling = Resampling(source, ResampleSettings())
    rows = {}
    for label, feedback in (("without feedback", False), ("with feedback", True)):
        seconds, jobs, generating, simulating = timed(resampling, SimSettings(feedback=feedback), args.runs,
                                                      args.workers)
        rows[label] = seconds
        print(f"{args.runs} workloads of {name} {label:17} {seconds:7.1f} s  {args.runs / seconds:6.1f} workloads/s  "
              f"{jobs / seconds / 1e6:5.2f} M jobs/s  generating {generating / (generating + simulating):4.0%} "
              f"of the work, simulating {simulating / args.runs * 1e3:5.1f} ms a workload", flush=True)
    ratio = rows["with feedback"] / rows["without feedback"]
    print(f"feedback over the baseline: {ratio:.2f}x (goal: at most {GOAL_RATIO:g}x); "
          f"with feedback {rows['with feedback']:.0f} s on {args.workers} workers "
          f"(goal for 1000 SDSC-SP2 workloads on 2: at most {GOAL_SECONDS:.0f} s)")
    if ratio > GOAL_RATIO or (args.runs >= 1000 and rows["with feedback"] > GOAL_SECONDS):
        print("a goal is not met", file=sys.stderr)


if __name__ == "__main__":
    main()
