"""`wla doctor`: what wla runs with, and whether its compiled code is ready."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from . import options, text
from .app import app, context
from .present import show


@app.command("doctor")
def doctor_cmd(warm: bool = options.Warm, as_json: bool = options.Json,
    wide: bool = options.Wide,
               archive: Optional[Path] = options.Archive) -> None:
    """Versions of wla and its libraries, the archive it would use, whether its compiled code is cached."""
    from wla.sim.doctor import doctor

    show(doctor(context(archive).path, warm=warm), as_json, text.doctor, wide=wide)
