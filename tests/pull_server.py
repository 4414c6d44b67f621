"""A real HTTP server on 127.0.0.1 for `wla pull`: it serves the files of a
folder by their base name, whatever folder the URL names
(`l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz` is `KTH-SP2-1996-2.1-cln.swf.gz`),
with HTTP Range, and misbehaves as asked:

- "normal": every file, whole or from a Range;
- "drop-once": the first request for each file gets its headers and half
  its body, then the connection closes; later requests are served;
- "drop-always": every answer closes half-way through its body;
- "wrong": the file's length, but one byte in the middle changed;
- "missing": 404 for everything.

Hostile servers, answering any name, whether the folder holds it or not:

- "drip": the headers at once, then the body one byte a second;
- "drip-head": the status line and headers themselves one byte a second;
- "silent": takes the connection and the request, and never answers;
- "hangup": closes every connection without a word;
- "html": 200 with an HTML page (what a site says for a moved file);
- "not-gzip": the file decompressed (the folder's, else a few SWF lines);
- "gzip-not-swf": a gzip file holding an HTML page;
- "bad-gzip": the gzip magic, then bytes that do not decompress;
- "chunked": the file, sent in chunks without a Content-Length;
- "bad-chunk": a chunked body whose second chunk size is not a number;
- "too-long": the file's Content-Length, then more bytes than it says;
- "huge-unsized": no Content-Length, and a body that never ends;
- "huge-announced": a Content-Length of 1 TiB (the body is never sent);
- "redirect": a 302 to /moved/PATH, which is served as "normal";
- "redirect-file", "redirect-ftp": a 302 to a file:// or ftp:// address;
- "redirect-loop": a 302 to the address asked;
- "bad-status": a status line that is not HTTP's;
- "escape": 503 with terminal escape sequences in the reason and headers;
- "escape-404": 404 likewise (not asked again);
- "escape-redirect": a 302 to a file:// address holding escape sequences;
- "chaos": each answer drawn from `random.Random(seed)`: one of the above,
  or the file with a lying Content-Length, cut at a random byte, or sent
  in odd chunks.

    with serve(data_dir()) as url:
        pull(archive, ["KTH-SP2-1996-2.1-cln"], base_url=url)

With `ranges=False` the server ignores Range headers and always sends the
whole file, as some servers do. `url.requests` lists what was asked, as
(file name, Range header or None). `dead_url()` is an address nothing
listens on.
"""
from __future__ import annotations

import contextlib
import gzip
import random
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator
from urllib.parse import unquote, urlsplit

HOSTILE = ("drip", "drip-head", "silent", "hangup", "html", "not-gzip", "gzip-not-swf", "bad-gzip", "chunked",
           "bad-chunk", "too-long", "huge-unsized", "huge-announced", "redirect", "redirect-file", "redirect-ftp",
           "redirect-loop", "bad-status", "escape", "escape-404", "escape-redirect")
