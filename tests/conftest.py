"""Fixtures over the real logs of the Parallel Workloads Archive."""
from __future__ import annotations

import gzip
import os
import re
import signal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import settings
from wla.archive import open as open_archive
from wla.archive.store.ingest import ingest
from wla.archive.swf.fields import COLUMNS

# Property tests draw the same examples on every run and every machine: a
# test that fails, fails again.
settings.register_profile("wla", derandomize=True, database=None)
settings.load_profile("wla")

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


# The 18 fields by short name, for reading a log with pandas alone.
SWF_NAMES = ["job", "submit", "wait", "run", "procs", "cpu", "mem", "req_procs", "req_time",
             "req_mem", "status", "user", "group", "app", "queue", "partition", "prev", "think"]


def pandas_log(name: str) -> pd.DataFrame:
    """A real log's jobs as pandas reads the file, independently of wla."""
    with gzip.open(data_dir() / f"{name}.swf.gz", "rt") as fh:
        return pd.read_csv(fh, sep=r"\s+", comment=";", header=None, names=SWF_NAMES)


def pytest_configure(config):
    """With workers (pytest-xdist), compile in the controller before they
    start: once, instead of in every worker at the same time."""
    if not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None):
        from wla.archive.kernel import jit
        from wla.sim.doctor import compiled_parts

        jit.warm(compiled_parts())


def pytest_collection_modifyitems(config, items):
    """Long tests first: with workers, the last test to start sets the end."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture(scope="session", autouse=True)
def compiled_once():
    """Compile what numba's cache lacks before any test runs, as `wla doctor
    --warm` does: a test that reads a command's stderr then sees the command,
    not the one-time notice of a compile that happened to fall in it."""
    from wla.archive.kernel import jit
    from wla.sim.doctor import compiled_parts

    jit.warm(compiled_parts())


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


@pytest.fixture(scope="session")
def sp2_archive_file(tmp_path_factory):
    """An archive of SDSC-SP2-1998-4.2-cln alone, for the studies of many
    simulations (shake, sweep, compare); their tests add tables of their
    own names to it."""
    path = tmp_path_factory.mktemp("sp2") / "a.duckdb"
    with open_archive(path, write=True) as a:
        [r] = ingest(a, [data_dir() / "SDSC-SP2-1998-4.2-cln.swf.gz"])
    assert r.status == "ingested"
    return path


@pytest.fixture(scope="session")
def sp2_workload(sp2_archive_file):
    from wla.sim import from_archive

    with open_archive(sp2_archive_file) as a:
        return from_archive(a, "SDSC-SP2-1998-4.2-cln")


def make_jobs(rows: list[dict]) -> pd.DataFrame:
    """A log as `log_query` returns it: every field -1 unless given, jobs numbered 1..n."""
    frame = pd.DataFrame([{**{c: -1 for c in COLUMNS}, **r} for r in rows])
    frame["job"] = np.arange(1, len(frame) + 1)
    frame.insert(0, "line_no", np.arange(1, len(frame) + 1))
    for c in ("submit", "wait", "run", "cpu", "mem", "req_time", "req_mem", "think"):
        frame[c] = frame[c].astype(np.float64)
    return frame


class Blocked(Exception):
    """A command waited on a FIFO (or anything else that never answers)."""


@pytest.fixture
def never_waits():
    """A command that opens a FIFO would wait for a writer forever: an alarm
    ends it with Blocked, so the test fails rather than the whole run hangs."""
    def stop(signum, frame):
        raise Blocked("waited on a FIFO")
    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)
