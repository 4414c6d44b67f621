"""What a long command shows while it works: a progress bar or a spinner on
stderr, drawn by rich, and only where a person is watching.

The library only counts (`archive/kernel/progress.py`); this module draws the
counts. Nothing is shown with `--quiet`, with `--json`, or when stderr is
not a terminal; `WLA_PROGRESS=1` shows it as on a terminal anyway (tests,
a terminal wla cannot see), `WLA_PROGRESS=0` never. A display appears only
once its work has taken `DELAY` seconds, so a quick command draws nothing;
that delay is the one clock here, and it reaches stderr only: stdout and
every result are the same with or without a display. rich is imported only
when a display is shown, so start-up stays light.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from typing import Any, Iterator

from .app import RUN

ENV = "WLA_PROGRESS"
DELAY = 2.0  # seconds of work before a display appears


def mode(quiet: bool = False) -> str:
    """"off" when quiet (the command's --json, the run's --quiet), else as
    WLA_PROGRESS says ("forced": drawn as on a terminal), else "terminal"
    when stderr is one."""
    if quiet or RUN.get("quiet"):
        return "off"
    forced = os.environ.get(ENV, "").strip()
    if forced:
        return "off" if forced == "0" else "forced"
    try:
        return "terminal" if sys.stderr.isatty() else "off"
    except (AttributeError, ValueError):  # no stderr, or a closed one
        return "off"


class Display:
    """A display that shows nothing: what a command reports to when no one watches."""

    drawn = False  # a command may skip counting what only the display would show

    def __call__(self, done: int, total: int, what: str = "") -> None:
        """`done` of `total` units finished; `what` is under way (or a figure to show)."""

    @contextlib.contextmanager
    def above(self) -> Iterator[None]:
        """Print lines of the command's own meanwhile (ingest's one line per file)."""
        yield


class _Drawn(Display):
    """A rich progress bar (with a unit) or spinner (without), transient on
    stderr. rich is loaded when it appears: a command done sooner loads none."""

    drawn = True

    def __init__(self, what: str, unit: str, forced: bool, rate: bool = False):
        self._what, self._unit, self._forced, self._rate = what, unit, forced, rate
        self._since = time.monotonic()  # the elapsed time shown counts from here
        self._told: tuple[int, int, str] | None = None  # the last count, until there is a bar to show it
        self._bar: Any = None  # rich's Progress, once shown
        self._lock = threading.RLock()
        self._closed = False
        self._timer = threading.Timer(DELAY, self._appear)
        self._timer.daemon = True

    def open(self) -> None:
        if DELAY <= 0:
            self._appear()
        else:
            self._timer.start()

    def close(self) -> None:
        self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._bar is not None:
                self._bar.stop()

    def _appear(self) -> None:
        with self._lock:
            if self._closed or self._bar is not None:
                return
            from rich.console import Console
            from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            columns: list[Any] = [SpinnerColumn(), TextColumn("{task.description}", markup=False)]
            if self._unit:
                columns += [BarColumn(bar_width=24), TextColumn("{task.fields[count]}", markup=False)]
            columns += [TimeElapsedColumn()]
            if self._rate:
                from rich.progress import TimeRemainingColumn

                columns += [TextColumn("{task.fields[rate]}", markup=False), TextColumn("left"),
                            TimeRemainingColumn()]
            columns += [TextColumn("{task.fields[what]}", markup=False)]  # cut first
            console = Console(file=sys.stderr, force_terminal=True if self._forced else None)
            bar = Progress(*columns, console=console, transient=True, get_time=time.monotonic,
                           redirect_stdout=False, redirect_stderr=False)  # stdout stays wla's own
            self._task = bar.add_task(self._what, total=None, count="", what="", rate="")
            bar.tasks[0].start_time = self._since
            self._bar = bar
            if self._told is not None:
                self(*self._told)
            bar.start()

    def __call__(self, done: int, total: int, what: str = "") -> None:
        with self._lock:
            if self._bar is None:
                self._told = (done, total, what)
                return
            count = f"{done:,}/{total:,} {self._unit}" if self._unit else ""
            speed = self._bar.tasks[0].speed if self._rate else None
            rate = f"{speed:,.1f} {self._unit}/s" if speed else ""
            self._bar.update(self._task, completed=done, total=total, count=count, what=what, rate=rate)

    @contextlib.contextmanager
    def above(self) -> Iterator[None]:
        with self._lock:  # the display is taken away while the lines go out, then drawn again below them
            if self._bar is not None:
                self._bar.stop()
            try:
                yield
            finally:
                if self._bar is not None:
                    self._bar.start()


@contextlib.contextmanager
def display(what: str, unit: str = "", *, quiet: bool = False, rate: bool = False) -> Iterator[Display]:
    """A display for the work inside the block, labelled `what`: a bar
    counting `unit` once the work reports counts, a spinner with the elapsed
    time until then (or throughout, without a unit). `quiet`: the command's
    --json; `rate`: also units per second and the time left. Yields the
    callback the work reports to."""
    how = mode(quiet)
    if how == "off":
        yield Display()
        return
    drawn = _Drawn(what, unit, forced=how == "forced", rate=rate)
    drawn.open()
    try:
        yield drawn
    finally:
        drawn.close()
