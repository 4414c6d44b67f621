"""The folder a site goes into, changed only where the site wrote before.

Its manifest, MARKER, lists every file a build wrote there (a format line,
then the paths, sorted, one a line: the same site gives the same bytes). A
rebuild removes only the listed files it does not write again, and the
folders that leaves empty, so what a user added (CNAME, notes/) stays.
Every path below the folder is walked one name at a time from an open
handle of the folder and never through a symbolic link, so nothing outside
it is written or removed. A folder that is the file system's root or the
home folder, a link that leads nowhere, a manifest wla did not write, a
link or someone else's file where the site writes: each is refused before
anything changes."""
from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from wla.archive.kernel.errors import UsageError, WlaError, shorten, visible

MARKER = ".wla-site"
FORMAT = "wla-site manifest 1"
MAX_MANIFEST = 64 * 2**20  # bytes: a million pages' paths; more is not a manifest wla wrote
# A name the site writes: what paths.py keeps of a log name, never hidden (so never '.' or '..').
_NAME = re.compile(r"[A-Za-z0-9_@~-][A-Za-z0-9_.@~-]*")
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_GIVE_ANOTHER = "give a new or empty folder"
_EARLIER = b"A site written by `wla site`"  # the marker of wla before the manifest


def _link(path: Path) -> UsageError:
    return UsageError(f"{path}: a symbolic link; wla writes and removes nothing through one "
                      "(remove the link, or give another folder)")


class _Walk:
    """Folders below the root by their path, each opened from its parent
    without following a link; made when `create`, else None when missing."""

    def __init__(self, root: Path, fd: int, create: bool):
        self.root, self.create = root, create
        self.fds: dict[tuple[str, ...], int | None] = {(): fd}

    def folder(self, parts: tuple[str, ...]) -> int | None:
        if parts in self.fds:
            return self.fds[parts]
        parent = self.folder(parts[:-1])
        fd = None if parent is None else self._open(parent, parts)
        self.fds[parts] = fd
        return fd

    def _open(self, parent: int, parts: tuple[str, ...]) -> int | None:
        name, path = parts[-1], self.root.joinpath(*parts)
        found = lstat(parent, name)
        if found is None and not self.create:
            return None
        if found is None:
            os.mkdir(name, 0o777, dir_fd=parent)
            found = lstat(parent, name)
        if stat.S_ISLNK(found.st_mode):
            raise _link(path)
        if not stat.S_ISDIR(found.st_mode):
            raise UsageError(f"{path}: not a folder, where the site has one; move it, or {_GIVE_ANOTHER}")
        try:
            return os.open(name, _DIR, dir_fd=parent)
        except OSError as e:  # changed since: a link now
            raise _link(path) from e

    def close(self) -> None:
        for parts, fd in self.fds.items():
            if parts and fd is not None:
                os.close(fd)
        self.fds = {(): self.fds[()]}


def lstat(folder: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _split(rel: str) -> tuple[tuple[str, ...], str]:
    parts = tuple(rel.split("/"))
    return parts[:-1], parts[-1]


def _manifest_text(paths: list[str] | set[str]) -> bytes:
    return "".join(line + "\n" for line in [FORMAT, *sorted(paths)]).encode("utf-8")


def _parse(data: bytes) -> list[str] | str:
    """The paths of a manifest, or why it is not one wla wrote."""
    if not data:
        return "it is empty"
    if len(data) > MAX_MANIFEST:
        return f"it is larger than {MAX_MANIFEST:,} bytes"
    if data.startswith(_EARLIER):
        return "a site of an earlier wla, which listed no files; remove its files by hand"
    if not data.startswith(FORMAT.encode() + b"\n"):
        return f"line 1 is not {FORMAT!r}"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "it is not UTF-8 text"
    if not text.endswith("\n"):
        return "its last line is cut"
    lines = text[:-1].split("\n")
    for n, entry in enumerate(lines[1:], start=2):
        if entry == MARKER or not all(_NAME.fullmatch(part) for part in entry.split("/")):
            return f"line {n}: {shorten(visible(entry), 200)!r} is not a path inside the folder"
        if n > 2 and entry <= lines[n - 2]:
            return f"line {n}: {shorten(visible(entry), 200)!r} is not after the line before (sorted, once each)"
    return lines[1:]


@dataclass
class SiteFolder:
    """An output folder as found: its open handle (None while it does not
    exist) and the paths its manifest lists."""

    root: Path
    fd: int | None
    listed: list[str]

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> SiteFolder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def install(self, staged: Path, written: list[str]) -> None:
        """Put the files `written` (site paths, their bytes in `staged`) into
        the folder, then remove the listed files not written again. A path
        that cannot be written (a link, someone else's file) is refused
        before anything changes."""
        if self.fd is None:
            try:
                self.root.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise WlaError(f"{self.root}: cannot make the folder: {e.strerror}") from e
            made = opened(self.root)  # checked again: it may have been made by another meanwhile
            self.fd, self.listed = made.fd, made.listed
        wanted, listed = sorted(written), set(self.listed)
        looking = _Walk(self.root, self.fd, create=False)
        try:
            for rel in wanted:
                self._check(looking, rel, listed)
        finally:
            looking.close()
        writing, looking = _Walk(self.root, self.fd, create=True), _Walk(self.root, self.fd, create=False)
        try:
            self._write(writing, MARKER, _manifest_text(listed | set(wanted)))  # covers a build cut short
            for rel in wanted:
                self._write(writing, rel, (staged / rel).read_bytes())
            _remove(looking, sorted(listed - set(wanted)))
            self._write(writing, MARKER, _manifest_text(wanted))
        finally:
            writing.close()
            looking.close()
        self.listed = wanted

    def _check(self, walk: _Walk, rel: str, listed: set[str]) -> None:
        parts, name = _split(rel)
        folder = walk.folder(parts)
        found = None if folder is None else lstat(folder, name)
        path = self.root / rel
        if found is None:
            return
        if stat.S_ISLNK(found.st_mode):
            raise _link(path)
        if not stat.S_ISREG(found.st_mode):
            raise UsageError(f"{path}: not a file, where the site writes one; move it, or {_GIVE_ANOTHER}")
        if rel not in listed:
            raise UsageError(f"{path}: a file not written by wla (not in {MARKER}); move it, or {_GIVE_ANOTHER}")
        if found.st_nlink > 1:
            raise UsageError(f"{path}: a file with another name (a hard link); wla writes no file it shares")

    def _write(self, walk: _Walk, rel: str, data: bytes) -> None:
        """Write without following a link and without truncating before the
        file is known to be a regular one of its own."""
        parts, name = _split(rel)
        folder = walk.folder(parts)
        path = self.root / rel
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666,
                         dir_fd=folder)
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.EMLINK):
                raise _link(path) from e
            raise WlaError(f"{path}: {e.strerror}") from e
        try:
            found = os.fstat(fd)
            if not stat.S_ISREG(found.st_mode) or found.st_nlink > 1:
                raise UsageError(f"{path}: not a file of the site's own; move it, or {_GIVE_ANOTHER}")
            os.ftruncate(fd, 0)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        except OSError as e:  # a full disk, a quota
            raise WlaError(f"{path}: {e.strerror}") from e
        finally:
            os.close(fd)


