"""Build benchmark: a recipe's time is linear in its steps.

    python bench/bench_chain.py [--data DIR]

Builds recipes of 16 and 48 `normalize` steps over NASA-iPSC-1993-3-head228
(the best of three builds each) and prints steps per second and the ratio of
the two times: about 3 when each step costs the same (it was 7 when each step
re-read the whole chain before it). tests/archive/clean/test_build_chain.py checks the
same property without a clock, by counting the statements that read a step.
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
LOG = "NASA-iPSC-1993-3-head228"


def chain(steps: int, version: str) -> str:
    return f'log = "{LOG}"\nversion = "{version}"\n' + '\n[[step]]\nrule = "normalize"\n' * steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=DEFAULT_DATA)
    args = ap.parse_args()

    from wla.archive import open as open_archive
    from wla.archive.clean.build import clean
    from wla.archive.clean.recipe import parse_recipe
    from wla.archive.store.ingest import ingest

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.duckdb"
        with open_archive(path, write=True) as a:
            ingest(a, [Path(args.data) / f"{LOG}.swf.gz"])

            def best(steps: int) -> float:
                times = []
                for k in range(3):
                    started = time.perf_counter()
                    clean(a, parse_recipe(chain(steps, f"t{steps}x{k}")))
                    times.append(time.perf_counter() - started)
                return min(times)

            best(4)  # warm: rules parsed, DuckDB's caches filled
            t16, t48 = best(16), best(48)
    print(f"16 steps {t16:.3f} s ({16 / t16:.1f} steps/s)  48 steps {t48:.3f} s ({48 / t48:.1f} steps/s)  "
          f"ratio {t48 / t16:.2f} (linear: 3; goal <= 3)")
    if t48 > 3 * t16:
        sys.exit(1)


if __name__ == "__main__":
    main()
