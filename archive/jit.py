"""Where numba keeps wla's compiled code: one decision for every compiled module.

numba's `cache=True` keeps compiled code beside the source (__pycache__) or
in the user's cache folder. When neither can be written (an installed copy
run by a user without a home) numba refuses to decorate the function, so
every command would fail at import. `njit` here is numba's, with the cache
put where it can be written: numba's own places first, then a private folder
under the temporary directory, and if that fails too no cache at all (the
code is compiled on every run; a one-line note on stderr says so).
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile
from typing import Any, Callable

CACHE_ENV = "NUMBA_CACHE_DIR"
NOTE = ("wla: note: no writable folder for compiled code (set NUMBA_CACHE_DIR to one); "
        "compiling on every run, which is slower")

_state = {"fallback": None, "noted": False}  # the folder chosen once numba's own fail


def _owner() -> str:
    if hasattr(os, "getuid"):
        return str(os.getuid())
    try:
        import getpass

        return getpass.getuser()
    except Exception:  # no user name to be found: one shared name, still checked below
        return "user"


def private_temp_folder() -> str | None:
    """A folder under the temporary directory that only this user can write,
    made if needed; None when there is none. Another user's folder of that
    name is never used: numba loads pickled code from its cache."""
    try:
        folder = os.path.join(tempfile.gettempdir(), f"wla-numba-cache-{_owner()}")
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except (OSError, ValueError):  # gettempdir() finds no usable folder: FileNotFoundError
        return None
    try:
        st = os.lstat(folder)
    except OSError:
        return None
    mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    if not stat.S_ISDIR(st.st_mode) or not mine or st.st_mode & 0o022:
        return None
    return folder


def _use_folder(folder: str) -> None:
    """Point numba's cache at `folder`: the variable for numba imported later
    (and subprocesses), the setting for the numba already imported."""
    from numba.core import config

    os.environ[CACHE_ENV] = folder
    config.CACHE_DIR = folder


def _note() -> None:
    if not _state["noted"]:
        _state["noted"] = True
        print(NOTE, file=sys.stderr)


def njit(*args: Any, **options: Any) -> Any:
    """numba.njit, used as @njit or @njit(...); `cache=True` caches where it can."""
    if args and callable(args[0]) and len(args) == 1 and not options:
        return _compile(args[0], {})
    return lambda fn: _compile(fn, options)


def _compile(fn: Callable, options: dict) -> Any:
    import numba  # here rather than at import: this module is cheap to import

    if not options.get("cache"):
        return numba.njit(**options)(fn)
    try:
        return numba.njit(**options)(fn)
    except RuntimeError:  # numba found no locator for the cache: none of its folders is writable
        pass
    if _state["fallback"] is None:
        _state["fallback"] = private_temp_folder() or ""
        if _state["fallback"]:
            _use_folder(_state["fallback"])
    if _state["fallback"]:
        try:
            return numba.njit(**options)(fn)
        except RuntimeError:
            pass
    _note()
    return numba.njit(**{**options, "cache": False})(fn)
