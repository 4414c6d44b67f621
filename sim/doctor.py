"""What `wla doctor` reports: the versions wla runs with, the archive a
command would use, and whether numba's cache holds wla's compiled code (a
cold part is compiled by the first run that needs it, which then takes
seconds to a minute longer)."""
from __future__ import annotations

import os
import platform
from importlib import metadata

import wla.archive.analysis.stats  # noqa: F401  (registers the statistics' compiled part)
import wla.archive.swf  # noqa: F401  (registers the SWF reader's)
from wla.archive.context import archive_path
from wla.archive.kernel import jit

from . import parts  # noqa: F401  (the simulator's; wla.sim imports it first anyway)

# The libraries whose versions decide what wla computes and how fast it starts.
LIBRARIES = ("duckdb", "numba", "numpy", "pandas", "scipy", "sqlglot")


# The order `wla doctor` lists the parts in: the reader, the simulator, the statistics.
ORDER = ("wla.archive.swf.", "wla.sim.", "wla.archive.analysis.stats.")


def compiled_parts() -> tuple[jit.Part, ...]:
    """Every compiled part of wla (the packages that hold one are imported
    here, which registers them), in the order of ORDER."""
    def rank(part: jit.Part) -> int:
        return next((i for i, prefix in enumerate(ORDER) if part.modules[0].startswith(prefix)), len(ORDER))

    return tuple(sorted(jit.PARTS, key=rank))


def _version(distribution: str) -> str | None:
    """The installed version, read from the package's metadata without importing it."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def doctor(archive: str | os.PathLike | None = None, warm: bool = False) -> dict:
    """wla's and Python's versions, the libraries', the archive file a
    command would use (`archive`, else $WLA_ARCHIVE, else ./archive.duckdb)
    and the state of each compiled part in numba's cache; with `warm`, the
    cold parts are compiled first."""
    from wla import __version__

    path = os.path.abspath(archive_path(archive))
    every = compiled_parts()
    states = jit.warm(every) if warm else [jit.cache_state(part) for part in every]
    return {
        "wla": __version__,
        "python": platform.python_version(),
        "libraries": {name: _version(name) for name in LIBRARIES},
        "archive": {"path": path, "exists": os.path.isfile(path)},
        "cache_folder": os.environ.get(jit.CACHE_ENV) or None,
        "compiled": states,
    }
