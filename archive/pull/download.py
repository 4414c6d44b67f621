"""Downloading one file over HTTP, into FILE.part, resuming where it stopped.

The bytes go to a `.part` file that only a verified download is renamed from,
so nothing that looks complete is ever half a file. A connection that drops
is asked again for the rest (an HTTP Range from the bytes held); a server
that ignores the Range sends the whole file again, which replaces the part.
Attempts are a count and the wait between them doubles, through a `sleep`
the caller may replace.

The clock decides only when to give up, never what is kept (`Limits`): a
file has a deadline over all its attempts and waits, an attempt ends when
its bytes average under a minimum rate over a window, and no read waits
longer than a read timeout. A watchdog shuts the connection down at the
deadline, so that a server sending even its headers a byte at a time is left
then too. Only http(s) redirects are followed, at most REDIRECTS; the part is
opened without following a link, so a planted link is never written through.
Whatever the server says (reasons, headers, addresses) reaches a message
with its control characters escaped.
"""
from __future__ import annotations

import http.client
import os
import re
import stat
import time
import urllib.error
import urllib.request
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import urljoin

from ..kernel.errors import InputError, Unreachable, WlaError, shorten, visible
from ..kernel.units import count
from ..swf.rawfile import not_regular
from .catalog import url_problem
from .connection import Watch, opener

ATTEMPTS = 5  # requests per file, the first one included
BACKOFF = 1.0  # seconds before the second attempt; doubled before each next one
REDIRECTS = 5  # http(s) redirects followed per request
CHUNK = 1 << 16
AGENT = "wla-pull"
SAID = 120  # characters of a server's text kept in a message
_RETRIED_STATUS = {408, 425, 429, 500, 502, 503, 504}
_REDIRECT_STATUS = {301, 302, 303, 307, 308}
_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")
_UNSATISFIED = re.compile(r"bytes\s+\*/(\d+)")


@dataclass(frozen=True)
class Limits:
    """When a download is given up. Their defaults are `pull`'s."""

    deadline: float  # seconds for one file: every attempt and every wait between them
    min_rate: float  # bytes/s an attempt must average over any rate_window seconds (0: no minimum)
    rate_window: float  # seconds
    read_timeout: float  # seconds one read may wait for a byte
    max_size: int  # bytes of a file whose size is not known


@dataclass(frozen=True)
class Fetched:
    part: Path  # the file holding every byte, not yet verified
    size: int
    resumed_from: int  # bytes held before the request that finished it (0: all of it from one request)
    attempts: int  # requests made


def part_path(target: Path) -> Path:
    return target.with_name(target.name + ".part")


def said(text: str) -> str:
    """A server's text as a message may hold it: escaped, on one line, short."""
    return visible(shorten(text, SAID))


def fetch(url: str, target: Path, size: int | None = None, *, limits: Limits, attempts: int = ATTEMPTS,
          backoff: float = BACKOFF, sleep: Callable[[float], None] = time.sleep,
          clock: Callable[[], float] = time.monotonic, progress: Callable[[int], None] | None = None) -> Fetched:
    """All of `url` in `target`.part (bytes already there are kept and the
    rest asked for). `size`: the length the file must have; a server that
    announces another is refused at once (InputError), as is a file of
    unknown size past `limits.max_size`. `progress(bytes_held)` as they come.
    Gives up after `attempts` requests or at the deadline with the last
    reason (Unreachable when the host answered none of them); an HTTP error
    that asking again does not mend (404, 403, ...) ends it at once."""
    part = part_path(target)
    limit = size if size is not None else limits.max_size
    ends = clock() + limits.deadline
    reason, answered, late, attempt = "", False, False, 0
    while attempt < attempts:
        attempt += 1
        held = _held(part)
        if held > limit:
            part.unlink()
            held = 0
        if size is not None and held == size:
            return Fetched(part, held, held, attempt - 1)
        request = _Attempt(url, part, held, size, limit, limits, ends, clock, progress)
        try:
            got, start = request.run()
        except urllib.error.HTTPError as e:
            e.close()
            if e.code not in _RETRIED_STATUS:
                raise WlaError(f"{visible(url)}: HTTP {e.code} {said(str(e.reason))}") from None
            reason = f"HTTP {e.code} {said(str(e.reason))}"
        except (urllib.error.URLError, http.client.HTTPException, OSError) as e:
            reason = _reason(e, limits)
        else:
            return Fetched(part, got, start, attempt)
        finally:
            answered = answered or request.answered
        wait = backoff * 2 ** (attempt - 1)
        late = request.late or (attempt < attempts and clock() + wait >= ends)
        if late or attempt == attempts:
            break
        sleep(wait)
    tried = count(attempt, "attempt")
    if not answered:
        at = f", {limits.deadline:g} s deadline" if late else ""
        raise Unreachable(f"{visible(url)}: the host did not answer ({tried}{at}): {reason}")
    if late:
        raise WlaError(f"{visible(url)}: gave up at the {limits.deadline:g} s deadline after {tried}: {reason}")
    raise WlaError(f"{visible(url)}: gave up after {tried}: {reason}")


