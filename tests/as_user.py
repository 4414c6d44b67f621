"""Running `wla` as another user (uid 65534, `nobody`) with no home: what an
installed copy meets when its user can write neither where it is installed
nor in a home folder. Only root can switch users, so these runs need root
and setpriv; otherwise the caller is told why to skip."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

NOBODY = 65534
ROOT = Path(__file__).resolve().parent.parent
WLA = Path(sys.executable).with_name("wla")


def shared_folder() -> Path:
    """A fresh folder that user 65534 owns, where pytest's own (mode 0700) is
    out of its reach. The caller removes it."""
    folder = Path(tempfile.mkdtemp(prefix="wla-as-user-"))
    os.chown(folder, NOBODY, NOBODY)
    return folder


def _closed_ancestor(path: Path) -> Path | None:
    """The first folder above `path` that other users cannot enter."""
    for folder in reversed(path.parents):
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return folder
    return None


def as_nobody(folder: Path) -> tuple[list[str] | None, str]:
    """The command prefix that runs a program as user 65534 with a bare
    environment (HOME=/nonexistent, TMPDIR=`folder`), or None and the reason
    it cannot be done here.

    When the interpreter lies below a folder that only root may enter (a
    pyenv Python in /root), the prefix runs in a private mount namespace
    where that folder is replaced by an open one showing only the path to
    the interpreter; nothing outside the namespace changes."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None, "running as another user needs root"
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None, "setpriv (util-linux) is missing"
    prefix = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
              "env", "-i", f"PATH={os.defpath}", "HOME=/nonexistent", f"TMPDIR={folder}", "LANG=C.UTF-8"]
    probe = [sys.executable, "-c", "import wla"]  # the interpreter, the venv and the project are readable
    if _runs(prefix + probe):
        return prefix, ""
    python = Path(sys.executable).resolve()
    closed, unshare = _closed_ancestor(python), shutil.which("unshare")
    if closed is None or unshare is None:
        return None, f"user {NOBODY} cannot run {python} (and no private mount namespace to open its folder)"
    child = python.relative_to(closed).parts[0]
    view = Path(tempfile.mkdtemp(dir=folder, prefix="view-"))
    view.chmod(0o755)
    (view / child).mkdir()
    script = (f'mount --bind "{closed / child}" "{view / child}" && '
              f'mount --rbind "{view}" "{closed}" && exec "$@"')
    prefix = [unshare, "--mount", "--propagation", "private", "sh", "-c", script, "sh", *prefix]
    if _runs(prefix + probe):
        return prefix, ""
    return None, f"user {NOBODY} cannot run {python}, even with {closed} opened in a mount namespace"


def _runs(argv: list[str]) -> bool:
    try:
        return subprocess.run(argv, capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
