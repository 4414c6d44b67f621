"""Where the runs of a study are done: in this process, on a pool of local
processes, or on a Dask cluster. One interface: `results(task, shared,
items)` calls `task(shared, item)` for every item and yields (item, result)
pairs as they finish. `shared` (the workload and settings) goes to each
worker once, not with every task; at most a few tasks per worker are in
flight, so memory stays flat however many runs there are. The order of
completion varies; what a task returns depends on (shared, item) alone, so
callers that key results by item get the same answer from any executor.
A pool's workers end with the process that started them, even one killed
with kill -9, which cannot shut its pool down.
"""
from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from wla.archive.kernel.errors import OptionError, ParameterError, UsageError

Task = Callable[[Any, Any], Any]
IN_FLIGHT = 4  # tasks queued per worker: enough to keep it busy, few enough to stay small
# items per Dask task: a task's round trip through the scheduler costs a few
# milliseconds of the cluster's CPU, as much as a small simulation
BATCH = 8


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class Executor:
    """Runs tasks here, one after the other (one worker)."""

    name = "serial"
    workers = 1

    def results(self, task: Task, shared: Any, items: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        for item in items:
            yield item, task(shared, item)

    def close(self) -> None:
        """Give back what the executor holds (processes, a connection)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


_SHARED: Any = None  # in a pool's worker: what every task of the study shares
PR_SET_PDEATHSIG = 1  # linux/prctl.h
PARENT_POLL = 1.0  # seconds between a worker's looks at its parent, where the kernel cannot tell it


def _keep(shared: Any, parent: int) -> None:
    """A pool worker's start: keep what the tasks share, and end with the
    process that started it. A parent killed with kill -9 cannot shut its
    pool down, and its workers, each holding a workload, would stay."""
    global _SHARED
    _SHARED = shared
    _die_with(parent)


def _die_with(parent: int) -> None:
    """On Linux the kernel kills this process when its parent ends (strictly,
    the thread that forked it: the one iterating `LocalPool.results`, which
    outlives the pool); and everywhere a thread ends it once its parent has
    changed (an orphan is handed to another process)."""
    import signal
    import sys
    import threading

    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no prctl: the thread below still ends it
            pass
    if os.getppid() != parent:  # the parent ended before the line above
        os._exit(1)

    def watch() -> None:
        import time

        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _call(task: Task, item: Any) -> tuple[Any, Any]:
    return item, task(_SHARED, item)


def _each(task: Task, shared: Any, batch: list) -> list:
    """A Dask task: several items, one after the other."""
    return [task(shared, item) for item in batch]


class LocalPool(Executor):
    """A pool of local processes; each receives `shared` once, when it starts."""

    name = "local"

    def __init__(self, workers: int):
        self.workers = workers

    def results(self, task: Task, shared: Any, items: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        import multiprocessing as mp
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        # fork where there is one: workers start with the compiled simulator
        # already loaded; elsewhere they import it
        method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        pool = ProcessPoolExecutor(self.workers, mp_context=mp.get_context(method), initializer=_keep,
                                   initargs=(shared, os.getpid()))
        try:
            pending: set = set()
            for item in items:
                pending.add(pool.submit(_call, task, item))
                if len(pending) >= self.workers * IN_FLIGHT:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    yield from (f.result() for f in done)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                yield from (f.result() for f in done)
        finally:  # stopped early (an error, Ctrl-C): what has not started is dropped
            pool.shutdown(wait=True, cancel_futures=True)


class DaskCluster(Executor):
    """An existing dask.distributed cluster; `shared` is scattered to every
    worker once and the tasks refer to it."""

    name = "dask"

    def __init__(self, address: str):
        try:
            from distributed import Client
        except ImportError:  # pragma: no cover - a dependency
            raise ParameterError("{dask} needs dask.distributed (pip install 'dask[distributed]')", "dask") from None
        from distributed.comm.addressing import parse_address, parse_host_port

        try:  # not an address (tcp://x, a port that is not a number): refused before any connection
            scheme, where = parse_address(address)
            if scheme in ("tcp", "tls"):
                parse_host_port(where)
        except (ValueError, TypeError) as e:
            raise OptionError("dask",
                              f"takes a scheduler's address, as tcp://host:8786, not {address!r}: {e}") from None
        try:
            self.client = Client(address, timeout="30s")
        except (OSError, TimeoutError) as e:  # nobody answers there
            raise UsageError(f"cannot reach the Dask scheduler at {address}: {e}") from None
        self.address = address
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))

    def results(self, task: Task, shared: Any, items: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        from distributed import as_completed

        ref = self.client.scatter(shared, broadcast=True, hash=False)
        batch_of: dict[str, list] = {}
        window = as_completed()
        todo = iter(items)

        def submit() -> bool:
            """Send the next few items as one task; False once none are left."""
            batch = list(itertools.islice(todo, BATCH))
            if not batch:
                return False
            future = self.client.submit(_each, task, ref, batch, pure=False)
            batch_of[future.key] = batch
            window.add(future)
            return True

        while len(batch_of) < self.workers * IN_FLIGHT and submit():
            pass
        for future in window:
            batch = batch_of.pop(future.key)
            results = future.result()
            future.release()
            submit()
            yield from zip(batch, results)

    def close(self) -> None:
        self.client.close()


def executor(workers: int | None = None, dask: str | None = None) -> Executor:
    """The executor the options ask for: a Dask cluster at `dask`, else a
    local pool of `workers` processes (default: the cores; 1: this process)."""
    if dask:
        if workers is not None:
            raise ParameterError("give {workers} or {dask}, not both (a cluster has its own workers)",
                                 "workers", "dask")
        return DaskCluster(dask)
    n = default_workers() if workers is None else workers
    if n < 1:
        raise OptionError("workers", f"is at least 1, not {n}")
    return Executor() if n == 1 else LocalPool(n)


def fill_runs(values: Any, task: Callable[[Any, int], tuple], shared: Any, runs: int, workers: int | None,
              dask: str | None, progress: Any = None, after_first: Callable[[], None] | None = None) -> None:
    """Row i of `values` from task(shared, i) for runs 1..runs, on the
    executor the options ask for, each counted on `progress` as it comes."""
    from wla.archive.kernel.progress import tell

    done = 0
    tell(progress, done, runs, "")
    with executor(workers, dask) as ex:
        for run, row in ex.results(task, shared, range(1, runs + 1)):
            values[run] = row
            done += 1
            tell(progress, done, runs, "")
            if done == 1 and after_first is not None:
                after_first()
