"""Simulator benchmark: EASY and conservative on four real logs, the compiled
core against the plain-Python reference measured in the same run.

    python bench/bench_sim.py [--repeat 5] [--data DIR]

For each log: jobs per second of the core alone (arrays in, start times out;
best of --repeat), of the whole call from the archive (read the log from a
DuckDB file, build the workload, simulate, compute the metrics; best of
--repeat), and of the reference (one run); the two schedules are compared
job by job. Then conservative backfilling on the same whole logs: the core
(best of --repeat) and the reference (one run; about two minutes for the
four), compared job by job, with the longest queue each log builds. Then
the compilation a fresh process pays on its first call: with an empty cache
(once per installation) and with the cache it left. Then feedback: each log's
version with dependencies (the `dependencies` rule, default parameters),
EASY and conservative with feedback against the same core without it on the
same version (best of --repeat each; goal: at most 2x), compared job by job
with the reference under feedback.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = os.environ.get("WLA_DATA") or str(ROOT.parent / "shared" / "data" / "swf")
LOGS = ("SDSC-SP2-1998-4.2-cln", "CTC-SP2-1996-3.1-cln", "HPC2N-2002-2.2-cln", "SDSC-BLUE-2000-4.2-cln")

FIRST_CALL = r"""
import time
t = time.perf_counter()
from wla.sim.schedule import schedule
t1 = time.perf_counter()
schedule([0, 1, 2], [5, 5, 5], [1, 2, 2], [5, 9, 9], 2, "easy")
print(t1 - t, time.perf_counter() - t1)
"""


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def longest_queue(submit: np.ndarray, start: np.ndarray) -> int:
    """The most jobs waiting at once: arrivals at an instant count before
    the starts at it."""
    times = np.concatenate([submit, start])
    steps = np.concatenate([np.ones(len(submit)), -np.ones(len(start))])
    order = np.lexsort((-steps, times))
    return int(np.cumsum(steps[order]).max())


def first_call(cache: str) -> tuple[float, float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    out = subprocess.run([sys.executable, "-c", FIRST_CALL], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(out.stderr)
    imported, called = map(float, out.stdout.split())
    return imported, called


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--prefix", type=int, default=None,
                    help="run conservative on each log's first N jobs only (default: whole logs)")
    args = ap.parse_args()

    from wla.archive import open as open_archive
    from wla.archive.clean.build import clean
    from wla.archive.clean.recipe import parse_recipe
    from wla.archive.store.ingest import ingest
    from wla.sim import from_archive, simulate
    from wla.sim.reference import reference_schedule, simulate_reference
    from wla.sim.schedule import schedule

    rows = []
    fed = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.duckdb"
        with open_archive(path, write=True) as a:
            ingest(a, [Path(args.data) / f"{name}.swf.gz" for name in LOGS])
            for name in LOGS:
                clean(a, parse_recipe(f'log = "{name}"\nversion = "deps"\n[[step]]\nrule = "dependencies"\n'))
        with open_archive(path) as a:
            for name in LOGS:
                w = from_archive(a, name)
                arrays = (w.submit, w.run, w.procs, w.estimate, w.P, "easy")
                fast = schedule(*arrays)  # compiles, or loads the cache
                core = best(lambda: schedule(*arrays), args.repeat)
                whole = best(lambda: simulate(from_archive(a, name)), args.repeat)
                t = time.perf_counter()
                ref = simulate_reference(*arrays)
                reference = time.perf_counter() - t
                same = np.array_equal(ref, fast.start)
                n = len(w)
                rows.append((name, n, n / core, n / whole, n / reference, reference / core, same))
                print(f"{name:24} {n:>8,} jobs  core {n / core / 1e6:6.2f} M jobs/s  "
                      f"from archive {n / whole / 1e6:5.2f} M jobs/s  reference {n / reference:9,.0f} jobs/s  "
                      f"core/reference {reference / core:5.0f}x  identical {same}", flush=True)
            cons = []
            for name in LOGS:
                w = from_archive(a, name)
                cut = slice(None, args.prefix)
                arrays = (w.submit[cut], w.run[cut], w.procs[cut], w.estimate[cut], w.P, "conservative")
                fast = schedule(*arrays)
                core = best(lambda: schedule(*arrays), args.repeat)
                t = time.perf_counter()
                ref = simulate_reference(*arrays)
                reference = time.perf_counter() - t
                same = np.array_equal(ref, fast.start)
                n = len(arrays[0])
                cons.append((n / core, reference / core, same))
                print(f"conservative {name:24} {n:>8,} jobs  core {n / core / 1e6:6.3f} M jobs/s ({core:.2f} s)  "
                      f"reference {n / reference:7,.0f} jobs/s  core/reference {reference / core:5.0f}x  "
                      f"longest queue {longest_queue(arrays[0], fast.start):,}  identical {same}", flush=True)
            for name in LOGS:
                w = from_archive(a, f"{name}@deps")
                for policy in ("easy", "conservative"):
                    arrays = (w.submit, w.run, w.procs, w.estimate, w.P, policy)
                    links = dict(pred=w.prev, think=w.think)
                    fast = schedule(*arrays, **links)
                    plain = best(lambda: schedule(*arrays), args.repeat)
                    core = best(lambda: schedule(*arrays, **links), args.repeat)
                    start, arrive = reference_schedule(*arrays, **links)
                    same = np.array_equal(start, fast.start) and np.array_equal(arrive, fast.arrive)
                    n = len(w)
                    fed.append((core / plain, same))
                    print(f"feedback {policy:12} {name:24} {n:>8,} jobs ({int((w.prev >= 0).sum()):,} waiting for "
                          f"another)  core {n / core / 1e6:6.3f} M jobs/s, {core / plain:4.2f}x the same core "
                          f"without feedback; {int((fast.arrive > w.submit).sum()):,} arrive late  identical {same}",
                          flush=True)
    core_median = statistics.median(r[2] for r in rows)
    ratio_median = statistics.median(r[5] for r in rows)
    print(f"median log: core {core_median / 1e6:.2f} M jobs/s, {ratio_median:.0f}x the reference "
          f"(goals: 2 M jobs/s, 15x)")
    print(f"median log, conservative: core {statistics.median(c[0] for c in cons) / 1e6:.3f} M jobs/s, "
          f"{statistics.median(c[1] for c in cons):.0f}x the reference (goal: 0.5 M jobs/s)")
    print(f"feedback: at most {max(f[0] for f in fed):.2f}x the core without it, median "
          f"{statistics.median(f[0] for f in fed):.2f}x (goal: at most 2x)")
    with tempfile.TemporaryDirectory() as cache:
        cold = first_call(cache)
        warm = first_call(cache)
    print(f"fresh process, first call: {cold[1]:.2f} s compiling with an empty cache, "
          f"{warm[1]:.2f} s with the cache (import {warm[0]:.2f} s; goal: 2 s)")
    if not all(r[6] for r in rows) or not all(c[2] for c in cons) or not all(f[1] for f in fed):
        sys.exit("the core and the reference disagree")


if __name__ == "__main__":
    main()
