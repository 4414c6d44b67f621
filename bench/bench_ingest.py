"""Ingest benchmark: all real logs into a new archive, against a bare pandas parse.

    python bench/bench_ingest.py [--repeat 5] [--data DIR]

Every measurement runs in a fresh process (so its peak memory is its own);
the best of --repeat runs is reported, with the median beside it. The
baseline is `pandas.read_csv(sep=r"\\s+", comment=";")` over the same files,
measured in the same run. wla's time is end to end: open a new archive file,
read, inflate, hash, parse, check, write every log in its own transaction,
checkpoint and close.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = os.environ.get("WLA_DATA") or str(ROOT.parent / "shared" / "data" / "swf")

PANDAS = r"""
import glob, json, resource, sys, time
import pandas as pd
files = sorted(glob.glob(sys.argv[1] + "/*.swf.gz"))
t = time.perf_counter()
n = sum(len(pd.read_csv(f, sep=r"\s+", comment=";", header=None)) for f in files)
dt = time.perf_counter() - t
print(json.dumps({"jobs": n, "seconds": dt,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

WLA = r"""
import json, resource, sys, time
from wla.archive import open as open_archive
from wla.archive.store.ingest import ingest
t = time.perf_counter()
with open_archive(sys.argv[2], write=True) as a:
    results = ingest(a, [sys.argv[1]])
dt = time.perf_counter() - t
assert all(r.status == "ingested" for r in results), [r.message for r in results]
print(json.dumps({"jobs": sum(r.jobs for r in results), "seconds": dt,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data", default=DEFAULT_DATA)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(WLA, args.data, f"{tmp}/warm.duckdb")  # compiles and caches the tokenizer
        base, mine = [], []
        for i in range(args.repeat):  # interleaved, so drift hits both alike
            base.append(run(PANDAS, args.data))
            mine.append(run(WLA, args.data, f"{tmp}/a{i}.duckdb"))
        size_mb = Path(f"{tmp}/a0.duckdb").stat().st_size / 1e6
    jobs = mine[0]["jobs"]
    assert base[0]["jobs"] == jobs, (base[0]["jobs"], jobs)
    b = min(r["seconds"] for r in base)
    w = min(r["seconds"] for r in mine)
    print(f"logs: {args.data}  ({jobs:,} jobs, best of {args.repeat}, cores: {os.cpu_count()})")
    print(f"pandas.read_csv   {b:6.3f} s  {jobs / b / 1e6:5.2f} M jobs/s  "
          f"(median {statistics.median(r['seconds'] for r in base):.3f} s)  "
          f"peak {max(r['peak_mb'] for r in base):6.0f} MB")
    print(f"wla ingest        {w:6.3f} s  {jobs / w / 1e6:5.2f} M jobs/s  "
          f"(median {statistics.median(r['seconds'] for r in mine):.3f} s)  "
          f"peak {max(r['peak_mb'] for r in mine):6.0f} MB  archive {size_mb:.0f} MB")
    print(f"ratio wla / pandas: {w / b:.2f}   (goal: <= 1.20, >= 1.00 M jobs/s, peak < 2048 MB)")


if __name__ == "__main__":
    main()