def _held(part: Path) -> int:
    """Bytes of a part left by an earlier attempt or pull. A link in its
    place is removed, never followed; anything else but a file is refused."""
    try:
        mode = os.lstat(part)
    except FileNotFoundError:
        return 0
    if stat.S_ISLNK(mode.st_mode):
        part.unlink()
        return 0
    kind = not_regular(mode.st_mode)
    if kind is not None:
        raise WlaError(f"{visible(str(part))}: is {kind}, not a regular file; refused")
    return mode.st_size


class _Attempt:
    """One request, and the redirects it is sent on, within the file's deadline."""

    def __init__(self, url: str, part: Path, held: int, size: int | None, limit: int, limits: Limits,
                 ends: float, clock: Callable[[], float], progress: Callable[[int], None] | None):
        self.url, self.part, self.held, self.size, self.limit = url, part, held, size, limit
        self.limits, self.ends, self.clock, self.progress = limits, ends, clock, progress
        self.answered = False  # an HTTP answer came (a status line, good or bad)
        self.late = False  # ended by the deadline
        self.got = held
        self.whole = False  # every byte the answer announced has arrived

    def run(self) -> tuple[int, int]:
        """The bytes the part holds once the server has sent all it
        announced, and where this answer started (0 unless it resumed)."""
        watch = Watch(self.ends - self.clock())
        try:
            got, start = self._follow(watch)
        except (OSError, http.client.HTTPException) as e:
            if isinstance(e, urllib.error.HTTPError):
                raise
            if isinstance(e, http.client.HTTPException) and not isinstance(e, http.client.RemoteDisconnected):
                self.answered = True  # something came back, though not HTTP
            if watch.fired or self.clock() >= self.ends:
                self.late = True
                raise TimeoutError("the answer was still arriving at the deadline" if self.answered
                                   else "no answer by the deadline") from None
            raise
        finally:
            watch.cancel()
        if watch.fired and not self.whole:  # an end the watchdog made, not the server
            self.late = True
            raise TimeoutError("the answer was still arriving at the deadline")
        return got, start

    def _follow(self, watch: Watch) -> tuple[int, int]:
        url = self.url
        for _ in range(REDIRECTS + 1):
            try:
                response = self._open(url, watch)
            except urllib.error.HTTPError as e:
                self.answered = True
                if e.code in _REDIRECT_STATUS:
                    location = e.headers.get("Location")
                    e.close()
                    url = _redirected(self.url, url, location)
                    continue
                if e.code == 416 and self.held:
                    self.whole = True
                    return _unsatisfiable(e, self.part, self.held), self.held
                raise
            self.answered = True
            with response:
                return self._receive(response)
        raise WlaError(f"{visible(self.url)}: more than {REDIRECTS} redirects; given up")

    def _open(self, url: str, watch: Watch) -> http.client.HTTPResponse:
        headers = {"User-Agent": AGENT, "Accept-Encoding": "identity"}
        if self.held:
            headers["Range"] = f"bytes={self.held}-"
        timeout = max(0.01, min(self.limits.read_timeout, self.ends - self.clock()))
        return opener(watch).open(urllib.request.Request(url, headers=headers), timeout=timeout)

    def _receive(self, response: http.client.HTTPResponse) -> tuple[int, int]:
        start, whole = 0, None
        if response.status == 206:
            start, whole = _content_range(response.headers.get("Content-Range"))
            if start != self.held:
                self.part.unlink(missing_ok=True)
                raise ConnectionError(f"the server resumed at byte {start:,}, not at {self.held:,}")
        total = start + response.length if response.length is not None else whole
        if self.size is not None and total is not None and total != self.size:
            self.part.unlink(missing_ok=True)
            raise InputError(self.url, None, f"the server sends {total:,} bytes, the catalog says {self.size:,}")
        if self.size is None and total is not None and total > self.limit:
            self.part.unlink(missing_ok=True)
            raise InputError(self.url, None, f"the server announces {total:,} bytes, more than the "
                                             f"{self.limit:,} allowed for a log of unknown size")
        self.got = start
        with _open_part(self.part, append=bool(start)) as out:
            pace = _Pace(self.limits, self.clock(), start)
            while chunk := self._read(response):
                self.got += len(chunk)
                if self.got > self.limit:
                    out.close()
                    self.part.unlink()
                    if self.size is None:
                        raise InputError(self.url, None, f"more than the {self.limit:,} bytes allowed for a log "
                                                         "of unknown size")
                    raise InputError(self.url, None, f"more than the {self.size:,} bytes the catalog says")
                out.write(chunk)
                if self.progress is not None:
                    self.progress(self.got)
                pace.check(self.clock(), self.got)
        if total is not None and self.got < total:
            raise ConnectionError(f"the connection closed after {self.got:,} of {total:,} bytes")
        self.whole = total is not None
        return self.got, start

    def _read(self, response: http.client.HTTPResponse) -> bytes:
        """What one read of the socket gives (a server dripping bytes is seen
        between them), with what went wrong said in words."""
        try:
            return response.read1(CHUNK)
        except http.client.IncompleteRead:
            if response.chunked:
                raise ConnectionError(f"a malformed chunked body, or one cut short, after {self.got:,} bytes") from None
            raise ConnectionError(f"the connection closed after {self.got:,} bytes") from None
        except TimeoutError:
            raise TimeoutError(f"nothing arrived for {self.limits.read_timeout:g} s after "
                               f"{self.got:,} bytes") from None


