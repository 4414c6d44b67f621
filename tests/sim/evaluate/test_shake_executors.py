"""The executors of a shaking study (sim/evaluate/executors.py): in this
process, on a local process pool and on a real Dask cluster the same study
gives the same table, bit for bit, whatever order the runs finish in; the
pool sends what the runs share once per worker; wrong options and failing
tasks end the study with an error, never a hang."""
from __future__ import annotations

import contextlib
import json
import multiprocessing as mp
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from wla.archive.kernel.errors import UsageError
from wla.sim import from_archive, shake
from wla.sim.evaluate.executors import IN_FLIGHT, Executor, LocalPool, executor
from wla.sim.evaluate.shake import Shaking, Study, one_run, runs_frame
from wla.sim.evaluate.summary import METRIC_NAMES, RUN_COLUMNS
from wla.sim.settings import SimSettings

SDSC = "SDSC-SP2-1998-4.2-cln"
RUNS = 10
SEED = 7
# Two studies: the defaults (interarrival, relative), and one that changes
# every shaking option and draws badness estimates from the seed.
STUDIES = {
    "default": dict(policy="easy"),
    "runtime-absolute-badness": dict(policy="easy", attribute="runtime", relative=None, degree=30, jobs=50,
                                     estimate="badness:2"),
}
DEADLINE = 120  # seconds: only turns a hang into a failure, never a check on speed
DASK = Path(sys.executable).with_name("dask")


@contextlib.contextmanager
def deadline(seconds: int = DEADLINE):
    """Fail instead of hanging: SIGALRM raises in the test after `seconds`."""
    def stop(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: hung")
    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def assert_same(got, want) -> None:
    pd.testing.assert_frame_equal(got.runs, want.runs, check_exact=True)
    assert got.summaries == want.summaries
    assert got.settings == want.settings


@pytest.fixture(scope="module")
def sdsc(real_archive):
    return from_archive(real_archive, SDSC)


@pytest.fixture(scope="module")
def here(sdsc):
    """Each study run in this process (workers=1): the reference."""
    out = {}
    for name, options in STUDIES.items():
        result = shake(sdsc, runs=RUNS, seed=SEED, workers=1, **options)
        metrics = result.runs[list(METRIC_NAMES)]
        # real work: every run has every metric, and the shaking moved them
        assert len(result.runs) == RUNS + 1 and not metrics.isna().any().any()
        assert (metrics.iloc[1:] != metrics.iloc[0]).any().any()
        out[name] = result
    return out


# -- the same result everywhere -----------------------------------------------------


@pytest.mark.parametrize("name", STUDIES)
def test_local_pool_matches_this_process(sdsc, here, name):
    """workers=2 (a pool of processes) gives the table and summaries of
    workers=1 bit for bit: a shaken run depends on (seed, run) alone."""
    with deadline():
        pooled = shake(sdsc, runs=RUNS, seed=SEED, workers=2, **STUDIES[name])
    assert_same(pooled, here[name])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_group(proc: subprocess.Popen) -> None:
    """End a process and everything it started (its process group)."""
    for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 30)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(wait)
    # the leader may be gone with children left in its group: end those too
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def dask_cluster(request, tmp_path_factory):
    """A real cluster on localhost: a `dask scheduler` and two `dask worker`
    processes (one single-threaded worker each), ended with their process
    groups whatever the test does. Yields the scheduler's address."""
    from distributed import Client

    folder = tmp_path_factory.mktemp("dask")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs: list[subprocess.Popen] = []
    logs: list[Path] = []
    request.addfinalizer(lambda: [stop_group(p) for p in procs])

    def start(name: str, *args: str) -> None:
        log = folder / f"{name}.log"
        logs.append(log)
        with open(log, "w") as out:  # the child keeps its own descriptor
            procs.append(subprocess.Popen([str(DASK), *args], stdout=out, stderr=subprocess.STDOUT,
                                          cwd=folder, start_new_session=True))

    # an idle scheduler and orphaned workers end themselves should the
    # finalizer never run (the test process killed)
    start("scheduler", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard",
          "--idle-timeout", "600s")
    for i in range(2):
        start(f"worker{i}", "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
              "--host", "127.0.0.1", "--name", f"w{i}", "--local-directory", str(folder),
              "--death-timeout", "60s")

    def logs_text() -> str:
        return "\n".join(f"--- {log.name}\n{log.read_text()[-3000:]}" for log in logs)

    client = None
    try:
        with deadline():
            for _ in range(240):  # polls, half a second apart
                if any(p.poll() is not None for p in procs):
                    pytest.fail(f"a dask process ended early:\n{logs_text()}")
                try:
                    if client is None:
                        client = Client(address, timeout="10s")
                    if len(client.scheduler_info()["workers"]) >= 2:
                        break
                except OSError:
                    pass  # the scheduler is not listening yet
                time.sleep(0.5)
            else:
                pytest.fail(f"two workers never registered with {address}:\n{logs_text()}")
    finally:
        if client is not None:
            client.close()
    yield address


