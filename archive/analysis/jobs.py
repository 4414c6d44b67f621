"""A log's (or version's) jobs as a DataFrame, with the facts analyses need."""
from __future__ import annotations

import pandas as pd

from ..store.catalog import log_facts
from ..store.file import Archive
from ..store.select import log_query


def log_jobs(archive: Archive, name: str, where: str | None = None,
             exclude: str | None = None) -> tuple[pd.DataFrame, dict]:
    """The jobs as written (line_no and the 18 fields, file order), narrowed
    by predicates, and the log's row of facts (machine_size, unix_start_time,
    tz, ...)."""
    return archive.df(log_query(archive, name, where, exclude)), log_facts(archive, name)