class _Pace:
    """The minimum rate, averaged over the window: the bytes of the last
    `rate_window` seconds (or more) against the time they took."""

    def __init__(self, limits: Limits, now: float, got: int):
        self.rate, self.window = limits.min_rate, limits.rate_window
        self.marks: deque[tuple[float, int]] = deque([(now, got)])

    def check(self, now: float, got: int) -> None:
        if self.rate <= 0:
            return
        marks = self.marks
        marks.append((now, got))
        while len(marks) > 1 and marks[1][0] <= now - self.window:
            marks.popleft()
        since, then = marks[0]
        if now - since >= self.window and got - then < self.rate * (now - since):
            raise TimeoutError(f"slower than {self.rate:,g} bytes/s over {self.window:g} s")


def _open_part(part: Path, append: bool):
    """The part, opened to write without following a link in its place
    (nor blocking on a FIFO), and only if it is a regular file."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(part, flags | (os.O_APPEND if append else os.O_TRUNC), 0o644)
    kind = not_regular(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        raise WlaError(f"{visible(str(part))}: is {kind}, not a regular file; refused")
    return os.fdopen(fd, "ab" if append else "wb")


def _redirected(first: str, current: str, location: str | None) -> str:
    """The address a redirect sends to, if it is http(s); otherwise refused."""
    if location is None:
        raise WlaError(f"{visible(first)}: a redirect without a Location; refused")
    try:
        new = urljoin(current, location.strip())
    except ValueError:
        new = location
    if url_problem(new) is not None:
        raise WlaError(f"{visible(first)}: redirected to '{said(new)}': only http:// and https:// redirects "
                       "are followed")
    return new


def _unsatisfiable(e: urllib.error.HTTPError, part: Path, held: int) -> int:
    """416 to a Range from `held`: the part is whole if the server's file
    has exactly that length; otherwise it is not this file, and goes."""
    found = _UNSATISFIED.fullmatch((e.headers.get("Content-Range") or "").strip())
    e.close()
    if found and int(found.group(1)) == held:
        return held
    part.unlink()
    raise ConnectionError(f"the server cannot send bytes from {held:,} on (HTTP 416); starting again")


def _content_range(value: str | None) -> tuple[int, int | None]:
    found = _CONTENT_RANGE.fullmatch((value or "").strip())
    if not found:
        raise ConnectionError(f"a partial answer without a usable Content-Range ('{said(value or '')}')")
    total = found.group(3)
    return int(found.group(1)), (int(total) if total != "*" else None)


def _reason(e: BaseException, limits: Limits) -> str:
    """Why an attempt failed, in words a user can read (a server's text escaped)."""
    if isinstance(e, http.client.RemoteDisconnected):
        return "the connection closed before any answer"
    if isinstance(e, http.client.BadStatusLine):
        return f"not an HTTP status line: '{said(str(e.line).strip())}'"
    if isinstance(e, http.client.IncompleteRead):
        return "the connection closed before the answer's end"
    if isinstance(e, urllib.error.URLError):
        inner = e.reason
        if isinstance(inner, TimeoutError):
            return f"no connection within {limits.read_timeout:g} s"
        if isinstance(inner, OSError):
            return f"cannot connect: {said(inner.strerror or str(inner))}"
        return f"cannot connect: {said(str(inner))}"
    if isinstance(e, TimeoutError) and (not e.args or e.args == ("timed out",)):
        return f"no answer within {limits.read_timeout:g} s"
    if isinstance(e, OSError) and e.strerror:
        return said(e.strerror)
    return said(str(e) or type(e).__name__)
