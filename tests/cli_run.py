"""Running the `wla` command in-process, as a user would from a shell: the
same entry point, its exit status and what it printed on each stream."""
from __future__ import annotations

import contextlib
import io
import os
import sys
from dataclasses import dataclass

from wla.cli.main import main


@dataclass(frozen=True)
class Run:
    status: int
    out: str
    err: str

    def one_error_line(self) -> str:
        """The single line of a refusal: status 1, one stderr line, no traceback."""
        assert self.status == 1, (self.status, self.out, self.err)
        assert "Traceback" not in self.err and "Traceback" not in self.out, self.err
        assert self.err.count("\n") == 1 and self.err.startswith("wla: "), repr(self.err)
        return self.err.rstrip("\n")


def wla(*args: str | os.PathLike, archive: str | os.PathLike | None = None) -> Run:
    """`wla [-a ARCHIVE] ARGS...` through `wla.cli.main.main`; never raises."""
    argv = ["wla"] + (["--archive", str(archive)] if archive is not None else []) + [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv
    sys.argv = argv
    status = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
            except SystemExit as e:
                code = e.code
                status = code if isinstance(code, int) else (0 if code is None else 1)
                if not isinstance(code, (int, type(None))):
                    err.write(f"{code}\n")
    finally:
        sys.argv = saved
    return Run(status, out.getvalue(), err.getvalue())
