"""Capacity benchmark: the whole capacity rule on RICC-2010-2, against DuckDB's usage profile.

    python bench/bench_capacity.py [--capacity 8192] [--node-limit N] [--size-limit N] [--workers N]
                                   [--repeat 3] [--data DIR]

RICC is ingested into a temporary archive. The baseline, measured in the same
run, is the usage profile the quality report computes in SQL (the
`usage_steps` view, counting exceptions at the same capacity). wla's time is
the whole rule: the report (profile, exceptions, components) and both 0/1
programs per component with the choice between them (the rule's default
limits unless given). The report and the baseline are the best of --repeat
runs; the rule runs once. Its limits count work (nodes, nonzeros), never
time, so what it deletes is the same on any machine: the run prints a digest
of the whole decision to compare across machines and loads.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = os.environ.get("WLA_DATA") or str(ROOT.parent / "shared" / "data" / "swf")
LOG = "RICC-2010-2"


def best(repeat: int, fn):
    """Best wall time of `repeat` calls, and the last call's result."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    from wla.archive import open as open_archive
    from wla.archive.analysis.capacity import capacity_report
    from wla.archive.analysis.capacity.choice import NODE_LIMIT, SIZE_LIMIT, capacity_deletions
    from wla.archive.store.ingest import ingest
    from wla.archive.store.select import log_query

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--capacity", type=int, default=8192)
    ap.add_argument("--node-limit", type=int, default=NODE_LIMIT)
    ap.add_argument("--size-limit", type=int, default=SIZE_LIMIT)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    source = Path(args.data) / f"{LOG}.swf.gz"
    if not source.is_file():
        sys.exit(f"{source} not found (set WLA_DATA or --data)")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ricc.duckdb"
        with open_archive(path, write=True) as a:
            [result] = ingest(a, [str(source)])
            assert result.status == "ingested", result.message
        with open_archive(path) as a:
            log_id = a.log_id(LOG)
            sql = ("SELECT count(*) FILTER (WHERE starts AND usage > ?) AS exceptions, max(usage) AS ceiling "
                   "FROM usage_steps WHERE log_id = ?")
            base, want = best(args.repeat, lambda: a.df(sql, [args.capacity, log_id]).iloc[0])
            load, jobs = best(args.repeat, lambda: a.df(log_query(a, LOG)))

    n = len(jobs)
    rep, report = best(args.repeat, lambda: capacity_report(jobs, args.capacity))
    assert (report.exceptions, report.ceiling) == (want.exceptions, want.ceiling), (report, want)
    cpu = time.process_time()
    t = time.perf_counter()
    report = capacity_report(jobs, args.capacity)
    choice = capacity_deletions(jobs, args.capacity, node_limit=args.node_limit,
                                size_limit=args.size_limit, workers=args.workers)
    rule = time.perf_counter() - t
    cpu = time.process_time() - cpu

    c = choice.components
    sh = choice.shares
    print(f"log: {LOG}  ({n:,} jobs, capacity {args.capacity:,}, cores: {os.cpu_count()}, "
          f"workers: {args.workers or os.cpu_count()}, node limit {args.node_limit:,}, "
          f"size limit {args.size_limit:,})")
    print(f"exceptions {report.exceptions:,} in {len(report.components)} components; "
          f"ceiling {report.ceiling:,} ({100 * report.ceiling_share:.0f}% of capacity), "
          f"worst excess {report.worst_excess:,}")
    print(f"L deletes {choice.deleted['L']:,} jobs ({100 * sh['LJ']:.3f}% of jobs, {100 * sh['LU']:.2f}% of use); "
          f"S deletes {choice.deleted['S']:,} ({100 * sh['SJ']:.3f}% of jobs, {100 * sh['SU']:.2f}% of use)")
    print(f"chosen {choice.chosen}, applied {choice.applied}: {choice.message}")
    for obj in "LS":
        counts = c[f"method_{obj}"].value_counts().to_dict()
        print(f"  programs {obj}: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
        print(f"  {obj}: {choice.proof(obj)}")
    digest = hashlib.sha256(json.dumps(choice.as_dict(), sort_keys=True).encode()).hexdigest()
    print(f"decision digest {digest[:16]} (the same on every machine for the same limits)")
    print(f"SQL usage profile  {base:7.3f} s  (usage_steps view, best of {args.repeat}; load of the jobs "
          f"{load:.3f} s, not counted)")
    print(f"capacity_report    {rep:7.3f} s  {n / rep / 1e6:5.2f} M jobs/s  ratio to SQL {rep / base:.2f}")
    print(f"whole rule         {rule:7.3f} s  {n / rule / 1e3:7.1f} k jobs/s  ratio to SQL {rule / base:.0f}  "
          f"(cpu {cpu:.1f} s; goal: <= 60 s on 2 cores)")
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
