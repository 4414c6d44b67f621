"""The archive's SQL, one file per concern, loaded at run time."""
from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load_sql(name: str) -> str:
    """The text of `schema/<name>.sql`."""
    return resources.files(__name__).joinpath(f"{name}.sql").read_text(encoding="utf-8")
