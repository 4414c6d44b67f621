"""A (shaken) workload as an SWF file, so that anyone can replay run i of a
study elsewhere: the simulated jobs in arrival order (stable: ties keep log
order) with their own job numbers, the fields the simulator reads (submit,
run, processors allocated and requested, requested time, user) and -1 for
the rest; MaxProcs gives the machine; Note lines say how it was made.
Values are written exactly: whole numbers as integers, others with as many
digits as bring back the same double."""
from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np
from wla.archive.kernel.errors import OptionError, UsageError

from ..workload import Workload


def _number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def workload_swf(workload: Workload, notes: list[str]) -> str:
    """The SWF text: header, then one job line per simulated job."""
    w = workload
    lines = ["; Version: 2.2", f"; MaxProcs: {w.P}", f"; MaxNodes: {w.P}"]
    lines += [f"; Note: {n}" for n in notes]
    order = np.argsort(w.submit, kind="stable")
    for i in order:
        user = int(w.user[i])
        fields = [str(int(w.job[i])), _number(w.submit[i]), "-1", _number(w.run[i]), str(int(w.procs[i])),
                  "-1", "-1", str(int(w.procs[i])), _number(w.estimate[i]), "-1", "-1",
                  str(user) if user >= 0 else "-1", "-1", "-1", "-1", "-1", "-1", "-1"]
        lines.append(" ".join(fields))
    return "\n".join(lines) + "\n"


def write_workload(workload: Workload, path: str | os.PathLike, notes: list[str]) -> Path:
    """Write FILE.swf, or FILE.swf.gz compressed."""
    path = Path(path)
    if not (path.name.endswith(".swf") or path.name.endswith(".swf.gz")):
        raise OptionError("path", f"writes FILE.swf or FILE.swf.gz, not {path.name}")
    data = workload_swf(workload, notes).encode()
    try:
        if path.name.endswith(".gz"):
            path.write_bytes(gzip.compress(data, mtime=0))
        else:
            path.write_bytes(data)
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from None
    return path