def _remove(walk: _Walk, stale: list[str]) -> None:
    """The files listed and not written again, if still regular files, then
    the folders that held them, if now empty. A link met on the way (made
    since the manifest was read) is left alone, as is all beyond it."""
    folders = set()
    for rel in stale:
        parts, name = _split(rel)
        folders.update(parts[:i] for i in range(1, len(parts) + 1))
        folder = _folder_or_none(walk, parts)
        found = None if folder is None else lstat(folder, name)
        if found is not None and stat.S_ISREG(found.st_mode):
            os.unlink(name, dir_fd=folder)
    for parts in sorted(folders, key=lambda p: (-len(p), p)):
        parent = _folder_or_none(walk, parts[:-1])
        if parent is None:
            continue
        try:
            os.rmdir(parts[-1], dir_fd=parent)  # never a link: rmdir does not follow one
        except OSError:  # not empty, gone, or not a folder: left as it is
            pass


def _folder_or_none(walk: _Walk, parts: tuple[str, ...]) -> int | None:
    try:
        return walk.folder(parts)
    except UsageError:
        return None


def _read_manifest(root: Path, fd: int) -> list[str]:
    path = root / MARKER
    try:
        mfd = os.open(MARKER, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EMLINK):
            raise _link(path) from e
        raise WlaError(f"{path}: {e.strerror}") from e
    try:
        if not stat.S_ISREG(os.fstat(mfd).st_mode):
            raise UsageError(f"{path}: not a file; wla changes nothing in {root}")
        chunks, size = [], 0
        while size <= MAX_MANIFEST and (chunk := os.read(mfd, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(mfd)
    found = _parse(b"".join(chunks))
    if isinstance(found, str):
        raise UsageError(f"{path}: not a list of files wla wrote ({found}); wla changes nothing in {root}; "
                         f"{_GIVE_ANOTHER}")
    walk = _Walk(root, fd, create=False)
    try:
        for rel in found:
            walk.folder(_split(rel)[0])
    finally:
        walk.close()
    return found


def _refuse_place(root: Path) -> None:
    """The output path itself: a link that leads nowhere, something not a
    folder, the file system's root, the home folder."""
    try:
        own = os.lstat(root)
    except FileNotFoundError:
        own = None
    except OSError as e:
        raise WlaError(f"{root}: {e.strerror}") from e
    if own is not None and stat.S_ISLNK(own.st_mode):
        try:
            os.stat(root)
        except OSError as e:
            what = {errno.ELOOP: "a symbolic link loop", errno.ENOENT: "a symbolic link to nothing"}
            raise UsageError(f"{root}: {what.get(e.errno, f'a symbolic link that cannot be followed ({e.strerror})')}; "
                             f"{_GIVE_ANOTHER}") from e
    if own is not None and not root.is_dir():
        raise UsageError(f"{root}: not a folder")
    real = os.path.realpath(root)
    if real == os.path.realpath(os.sep):
        raise UsageError(f"{root}: the root of the file system is no folder for a site; {_GIVE_ANOTHER}")
    try:
        home = os.path.realpath(Path.home())
    except (RuntimeError, KeyError):  # no home folder known
        home = None
    if real == home:
        raise UsageError(f"{root}: the home folder is no folder for a site; {_GIVE_ANOTHER}")


def opened(out_dir: str | os.PathLike) -> SiteFolder:
    """The output folder, checked: new, empty, or holding a manifest wla
    wrote whose every path lies inside it. Nothing is written."""
    root = Path(out_dir)
    _refuse_place(root)
    if not root.exists():
        return SiteFolder(root, None, [])
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as e:
        raise WlaError(f"{root}: {e.strerror}") from e
    try:
        names = os.listdir(fd)
        if MARKER not in names:
            if names:
                raise UsageError(f"{root}: the folder holds files and no site wla wrote; {_GIVE_ANOTHER}")
            return SiteFolder(root, fd, [])
        return SiteFolder(root, fd, _read_manifest(root, fd))
    except BaseException:
        os.close(fd)
        raise
