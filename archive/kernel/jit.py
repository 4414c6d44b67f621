"""Where numba keeps wla's compiled code, what a run says when it must
compile, and whether it will have to: one decision for every compiled module.

numba's `cache=True` keeps compiled code beside the source (__pycache__) or
in the user's cache folder. When neither can be written (an installed copy
run by a user without a home) numba refuses to decorate the function, so
every command would fail at import. `njit` here is numba's, with the cache
put where it can be written: numba's own places first, then a private folder
under the temporary directory, and if that fails too no cache at all (the
code is compiled on every run; a one-line note on stderr says so).

Compiling takes from seconds to a minute, once per installation and change
of the source; later runs load the code from the cache in a fraction of a
second. So that a first run is not a silent wait, a run about to compile
says so in one line on stderr: numba announces each compile its cache
could not spare, and only then. `cache_state` says, without compiling,
whether the cache holds a part for this machine and this source, and
`warm` compiles what it lacks (`wla doctor`, `wla doctor --warm`).

The parts are not named here: the kernel is the floor every other stands on,
so the packages that compile register theirs (`register`) when imported, and
`wla.sim.doctor.compiled_parts` imports them all.
"""
from __future__ import annotations

import importlib
import os
import stat
import sys
import tempfile
from dataclasses import dataclass
from typing import Any, Callable

CACHE_ENV = "NUMBA_CACHE_DIR"
NOTE = ("wla: note: no writable folder for compiled code (set NUMBA_CACHE_DIR to one); "
        "compiling on every run, which is slower")

_state = {"fallback": None, "noted": False}  # the folder chosen once numba's own fail


@dataclass(frozen=True)
class Part:
    """A compiled part of wla: the modules whose functions it compiles, the
    functions that load or compile them through the paths real runs take
    ("module:name"), and about how long compiling takes on two cores."""

    name: str
    modules: tuple[str, ...]
    warm: tuple[str, ...]
    seconds: int


# Every module that compiles with `njit` belongs to one part (tests/test_startup.py).
# The package that holds a part registers it when it is imported, before any
# of its modules compiles: this module names none of them.
PARTS: tuple[Part, ...] = ()


def register(part: Part) -> Part:
    """Make `part` one of wla's compiled parts (once; again changes nothing)."""
    global PARTS
    if all(p.name != part.name for p in PARTS):
        PARTS = PARTS + (part,)
    return part


# told: whether this process has said it compiles (once: a second part's
# compile is part of the same wait); a forked worker inherits it.
_compiles = {"listening": False, "told": False, "skip_blas_probe": False}


def compiling_notice(part: Part) -> str:
    return (f"wla: compiling {part.name} once, about {part.seconds} s on two cores "
            "(later runs load it from the cache)")


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
    _import_numba()
    import numba  # here rather than at import: this module is cheap to import

    if not options.get("cache"):
        return numba.njit(**options)(fn)
    try:
        return _keyed_by_part(numba.njit(**options)(fn))
    except RuntimeError:  # numba found no locator for the cache: none of its folders is writable
        pass
    if _state["fallback"] is None:
        _state["fallback"] = private_temp_folder() or ""
        if _state["fallback"]:
            _use_folder(_state["fallback"])
    if _state["fallback"]:
        try:
            return _keyed_by_part(numba.njit(**options)(fn))
        except RuntimeError:
            pass
    _note()
    return numba.njit(**{**options, "cache": False})(fn)


def _keyed_by_part(dispatcher: Any) -> Any:
    """Key the cached code of `dispatcher` by the sources of every module of
    its part as well. numba checks only the source file of the function it
    loads, while the code it keeps has the functions it calls from other
    modules compiled in: after a change there alone, it would load code
    that no longer matches the source."""
    cache = getattr(dispatcher, "_cache", None)
    part = part_of(getattr(dispatcher.py_func, "__module__", ""))
    if cache is None or part is None or len(part.modules) < 2:
        return dispatcher
    own = cache._index_key

    def index_key(sig: Any, codegen: Any) -> tuple:
        return own(sig, codegen) + (part_digest(part),)

    cache._index_key = index_key
    return dispatcher


_digests: dict[str, str] = {}


def part_digest(part: Part) -> str:
    """sha256 of the sources of the part's modules, in order."""
    if part.name not in _digests:
        import hashlib
        import importlib.util

        h = hashlib.sha256()
        for module in part.modules:
            spec = importlib.util.find_spec(module)
            with open(spec.origin, "rb") as fh:
                h.update(fh.read())
        _digests[part.name] = h.hexdigest()
    return _digests[part.name]


# -- what a run pays for numba ---------------------------------------------------------


