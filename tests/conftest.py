"""What every test folder shares: the real logs in an archive, compiled code
warmed once, long tests first. Plain helpers (where the logs are, reading
them with pandas, hand-made jobs) are modules of their own: real_logs.py,
made_jobs.py."""
from __future__ import annotations

import signal

import pytest
from hypothesis import settings
from real_logs import DATA_ENV, data_dir
from wla.archive import open as open_archive
from wla.archive.store.ingest import ingest

# Property tests draw the same examples on every run and every machine: a
# test that fails, fails again.
settings.register_profile("wla", derandomize=True, database=None)
settings.load_profile("wla")


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