# The Dask client runs in a process of its own: a client's threads in the
# test process and the process pools other tests fork from it do not mix.
CLI_STUDIES = {
    "default": [],
    "runtime-absolute-badness": ["--attribute", "runtime", "--absolute", "--degree", "30", "--jobs", "50",
                                 "--estimate", "badness:2"],
}
ERRORS_ON_DASK = """
import operator, sys
from wla.sim.evaluate.executors import executor
with executor(dask=sys.argv[1]) as ex:
    assert ex.name == "dask" and ex.workers == 2, (ex.name, ex.workers)
    try:
        dict(ex.results(operator.truediv, 1.0, list(range(1, 20)) + [0]))
    except ZeroDivisionError:
        print("raised")
"""


@pytest.mark.slow  # seconds of a worker; CI's slow step runs it
def test_dask_cluster_matches_this_process(real_archive, here, dask_cluster, tmp_path):
    """On a real Dask cluster (scheduler and workers in other processes, the
    study scattered to them, `wla shake --dask`) both studies give this
    process's runs bit for bit; a task's exception comes back to the caller
    from a worker too."""
    wla_exe = Path(sys.executable).with_name("wla")
    env = {**os.environ, "WLA_PROGRESS": "0"}
    for name in ("runtime-absolute-badness",):  # every shaking option changed, badness drawn from the seed
        args = CLI_STUDIES[name]
        out = tmp_path / f"{name}.parquet"
        done = subprocess.run([str(wla_exe), "-a", real_archive.path, "shake", SDSC, "--runs", str(RUNS), "--seed",
                               str(SEED), "--dask", dask_cluster, "--save", str(out), "--json", *args],
                              capture_output=True, text=True, env=env, timeout=DEADLINE)
        assert done.returncode == 0, done.stderr
        pd.testing.assert_frame_equal(pd.read_parquet(out), here[name].runs, check_exact=True)
        assert json.loads(done.stdout)["summaries"] == json.loads(json.dumps(here[name].summaries))
    done = subprocess.run([sys.executable, "-c", ERRORS_ON_DASK, dask_cluster], capture_output=True, text=True,
                          timeout=DEADLINE)
    assert done.returncode == 0 and done.stdout.strip() == "raised", done.stderr


# -- completion order does not matter ---------------------------------------------


@dataclass(frozen=True)
class Gated:
    """A study whose odd runs may not finish before the caller has received
    the next (even) run: results arrive out of order, deterministically."""

    study: Study
    folder: str
    until: float  # time.time() after which a closed gate is an error: every task ends well before DEADLINE


def gated_run(gated: Gated, run: int):
    row = one_run(gated.study, run)
    if run % 2 == 1:
        gate = Path(gated.folder) / f"received-{run + 1}"
        while not gate.exists():
            if time.time() > gated.until:
                raise TimeoutError(f"{gate} never appeared")
            time.sleep(0.01)
    return row


def test_results_keyed_by_item_whatever_the_order(sdsc, here, tmp_path):
    """Runs that finish out of order (run 2k-1 waits until the caller has
    received run 2k, so the order is reversed in every pair on every machine)
    still fill the table shake() builds: collected by run, the pool's results
    equal the study run in this process."""
    options = dict(STUDIES["runtime-absolute-badness"])
    attribute, relative, degree, jobs = (options.pop(k) for k in ("attribute", "relative", "degree", "jobs"))
    shaking = Shaking(attribute, float(degree), relative, float(jobs), SEED)
    study = Study(sdsc, shaking, SimSettings(**options, seed=SEED))
    values = np.full((RUNS + 1, len(RUN_COLUMNS)), np.nan)
    values[0] = one_run(study, 0)
    order = []
    with deadline(), LocalPool(2) as ex:
        for run, row in ex.results(gated_run, Gated(study, str(tmp_path), time.time() + DEADLINE / 2),
                                   range(1, RUNS + 1)):
            values[run] = row
            order.append(run)
            (tmp_path / f"received-{run}").touch()
    assert sorted(order) == list(range(1, RUNS + 1))
    assert all(order.index(k + 1) < order.index(k) for k in range(1, RUNS + 1, 2))  # really out of order
    pd.testing.assert_frame_equal(runs_frame(values, SEED), here["runtime-absolute-badness"].runs,
                                  check_exact=True)


# -- what the runs share goes to each worker once ---------------------------------------


class Shared:
    """What the tasks share: counts, in a file, every time it is pickled, and
    counts in itself the tasks that used this copy."""

    def __init__(self, counter: str):
        self.counter = counter
        self.used = 0

    def __reduce__(self):
        with open(self.counter, "a") as fh:
            fh.write("pickled\n")
        return Shared, (self.counter,)


