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

    with serve(data_dir()) as url:
        pull(archive, ["KTH-SP2-1996-2.1-cln"], base_url=url)

With `ranges=False` the server ignores Range headers and always sends the
whole file, as some servers do. `url.requests` lists what was asked, as (file name, Range header or None).
"""
from __future__ import annotations

import contextlib
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator
from urllib.parse import unquote, urlsplit

MODES = ("normal", "drop-once", "drop-always", "wrong", "missing")
_RANGE = re.compile(r"bytes=(\d+)-(\d*)")


class Served(str):
    """The base URL, carrying the requests the server saw."""

    requests: list[tuple[str, str | None]]


def _handler(root: Path, mode: str, ranges: bool, requests: list[tuple[str, str | None]],
             lock: threading.Lock) -> type[BaseHTTPRequestHandler]:
    dropped: set[str] = set()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet: tests read what they check
            pass

        def do_GET(self) -> None:
            name = Path(unquote(urlsplit(self.path).path)).name
            asked = self.headers.get("Range")
            with lock:
                requests.append((name, asked))
                first = name not in dropped
                dropped.add(name)
            path = root / name
            if mode == "missing" or not name or not path.is_file():
                self.send_error(404, "Not Found")
                return
            data = path.read_bytes()
            if mode == "wrong":
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
            if mode == "drop-always" or (mode == "drop-once" and first):
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)

    return Handler


@contextlib.contextmanager
def serve(root: Path, mode: str = "normal", ranges: bool = True) -> Iterator[Served]:
    """Serve `root` on a free port of 127.0.0.1 while the block runs; yields its base URL."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {MODES}")
    requests: list[tuple[str, str | None]] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(Path(root), mode, ranges, requests, threading.Lock()))
    server.daemon_threads = True
    host, port = server.server_address[:2]
    url = Served(f"http://{host}:{port}/")
    url.requests = requests
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
