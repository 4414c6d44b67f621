"""`pull`: the catalog's logs from the web into the archive.

Every file is downloaded first, with the archive closed when a path was
given, since a download can take minutes and an open writer would keep
every reader out; then the archive is opened once and what arrived is
ingested. Downloads are kept (by default in `pwa/` beside the archive
file), so a second pull checks the file it has and downloads nothing.
A host that answers none of a log's requests is not asked for the logs
after it: they are `skipped`, and the one failure says so.
"""
from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable
from urllib.parse import urlsplit

from ..context import archive_path
from ..kernel import ranges
from ..kernel.errors import InputError, Unreachable, WlaError, visible
from ..kernel.progress import Progress, tell
from ..kernel.units import count
from ..swf.rawfile import not_regular
from .catalog import Catalog, Entry, choose_base_url, load_catalog, select
from .download import ATTEMPTS, BACKOFF, Limits, fetch, part_path
from .verify import Checked, check, check_content

if TYPE_CHECKING:
    from ..store.file import Archive
    from ..store.ingest import IngestResult

DEFAULT_DIR = "pwa"  # beside the archive file: the Parallel Workloads Archive's files
HELD = ("downloaded", "resumed", "verified", "kept")  # a file is there to ingest
# When a download is given up: the documented exceptions to "nothing depends
# on the clock", which decide when to stop, never what is kept.
DEADLINE = 600  # seconds for one file, every attempt and wait included
MIN_RATE = 1024  # bytes/s an attempt must average over RATE_WINDOW seconds
RATE_WINDOW = 30
READ_TIMEOUT = 30  # seconds one read may wait for a byte
MAX_SIZE = 1_073_741_824  # bytes (1 GiB) of a log the catalog gives no size for


@dataclass
class PullResult:
    name: str
    url: str
    file: str  # where the .gz is kept
    status: str  # one of HELD, or 'refused' (not the catalog's file, or not a log), 'failed' (not
    # downloaded) or 'skipped' (its host answered nothing for an earlier log)
    size: int = 0
    sha256: str = ""
    verified: bool = False  # size and sum matched the catalog's (False: it has neither, or refused)
    resumed_from: int = 0  # the byte a resumed download went on from
    attempts: int = 0  # requests made (0: the file was already here)
    message: str = ""  # why it was refused or failed, or what else happened
    ingest: IngestResult | None = None
    error: WlaError | None = None

    def to_dict(self) -> dict[str, object]:
        ingested = self.ingest
        return {
            "name": self.name, "url": self.url, "file": self.file, "status": self.status,
            "size": self.size, "sha256": self.sha256 or None, "verified": self.verified,
            "resumed_from": self.resumed_from, "attempts": self.attempts, "message": self.message or None,
            "ingest": None if ingested is None else {"status": ingested.status, "jobs": ingested.jobs,
                                                     "message": ingested.message},
        }


def download_dir(archive: str | os.PathLike | None, directory: str | os.PathLike | None = None) -> Path:
    """Where downloads go: `directory`, else `pwa` beside the archive file."""
    if directory is not None:
        return Path(directory)
    return Path(archive_path(archive)).parent / DEFAULT_DIR


def pull(
    archive: Archive | str | os.PathLike | None,
    names: Iterable[str] = (),
    all: bool = False,  # the command's --all
    base_url: str | None = None,
    directory: str | os.PathLike | None = None,
    progress: Progress | None = None,
    *,
    attempts: int = ATTEMPTS,
    backoff: float = BACKOFF,
    sleep: Callable[[float], None] = time.sleep,
    deadline: float = DEADLINE,
    min_rate: float = MIN_RATE,
    rate_window: float = RATE_WINDOW,
    read_timeout: float = READ_TIMEOUT,
    max_size: int = MAX_SIZE,
    catalog: Catalog | None = None,
) -> list[PullResult]:
    """Download the logs named (or all the catalog's) that are missing or
    incomplete in `directory`, check each against the catalog (and that it
    is gzip'd SWF), and ingest every file held. `archive`: an open writable
    Archive, or the path of one (created if need be; opened only to
    ingest). `progress(bytes, total, log)` as bytes arrive. One result per
    log, in the order asked; a log refused or failed is a result too (with
    `error`), and the others go on, but for those of a host that did not
    answer. `deadline`, `min_rate` over `rate_window`, `read_timeout`:
    when a file is given up; `max_size`: the cap of a file of unknown size."""
    from ..store.file import Archive

    limits = Limits(ranges.number("deadline", deadline, 0, 1e7, low_open=True),
                    ranges.number("min_rate", min_rate, 0),
                    ranges.number("rate_window", rate_window, 0, 1e7, low_open=True),
                    ranges.number("read_timeout", read_timeout, 0, 1e7, low_open=True),
                    ranges.whole("max_size", max_size, 1, ranges.INT64[1]))
    catalog = catalog or load_catalog()
    entries = select(catalog, names, all)
    base = choose_base_url(catalog, base_url)
    is_open = isinstance(archive, Archive)
    folder = download_dir(archive.path if is_open else archive, directory)
    if is_open:
        archive.require_writable()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise WlaError(f"{folder}: cannot make the download folder: {e.strerror or e}") from None
    total = sum(e.size or 0 for e in entries if not (folder / e.file_name).exists())
    tally = _Tally(progress, total)
    down: dict[str, PullResult] = {}  # host -> the result that found it answering nothing
    results = [_get(entry, base, folder, tally, attempts, backoff, sleep, limits, down) for entry in entries]
    tally.finish()
    for host, first in down.items():
        skipped = sum(r.status == "skipped" and _host(r.url) == host for r in results)
        if skipped:
            first.message += f"; {count(skipped, 'more log')} from {visible(host)} skipped"
    held = [r for r in results if r.status in HELD]
    if held:
        if is_open:
            _ingest(archive, held)
        else:
            with Archive(archive_path(archive), write=True) as opened:
                _ingest(opened, held)
    return results


