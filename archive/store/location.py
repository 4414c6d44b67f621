"""Which archive file a run uses: the one given, else $WLA_ARCHIVE, else
./archive.duckdb. Here rather than in `context.py`, which opens the file
through `file.py`: `file.py` needs the default too, and imports nothing that
imports it back."""
from __future__ import annotations

import os

ENV_PATH = "WLA_ARCHIVE"
DEFAULT_PATH = "archive.duckdb"


def archive_path(path: str | os.PathLike | None = None) -> str:
    """The archive file: `path` when given, else $WLA_ARCHIVE, else ./archive.duckdb."""
    return os.fspath(path) if path else os.environ.get(ENV_PATH) or DEFAULT_PATH