def use_shared(shared: Shared, item: int) -> tuple[int, int, int]:
    shared.used += 1
    return os.getpid(), id(shared), shared.used


@pytest.mark.parametrize("workers", [1, 2])
def test_shared_goes_to_each_worker_once(tmp_path, workers):
    """Every task in one worker sees the same copy of `shared` (the number of
    tasks it has served grows 1, 2, 3, ... in it); a copy sent with each task
    would start at 1 every time. And `shared` is pickled at most once per
    worker, not once per task."""
    counter = tmp_path / "pickled"
    counter.touch()
    items = range(8 * IN_FLIGHT)
    with deadline(), executor(workers=workers) as ex:
        assert ex.workers == workers
        seen = dict(ex.results(use_shared, Shared(str(counter)), items))
    assert sorted(seen) == list(items)
    by_pid: dict[int, list] = {}
    for pid, ident, used in seen.values():
        by_pid.setdefault(pid, []).append((ident, used))
    assert 1 <= len(by_pid) <= workers
    for got in by_pid.values():
        assert len({ident for ident, _ in got}) == 1
        assert sorted(used for _, used in got) == list(range(1, len(got) + 1))
    assert len(counter.read_text().splitlines()) <= workers


# -- wrong options ------------------------------------------------------------------------


def test_wrong_executor_options():
    """No workers at all, or workers and a cluster together: a usage error
    before anything starts."""
    with pytest.raises(UsageError, match="at least 1"):
        executor(workers=0)
    with pytest.raises(UsageError, match="at least 1"):
        executor(workers=-2)
    with pytest.raises(UsageError, match="not both"):
        executor(workers=2, dask="tcp://x")
    assert type(executor(workers=1)) is Executor
    assert isinstance(executor(workers=3), LocalPool) and executor(workers=3).workers == 3


UNREACHABLE = """
import sys, distributed
from wla.archive.kernel.errors import UsageError

class QuickClient(distributed.Client):
    def __init__(self, *args, **kwargs):
        assert kwargs.get("timeout") == "30s"
        super().__init__(*args, **{**kwargs, "timeout": "2s"})

distributed.Client = QuickClient
from wla.sim.evaluate.executors import executor
for address in sys.argv[1:]:
    try:
        executor(dask=address)
    except UsageError as e:
        print(e)
"""


@pytest.mark.slow
def test_unreachable_dask_scheduler_is_a_usage_error():
    """A scheduler nobody runs, or an address that is none: a usage error
    naming the address. The code
    waits 30 s for a scheduler; here Client's timeout is cut to 2 s so the
    test stays quick (the wrapping of the error is what is checked). In a
    process of its own, as the cluster test."""
    address = f"tcp://127.0.0.1:{free_port()}"
    # the malformed ones first: they are refused before any client is made
    done = subprocess.run([sys.executable, "-c", UNREACHABLE, "tcp://x", "tcp://127.0.0.1:notaport", address],
                          capture_output=True, text=True, timeout=DEADLINE)
    assert done.returncode == 0, done.stderr
    no_host, no_port, unreachable = done.stdout.splitlines()
    assert unreachable.startswith(f"cannot reach the Dask scheduler at {address}")
    # not addresses at all: refused before any wait
    assert no_host.startswith("dask takes a scheduler's address, as tcp://host:8786, not 'tcp://x'")
    assert no_port.startswith("dask takes a scheduler's address")


@pytest.mark.slow
def test_unreachable_dask_scheduler_with_the_real_timeout(real_archive):
    """The same with the code's own 30 s timeout, from the command line: one
    line, status 1; the study does not wait forever."""
    address = f"tcp://127.0.0.1:{free_port()}"
    done = subprocess.run([str(Path(sys.executable).with_name("wla")), "-a", real_archive.path, "shake", SDSC,
                           "--runs", "2", "--dask", address], capture_output=True, text=True, timeout=DEADLINE)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert f"cannot reach the Dask scheduler at {address}" in done.stderr


# -- a failing task ------------------------------------------------------------------------


def fail_on(bad: int, item: int) -> int:
    if item == bad:
        raise ValueError(f"task {item} failed")
    return item * item


@pytest.mark.parametrize("workers", [1, 2])
def test_task_error_reaches_the_caller(workers):
    """A task that raises ends the study with its exception, from this process
    or from a pool's worker; the pool's processes are gone afterwards (none
    left behind, nothing hanging)."""
    before = set(mp.active_children())
    items = range(6 * IN_FLIGHT)  # more than the pool keeps in flight
    with deadline():
        for bad in (0, 13, items[-1]):
            with executor(workers=workers) as ex, pytest.raises(ValueError, match=f"task {bad} failed"):
                for _ in ex.results(fail_on, bad, items):
                    pass
        with executor(workers=workers) as ex:  # and the next study runs as usual
            assert dict(ex.results(fail_on, -1, items)) == {i: i * i for i in items}
    assert set(mp.active_children()) <= before