def _ingest(archive: Archive, held: list[PullResult]) -> None:
    from ..store.ingest import ingest

    for result, ingested in zip(held, ingest(archive, [r.file for r in held])):
        result.ingest = ingested


class _Tally:
    """Bytes of the whole pull for `progress`: those of files done plus the one under way."""

    def __init__(self, progress: Progress | None, total: int):
        self.progress, self.total, self.done = progress, total, 0
        tell(progress, 0, total, "")

    def file(self, name: str) -> Callable[[int], None] | None:
        if self.progress is None:
            return None

        def held(got: int) -> None:
            self.total = max(self.total, self.done + got)
            tell(self.progress, self.done + got, self.total, name)
        return held

    def finished(self, size: int) -> None:
        self.done += size

    def finish(self) -> None:
        tell(self.progress, self.done, max(self.total, self.done), "")


def _host(url: str) -> str:
    return urlsplit(url).netloc


def _get(entry: Entry, base: str, folder: Path, tally: _Tally, attempts: int, backoff: float,
         sleep: Callable[[float], None], limits: Limits, down: dict[str, PullResult]) -> PullResult:
    """One log's file in `folder`, checked: the one kept if it is the
    catalog's, else downloaded (resuming a part left before), unless its
    host has already answered nothing."""
    url = entry.url(base)
    target = folder / entry.file_name
    part = part_path(target)
    result = PullResult(entry.name, url, str(target), "failed")
    notes = []
    try:
        for path in (target, part):
            if _unlinked(path):
                notes.append(f"a symbolic link in place of {path.name} was removed, not followed")
    except WlaError as e:
        result.message, result.error = str(e), e
        return result
    if target.exists():
        known = entry.size is not None or entry.sha256 is not None
        try:
            checked = check(target, str(target), entry.size, entry.sha256)
        except InputError as e:  # changed since it was kept: it goes, and is fetched again
            target.unlink()
            notes.append(f"the kept file was not the catalog's ({e.problem}); downloaded again")
        else:
            try:
                check_content(target, str(target), whole=entry.sha256 is None)
            except InputError as e:  # kept by an older wla, or put there by hand
                target.unlink()
                notes.append(f"the kept file was not a log ({e.problem}); downloaded again")
            else:
                return _held(result, "verified" if known else "kept", checked, "; ".join(notes))
    if _host(url) in down:
        result.status, result.message = "skipped", f"{visible(_host(url))} did not answer for an earlier log"
        return result
    try:
        fetched = fetch(url, target, entry.size, limits=limits, attempts=attempts, backoff=backoff, sleep=sleep,
                        progress=tally.file(entry.name))
    except InputError as e:
        return _refused(result, e)
    except WlaError as e:
        if isinstance(e, Unreachable):
            down.setdefault(_host(url), result)
        result.message, result.error = str(e), e
        return result
    result.attempts, result.resumed_from = fetched.attempts, fetched.resumed_from
    tally.finished(fetched.size)
    try:
        checked = check(part, url, entry.size, entry.sha256)
        check_content(part, url, whole=entry.sha256 is None)
    except InputError as e:
        part.unlink(missing_ok=True)
        return _refused(result, e)
    os.replace(part, target)
    return _held(result, "resumed" if fetched.resumed_from else "downloaded", checked, "; ".join(notes))


def _unlinked(path: Path) -> bool:
    """Whether a symbolic link stood at `path` (it is removed: a planted link
    is never followed, to read or to write); anything else but a regular
    file there is refused (WlaError), since reading it could wait forever."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(mode):
        path.unlink()
        return True
    kind = not_regular(mode)
    if kind is not None:
        raise WlaError(f"{visible(str(path))}: is {kind}, not a regular file; refused")
    return False


def _held(result: PullResult, status: str, checked: Checked, message: str) -> PullResult:
    result.status, result.size, result.sha256 = status, checked.size, checked.sha256
    result.verified, result.message = checked.verified, message
    return result


def _refused(result: PullResult, error: InputError) -> PullResult:
    result.status, result.error = "refused", error
    result.message = f"{error}; refused, nothing kept"
    return result
