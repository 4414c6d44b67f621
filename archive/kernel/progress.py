"""How long work tells whoever called it how far it has got.

Functions that can run for minutes (building a version, solving the
capacity programs) take an optional callback and call it as they advance.
The library only counts; showing the counts is the caller's business (the
command line draws them on a terminal), so nothing here knows of one, and
no result depends on whether anyone listens.
"""
from __future__ import annotations

from typing import Callable

# progress(done, total, what): `done` of `total` units are finished; `what`
# names the unit now under way ("" once all are done).
Progress = Callable[[int, int, str], None]

# part(done, total): `done` of `total` parts of one unit are finished (the
# integer programs of one capacity step).
Parts = Callable[[int, int], None]


def tell(progress: Progress | None, done: int, total: int, what: str = "") -> None:
    """Call `progress` if there is one."""
    if progress is not None:
        progress(done, total, what)


def within(progress: Progress | None, done: int, total: int, what: str) -> Parts | None:
    """The callback for the parts of the unit `what` (unit `done` + 1 of
    `total`): each call tells `progress` that unit's name and its parts done."""
    if progress is None:
        return None
    return lambda part, parts: progress(done, total, f"{what} {part}/{parts}")
