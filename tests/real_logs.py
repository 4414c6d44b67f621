"""The real logs of the Parallel Workloads Archive, as the tests find and
read them. A plain module, not conftest.py: test folders have conftest
files of their own, and `conftest` names whichever pytest loaded last."""
from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
DATA_ENV = "WLA_DATA"


def data_dir() -> Path:
    """The real logs: $WLA_DATA, else ../shared/data/swf beside the project."""
    return Path(os.environ.get(DATA_ENV) or ROOT.parent / "shared" / "data" / "swf")


def manifest() -> dict[str, dict]:
    """MANIFEST.md's table: file -> jobs, header lines, sha256 prefix."""
    out = {}
    for line in (data_dir() / "MANIFEST.md").read_text().splitlines():
        m = re.match(r"\|\s*`([^`]+\.swf\.gz)`\s*\|\s*([\d,]+)\s*\|\s*(\d+)\s*\|[^|]*\|[^|]*\|\s*`([0-9a-f]+)", line)
        if m:
            out[m.group(1)] = {"jobs": int(m.group(2).replace(",", "")),
                               "header": int(m.group(3)), "sha": m.group(4)}
    return out


# The 18 fields by short name, for reading a log with pandas alone.
SWF_NAMES = ["job", "submit", "wait", "run", "procs", "cpu", "mem", "req_procs", "req_time",
             "req_mem", "status", "user", "group", "app", "queue", "partition", "prev", "think"]


def pandas_log(name: str) -> pd.DataFrame:
    """A real log's jobs as pandas reads the file, independently of wla."""
    with gzip.open(data_dir() / f"{name}.swf.gz", "rt") as fh:
        return pd.read_csv(fh, sep=r"\s+", comment=";", header=None, names=SWF_NAMES)


def real_files() -> list[Path]:
    return sorted(data_dir().glob("*.swf.gz"))
