"""Start-up benchmark: how long `wla` takes to start and to do small things,
as real processes, against a bare interpreter and `import duckdb` measured
in the same run.

    python bench/bench_startup.py [--repeat 9] [--data DIR]

Every figure is the best of --repeat runs of a fresh process (the median
beside it); the commands take turns, so that a busy machine slows them
alike. The archive holds every real log of --data; numba's cache is warmed
first (`wla doctor --warm`), as it is after a command's first run. Goals:
`wla --help` and `wla --version` within 0.25 s of `python -c pass`; `wla
ls` within 0.3 s of `python -c "import duckdb"`; the whole `wla simulate
SDSC-SP2-1998-4.2-cln` (start, read the log, simulate, report) within 1 s.
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

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = os.environ.get("WLA_DATA") or str(ROOT.parent / "shared" / "data" / "swf")
WLA = Path(sys.executable).with_name("wla")  # the installed command, beside this interpreter
SIMULATED = "SDSC-SP2-1998-4.2-cln"
# numba's own start, what any numba program pays before its first line runs:
# import numba and call one function its cache already holds.
NUMBA_MODULE = "from numba import njit\n\n@njit(cache=True)\ndef total(x):\n    return x.sum()\n"
NUMBA_CALL = ("import sys; sys.path.insert(0, sys.argv[1]); import numpy as np; "
              "from tiny_jit import total; total(np.ones(3))")


def timed(argv: list[str]) -> float:
    """Wall time of one process, from start to exit."""
    t = time.perf_counter()
    run = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - t
    if run.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed: {run.stderr}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--data", default=DEFAULT_DATA)
    args = ap.parse_args()
    if not WLA.exists():
        sys.exit(f"no `wla` beside {sys.executable}: run this with the interpreter wla is installed in")

    with tempfile.TemporaryDirectory() as tmp:
        archive = str(Path(tmp) / "bench.duckdb")
        subprocess.run([str(WLA), "-a", archive, "ingest", args.data], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([str(WLA), "doctor", "--warm"], check=True, stdout=subprocess.DEVNULL)
        Path(tmp, "tiny_jit.py").write_text(NUMBA_MODULE)
        numba_start = [sys.executable, "-c", NUMBA_CALL, tmp]
        subprocess.run(numba_start, check=True)  # compiled once, then loaded from the cache
        runs = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "python -c 'import duckdb'": [sys.executable, "-c", "import duckdb"],
            "numba: import, one cached call": numba_start,
            "wla --help": [str(WLA), "--help"],
            "wla --version": [str(WLA), "--version"],
            "wla ls": [str(WLA), "-a", archive, "ls"],
            f"wla simulate {SIMULATED}": [str(WLA), "-a", archive, "simulate", SIMULATED],
        }
        times: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.repeat):  # in turns: drift in the machine's load hits each alike
            for name, argv in runs.items():
                times[name].append(timed(argv))

    best = {name: min(t) for name, t in times.items()}
    bare, duckdb = best["python -c pass"], best["python -c 'import duckdb'"]
    # (figure, what it is measured against, how much more it may take, or None: an absolute goal)
    goals = [
        ("wla --help", "python -c pass", 0.25),
        ("wla --version", "python -c pass", 0.25),
        ("wla ls", "python -c 'import duckdb'", 0.30),
        (f"wla simulate {SIMULATED}", None, 1.0),
    ]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"best of {args.repeat} processes each, {os.cpu_count()} cores, load average {load:.1f}; "
          f"archive: every log of {args.data}")
    for name in list(runs)[:3]:
        print(f"  {name:36} {best[name]:6.3f} s  (median {statistics.median(times[name]):.3f} s)  baseline")
    met = True
    for name, base, allowed in goals:
        t = best[name]
        if base is None:
            vs, ok = f"goal <= {allowed:.2f} s", t <= allowed
            vs += f"; numba's start {best['numba: import, one cached call']:.3f} s of it"
        else:
            extra = t - best[base]
            ok = extra <= allowed
            vs = f"+{extra:.3f} s over {base} ({t / best[base]:.1f}x), goal <= +{allowed:.2f} s"
        met &= ok
        print(f"  {name:36} {t:6.3f} s  (median {statistics.median(times[name]):.3f} s)  {vs}  "
              f"{'met' if ok else 'NOT MET'}")
    print(f"(baselines on this machine: interpreter {bare:.3f} s, import duckdb {duckdb:.3f} s)")
    if not met:
        sys.exit(1)


if __name__ == "__main__":
    main()
