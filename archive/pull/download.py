"""Downloading one file over HTTP, into FILE.part, resuming where it stopped.

The bytes go to a `.part` file that only a verified download is renamed from,
so nothing that looks complete is ever half a file. A connection that drops
is asked again for the rest (an HTTP Range from the bytes held); a server
that ignores the Range sends the whole file again, which replaces the part.
Attempts are a count and the wait between them doubles, through a `sleep`
the caller may replace, so that no outcome depends on a clock.
"""
from __future__ import annotations

import http.client
import re
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import InputError, WlaError

ATTEMPTS = 5  # requests per file, the first one included
BACKOFF = 1.0  # seconds before the second attempt; doubled before each next one
TIMEOUT = 60.0  # seconds a socket may stay silent before the attempt counts as failed
CHUNK = 1 << 16
MAX_BYTES = 16 << 30  # a file with no size in the catalog is cut off past this
AGENT = "wla-pull"
_RETRIED_STATUS = {408, 425, 429, 500, 502, 503, 504}
_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")
_UNSATISFIED = re.compile(r"bytes\s+\*/(\d+)")


@dataclass(frozen=True)
class Fetched:
    part: Path  # the file holding every byte, not yet verified
    size: int
    resumed_from: int  # bytes held before the request that finished it (0: all of it from one request)
    attempts: int  # requests made


def part_path(target: Path) -> Path:
    return target.with_name(target.name + ".part")


def fetch(url: str, target: Path, size: int | None = None, *, attempts: int = ATTEMPTS,
          backoff: float = BACKOFF, sleep: Callable[[float], None] = time.sleep, timeout: float = TIMEOUT,
          progress: Callable[[int], None] | None = None) -> Fetched:
    """All of `url` in `target`.part (bytes already there are kept and the
    rest asked for). `size`: the length the file must have; a server that
    announces another is refused at once. `progress(bytes_held)` as they come.
    Gives up after `attempts` requests with the last reason; an HTTP error
    that asking again does not mend (404, 403, ...) ends it at once."""
    part = part_path(target)
    limit = size if size is not None else MAX_BYTES
    reason = ""
    for attempt in range(1, attempts + 1):
        held = part.stat().st_size if part.exists() else 0
        if held > limit:
            part.unlink()
            held = 0
        if size is not None and held == size:
            return Fetched(part, held, held, attempt - 1)
        try:
            got, start = _request(url, part, held, size, limit, timeout, progress)
        except urllib.error.HTTPError as e:
            e.close()
            if e.code not in _RETRIED_STATUS:
                raise WlaError(f"{url}: HTTP {e.code} {e.reason}") from None
            reason = f"HTTP {e.code} {e.reason}"
        except (urllib.error.URLError, http.client.HTTPException, OSError) as e:
            reason = _reason(e)
        else:
            return Fetched(part, got, start, attempt)
        if attempt < attempts:
            sleep(backoff * 2 ** (attempt - 1))
    raise WlaError(f"{url}: gave up after {attempts} attempts: {reason}")


def _request(url: str, part: Path, held: int, size: int | None, limit: int, timeout: float,
             progress: Callable[[int], None] | None) -> tuple[int, int]:
    """One request: the rest of the file after `held` bytes. Returns the
    bytes the part holds once the server has sent all it announced, and
    where this answer started (0 unless it resumed)."""
    headers = {"User-Agent": AGENT, "Accept-Encoding": "identity"}
    if held:
        headers["Range"] = f"bytes={held}-"
    request = urllib.request.Request(url, headers=headers)
    try:
        response = urllib.request.urlopen(request, timeout=timeout)  # http(s) only: the base URL is checked
    except urllib.error.HTTPError as e:
        if e.code == 416 and held:
            return _unsatisfiable(e, part, held), held
        raise
    with response:
        start, whole = 0, None
        if response.status == 206:
            start, whole = _content_range(response.headers.get("Content-Range"))
            if start != held:
                part.unlink()
                raise ConnectionError(f"the server resumed at byte {start:,}, not at {held:,}")
        length = response.headers.get("Content-Length")
        total = start + int(length) if length is not None and length.isdigit() else whole
        if size is not None and total is not None and total != size:
            part.unlink(missing_ok=True)
            raise InputError(url, None, f"the server sends {total:,} bytes, the catalog says {size:,}")
        got = start
        with open(part, "ab" if start else "wb") as out:
            while chunk := response.read(CHUNK):
                got += len(chunk)
                if got > limit:
                    out.close()
                    part.unlink()
                    if size is None:
                        raise InputError(url, None, f"more than {limit:,} bytes; refused")
                    raise InputError(url, None, f"more than the {size:,} bytes the catalog says")
                out.write(chunk)
                if progress is not None:
                    progress(got)
    if total is not None and got < total:
        raise ConnectionError(f"the connection closed after {got:,} of {total:,} bytes")
    return got, start


def _unsatisfiable(e: urllib.error.HTTPError, part: Path, held: int) -> int:
    """416 to a Range from `held`: the part is whole if the server's file
    has exactly that length; otherwise it is not this file, and goes."""
    found = _UNSATISFIED.fullmatch((e.headers.get("Content-Range") or "").strip())
    if found and int(found.group(1)) == held:
        return held
    part.unlink()
    raise ConnectionError(f"the server cannot send bytes from {held:,} on (HTTP 416); starting again")


def _content_range(value: str | None) -> tuple[int, int | None]:
    found = _CONTENT_RANGE.fullmatch((value or "").strip())
    if not found:
        raise ConnectionError(f"a partial answer without a usable Content-Range ({value!r})")
    total = found.group(3)
    return int(found.group(1)), (int(total) if total != "*" else None)


def _reason(e: BaseException) -> str:
    if isinstance(e, http.client.IncompleteRead):
        return f"the connection closed {len(e.partial):,} bytes into an answer ({e.expected:,} more expected)"
    if isinstance(e, urllib.error.URLError) and not isinstance(e, urllib.error.HTTPError):
        return f"cannot connect: {e.reason}"
    text = str(e) or type(e).__name__
    return text if not isinstance(e, OSError) or not e.strerror else e.strerror
