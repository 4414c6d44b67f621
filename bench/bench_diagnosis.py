"""Diagnosis benchmark: the quality report of every shared log, without and
with the diagnosis, in one run.

    python bench/bench_diagnosis.py [--repeat 5] [--data DIR]

The logs are ingested once into a new archive. The baseline is what `wla
quality` computed before the diagnosis (the report's views and the header
audit, every log); the measurement is what it computes now: the same, the
experience paper's counts, every detector over every log and the known
issues. Both run in this process on the same open archive, interleaved,
best of --repeat; the goal is the whole report within twice the baseline.
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = os.environ.get("WLA_DATA") or str(ROOT.parent / "shared" / "data" / "swf")


def report(archive, names: list[str], now: bool = False) -> float:
    """The report's views for every log, then each header audit: as it was,
    or (`now`) with the paper's counts and each log's known issues."""
    from wla.archive.analysis.caveats import known_issues
    from wla.archive.analysis.header_audit import header_audit
    from wla.archive.analysis.quality import quality

    t = time.perf_counter()
    quality(archive, names, paper_counts=now)
    for name in names:
        header_audit(archive, name)
        if now:
            known_issues(archive, name)
    return time.perf_counter() - t


def diagnosis(archive, names: list[str]) -> tuple[float, dict[str, float]]:
    """Every detector over every log: the total, and each detector's share."""
    from wla.archive.analysis.diagnosis.log_data import load
    from wla.archive.analysis.diagnosis.registry import DETECTORS

    each = dict.fromkeys(DETECTORS, 0.0) | {"loading": 0.0}
    t = time.perf_counter()
    for name in names:
        s = time.perf_counter()
        log = load(archive, name)
        each["loading"] += time.perf_counter() - s
        for detector, detect in DETECTORS.items():
            s = time.perf_counter()
            detect(log)
            each[detector] += time.perf_counter() - s
    return time.perf_counter() - t, each


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data", default=DEFAULT_DATA)
    args = ap.parse_args()
    from wla.archive import open as open_archive
    from wla.archive.store.ingest import ingest

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "a.duckdb"
        with open_archive(path, write=True) as a:
            results = ingest(a, [args.data])
        assert all(r.status == "ingested" for r in results), [r.message for r in results]
        with open_archive(path) as a:
            names = a.log_names()
            jobs = sum(r.jobs for r in results)
            report(a, names), diagnosis(a, names)  # warm: DuckDB's caches, the zone database
            base, now, mine, parts = [], [], [], []
            for _ in range(args.repeat):  # interleaved, so drift hits both alike
                base.append(report(a, names))
                now.append(report(a, names, now=True))
                seconds, each = diagnosis(a, names)
                mine.append(seconds)
                parts.append(each)
    b, n, d = min(base), min(now), min(mine)
    print(f"logs: {args.data}  ({len(names)} logs, {jobs:,} jobs, best of {args.repeat}, cores: {os.cpu_count()})")
    print(f"quality, as before   {b:6.3f} s  {jobs / b / 1e6:5.2f} M jobs/s  (median {statistics.median(base):.3f} s)")
    print(f"quality, now         {n:6.3f} s  {jobs / n / 1e6:5.2f} M jobs/s  (median {statistics.median(now):.3f} s)"
          "  with the paper's counts and the known issues")
    print(f"detectors            {d:6.3f} s  {jobs / d / 1e6:5.2f} M jobs/s  (median {statistics.median(mine):.3f} s)")
    best = min(parts, key=lambda p: sum(p.values()))
    print("  " + ", ".join(f"{k} {v:.3f} s" for k, v in best.items()))
    print(f"ratio (quality now + detectors) / quality as before: {(n + d) / b:.2f}   (goal: <= 2.00)")


if __name__ == "__main__":
    main()