def skip_blas_probe() -> None:
    """For the command line: when numba is imported, spare it the probe for
    BLAS, which imports scipy.linalg (a third of a second) so that np.dot
    could call it. wla's compiled code does no linear algebra; numba's
    inner products then use a loop of their own. Left to numba for any
    other program that imports wla, whose own numba code may use it."""
    _compiles["skip_blas_probe"] = True


def _import_numba() -> None:
    """numba, and once: the listener that announces compiles."""
    if _compiles["listening"]:
        return
    if _compiles["skip_blas_probe"] and "numba.np.arraymath" not in sys.modules \
            and "scipy.linalg.cython_blas" not in sys.modules:
        sys.modules["scipy.linalg.cython_blas"] = None  # import fails: numba takes it as no BLAS
        try:
            import numba.np.arraymath  # noqa: F401  (probes once, at its import)
        finally:
            del sys.modules["scipy.linalg.cython_blas"]
    from numba.core import event

    class _Announce(event.Listener):
        def on_start(self, ev: Any) -> None:
            _announce(ev.data.get("dispatcher") if isinstance(ev.data, dict) else None)

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", _Announce())
    _compiles["listening"] = True


def part_of(module: str) -> Part | None:
    return next((p for p in PARTS if module in p.modules), None)


def _announce(dispatcher: Any) -> None:
    """The one line before a part of wla compiles: once per process, before
    its first compile, and only when the code will be kept (else NOTE has
    said it all)."""
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "")
    part = part_of(module)
    if part is None or _compiles["told"] or not _keeps(dispatcher):
        return
    _tell(part)


def _tell(part: Part) -> None:
    _compiles["told"] = True
    print(compiling_notice(part), file=sys.stderr, flush=True)


def _keeps(dispatcher: Any) -> bool:
    """Whether numba keeps what it compiles for `dispatcher` (not a NullCache)."""
    return getattr(getattr(dispatcher, "_cache", None), "_cache_file", None) is not None


# -- the cache, asked without compiling --------------------------------------------------


def _function(spec: str) -> Any:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def compiled_functions(part: Part) -> list[Any]:
    """The numba functions of `part` whose code numba keeps: every cached
    function of its modules but those inlined into their callers."""
    found = []
    for module in part.modules:
        try:
            space = vars(importlib.import_module(module))
        except ModuleNotFoundError:  # a part being written
            continue
        found += [f for f in space.values()
                  if getattr(getattr(f, "py_func", None), "__module__", None) == module
                  and getattr(f, "targetoptions", {}).get("inline", "never") == "never" and _keeps(f)]
    return found


def held(dispatcher: Any) -> bool:
    """Whether numba's cache holds compiled code of `dispatcher` for this
    source, this numba and this machine, as numba checks before loading it:
    the index is for this source file (its stamp) and numba, and one entry
    is for this bytecode and this CPU (numba's index key but for the
    signature, which the real call decides)."""
    cache = dispatcher._cache
    files = cache._cache_file
    index = files._load_index()  # empty when missing, stale or of another numba
    wanted = cache._index_key(None, dispatcher.targetctx.codegen())[1:]
    return any(tuple(key[1:]) == wanted and os.path.exists(files._data_path(name))
               for key, name in index.items())


def cache_state(part: Part) -> dict:
    """Whether numba's cache holds `part` for this machine ("warm": a run
    loads it; "cold": the next run that needs it compiles it), and the
    folder it is kept in. Imports the part's modules, compiles nothing;
    "unknown" when this numba keeps its cache in a way not understood here."""
    try:
        functions = compiled_functions(part)
        state = "warm" if functions and all(held(f) for f in functions) else "cold"
        folders = sorted({f._cache._cache_path for f in functions})
    except (AttributeError, TypeError, ValueError, OSError):
        return {"part": part.name, "state": "unknown", "folder": None}
    return {"part": part.name, "state": state, "folder": folders[0] if folders else None}


def warm(parts: tuple[Part, ...] | None = None) -> list[dict]:
    """Load each part of `parts` (every part registered so far when None)
    through the path real runs take, compiling the ones the cache lacks
    (each with its notice: a wait asked for, part by part); their states
    after."""
    parts = PARTS if parts is None else parts
    done: set[str] = set()
    # The cold ones as asked: a part compiled on the way by an earlier one's
    # callers is still named, as the wait it was.
    cold = [part for part in parts if cache_state(part)["state"] != "warm"]
    for part in cold:
        _tell(part)  # asked to compile them all: each part says so as it starts
        for spec in part.warm:
            if spec not in done:
                _function(spec)()
                done.add(spec)
    return [cache_state(part) for part in parts]
