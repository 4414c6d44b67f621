"""The files a figure is written to: the format follows the extension,
checked before any work is done (a study of many runs is not lost to a
misnamed file at its end). No heavy import."""
from __future__ import annotations

import os
from pathlib import Path

from .errors import ParameterError, visible

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


def figure_format(path: str | os.PathLike, parameter: str = "path") -> str:
    """png, svg or pdf, as the file's extension says (in any case); else
    the error naming the file and the parameter that gave it."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ParameterError(f"{visible(os.fspath(path))}: {{{parameter}}} writes FILE.png, FILE.svg or FILE.pdf",
                             parameter)
    return FORMATS[suffix]
