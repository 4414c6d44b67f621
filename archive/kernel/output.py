"""Writing the files wla makes: one writer, so that the same content always
gives the same bytes."""
from __future__ import annotations

import gzip
import os
from pathlib import Path


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write `data`, gzip'd when the name ends in .gz (any case). The gzip
    header holds no file name and mtime 0, so two writes of the same data
    (two exports of one log, two conversions of one file) are identical."""
    if str(path).lower().endswith(".gz"):
        with open(path, "wb") as fh, gzip.GzipFile(filename="", mode="wb", fileobj=fh,
                                                   compresslevel=6, mtime=0) as gz:
            gz.write(data)
    else:
        Path(path).write_bytes(data)
