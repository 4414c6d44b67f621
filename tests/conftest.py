"""Fixtures over the real logs of the Parallel Workloads Archive."""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from wla.archive import open as open_archive
from wla.archive.fields import COLUMNS
from wla.archive.ingest import ingest

ROOT = Path(__file__).resolve().parent.parent
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


def real_files() -> list[Path]:
    return sorted(data_dir().glob("*.swf.gz"))


@pytest.fixture(scope="session")
def real_archive(tmp_path_factory):
    """A read-only archive holding every real log."""
    if not data_dir().is_dir():
        pytest.fail(f"real logs not found at {data_dir()} (set {DATA_ENV})")
    path = tmp_path_factory.mktemp("real") / "all.duckdb"
    with open_archive(path, write=True) as a:
        results = ingest(a, [data_dir()])
    assert [r for r in results if r.status != "ingested"] == []
    with open_archive(path) as a:
        yield a


def make_jobs(rows: list[dict]) -> pd.DataFrame:
    """A log as `log_query` returns it: every field -1 unless given, jobs numbered 1..n."""
    frame = pd.DataFrame([{**{c: -1 for c in COLUMNS}, **r} for r in rows])
    frame["job"] = np.arange(1, len(frame) + 1)
    frame.insert(0, "line_no", np.arange(1, len(frame) + 1))
    for c in ("submit", "wait", "run", "cpu", "mem", "req_time", "req_mem", "think"):
        frame[c] = frame[c].astype(np.float64)
    return frame