MODES = ("normal", "drop-once", "drop-always", "wrong", "missing", *HOSTILE, "chaos")
_RANGE = re.compile(r"bytes=(\d+)-(\d*)")
ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[31m"  # set the terminal's title, clear it, paint it red
HTML = (b"<!DOCTYPE html>\n<html><head><title>Moved</title></head>\n"
        b"<body><p>This file has moved.</p></body></html>\n")
SWF_LINES = b"; Version: 2.2\n;\n1 0 10 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n"
DRIP_SECONDS = 1.0


class Served(str):
    """The base URL, carrying the requests the server saw."""

    requests: list[tuple[str, str | None]]


def _handler(root: Path, mode: str, ranges: bool, requests: list[tuple[str, str | None]],
             lock: threading.Lock, stop: threading.Event, rng: random.Random) -> type[BaseHTTPRequestHandler]:
    dropped: set[str] = set()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet: tests read what they check
            pass

        def handle(self) -> None:
            try:
                super().handle()
            except OSError:  # the client went away: what a hostile test expects
                pass

        def do_GET(self) -> None:
            path = unquote(urlsplit(self.path).path)
            name = Path(path).name
            asked = self.headers.get("Range")
            with lock:
                requests.append((name, asked))
                first = name not in dropped
                dropped.add(name)
                chosen = mode if mode != "chaos" else rng.choice(_CHAOS)
                cut = rng.random()
            file = root / name
            data = file.read_bytes() if name and file.is_file() else None
            if chosen in HOSTILE:
                self._hostile(chosen, path, data)
            elif chosen in ("lie-longer", "lie-shorter", "cut", "odd-chunks"):
                self._lie(chosen, data, cut)
            else:
                self._file(chosen, data, asked, first)

        def _file(self, how: str, data: bytes | None, asked: str | None, first: bool) -> None:
            if how == "missing" or data is None:
                self.send_error(404, "Not Found")
                return
            if how == "wrong":
                middle = len(data) // 2
                data = data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:]
            start, end, status = 0, len(data), 200
            if asked and ranges:
                found = _RANGE.fullmatch(asked.strip())
                if found is None or int(found.group(1)) >= len(data):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(data)}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                start = int(found.group(1))
                end = min(len(data), int(found.group(2)) + 1) if found.group(2) else len(data)
                status = 206
            body = data[start:end]
            self.send_response(status)
            self.send_header("Content-Type", "application/gzip")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Accept-Ranges", "bytes")
            if status == 206:
                self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
            self.end_headers()
            if how == "drop-always" or (how == "drop-once" and first):
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)

        def _lie(self, how: str, data: bytes | None, cut: float) -> None:
            """The file, with a Content-Length that lies, cut short, or in chunks of odd sizes."""
            data = data if data is not None else gzip.compress(SWF_LINES, mtime=0)
            at = max(1, int(len(data) * cut))
            self.send_response(200)
            if how == "odd-chunks":
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                i = 0
                while i < len(data):
                    n = 1 + (i * 7919 + at) % 5000
                    self.wfile.write(b"%x\r\n%s\r\n" % (n, data[i:i + n]))
                    i += n
                self.wfile.write(b"0\r\n\r\n")
                return
            length = {"lie-longer": len(data) + at, "lie-shorter": at, "cut": len(data)}[how]
            self.send_header("Content-Length", str(length))
            self.end_headers()
            self.wfile.write(data if how != "cut" else data[:at])
            self.close_connection = True

        def _hostile(self, how: str, path: str, data: bytes | None) -> None:
            out = self.wfile
            if how == "silent":
                stop.wait()
            elif how == "hangup":
                self.close_connection = True
            elif how == "drip-head":
                head = b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 1000
                self._drip(head)
            elif how == "drip":
                body = data if data is not None else gzip.compress(SWF_LINES * 100, mtime=0)
                self._head(200, ("Content-Length", str(len(body))))
                self._drip(body)
            elif how == "html":
                self._head(200, ("Content-Type", "text/html"), ("Content-Length", str(len(HTML))))
                out.write(HTML)
            elif how in ("not-gzip", "gzip-not-swf", "bad-gzip"):
                body = {"not-gzip": gzip.decompress(data) if data is not None else SWF_LINES,
                        "gzip-not-swf": gzip.compress(HTML * 50, mtime=0),
                        "bad-gzip": b"\x1f\x8b\x08\x00" + bytes(range(256)) * 4}[how]
                self._head(200, ("Content-Length", str(len(body))))
                out.write(body)
            elif how in ("chunked", "bad-chunk"):
                body = data if data is not None else gzip.compress(SWF_LINES, mtime=0)
                self._head(200, ("Transfer-Encoding", "chunked"))
                half = len(body) // 2
                out.write(b"%x\r\n%s\r\n" % (half, body[:half]))
                if how == "bad-chunk":
                    out.write(b"zz\x1b[2J\r\n" + body[half:])
                    return
                out.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(body) - half, body[half:]))
            elif how == "too-long":
                body = data if data is not None else gzip.compress(SWF_LINES, mtime=0)
                self._head(200, ("Content-Length", str(len(body))))
                out.write(body + b"<html>and more</html>" * 1000)
            elif how == "huge-unsized":
                self._head(200, ("Connection", "close"))
                block = gzip.compress(SWF_LINES, mtime=0)[:10] + bytes(1 << 16)
                while not stop.is_set():
                    out.write(block)
            elif how == "huge-announced":
                self._head(200, ("Content-Length", str(1 << 40)))
                out.write(b"\x1f\x8b")
            elif how.startswith("redirect"):
                if how == "redirect" and path.startswith("/moved/"):
                    self._file("normal", data, None, False)
                    return
                where = {"redirect": "/moved" + path, "redirect-file": "file:///etc/passwd",
                         "redirect-ftp": "ftp://127.0.0.1/pub/file.swf.gz", "redirect-loop": path}[how]
                self._head(302, ("Location", where), ("Content-Length", "0"))
            elif how == "bad-status":
                out.write(f"HTTP/1.1 2x0 {ESCAPES}OK\r\n\r\n".encode("latin-1"))
            elif how in ("escape", "escape-404"):
                self.send_response(503 if how == "escape" else 404, f"Busy {ESCAPES}now")
                self.send_header("X-Note", ESCAPES)
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif how == "escape-redirect":
                self._head(302, ("Location", f"file:///{ESCAPES}"), ("Content-Length", "0"))
            out.flush()
            self.close_connection = True

        def _head(self, status: int, *headers: tuple[str, str]) -> None:
            self.send_response(status)
            for key, value in headers:
                self.send_header(key, value)
            self.end_headers()
            self.wfile.flush()

        def _drip(self, data: bytes) -> None:
            for i in range(len(data)):
                if stop.wait(DRIP_SECONDS):
                    return
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()

    return Handler


# What "chaos" draws from for each answer: a good one, one that breaks off, each hostile one, and files
# sent with a lying Content-Length, cut short, or in odd chunks.
_CHAOS = ("normal", "drop-always", "wrong", "missing", *HOSTILE, "lie-longer", "lie-shorter", "cut", "odd-chunks")


@contextlib.contextmanager
def serve(root: Path, mode: str = "normal", ranges: bool = True, seed: int = 0) -> Iterator[Served]:
    """Serve `root` on a free port of 127.0.0.1 while the block runs; yields its base URL."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {MODES}")
    requests: list[tuple[str, str | None]] = []
    stop = threading.Event()
    handler = _handler(Path(root), mode, ranges, requests, threading.Lock(), stop, random.Random(seed))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    host, port = server.server_address[:2]
    url = Served(f"http://{host}:{port}/")
    url.requests = requests
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield url
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        thread.join()


def dead_url() -> str:
    """An address of 127.0.0.1 where nothing listens: every connection is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/"
