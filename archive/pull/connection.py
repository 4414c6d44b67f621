"""Connections a download can rely on ending: every socket is held by a
`Watch`, which shuts it down when the file's deadline comes, so that no read
outlives the deadline however slowly a server sends (its headers included).
The opener goes through the environment's proxies and follows no redirect.
"""
from __future__ import annotations

import http.client
import socket
import threading
import urllib.request


class Watch:
    """Shuts the attempt's connections down when the file's deadline comes,
    so that no read outlives it, however the server sends its bytes."""

    def __init__(self, seconds: float):
        self.sockets: list[socket.socket] = []
        self.fired = False
        self.lock = threading.Lock()
        self.timer = threading.Timer(max(seconds, 0.0), self._fire)
        self.timer.daemon = True
        self.timer.start()

    def hold(self, sock: socket.socket) -> socket.socket:
        with self.lock:
            self.sockets.append(sock)
            if self.fired:
                _shut(sock)
        return sock

    def _fire(self) -> None:
        with self.lock:
            self.fired = True
            for sock in self.sockets:
                _shut(sock)

    def cancel(self) -> None:
        self.timer.cancel()


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # already closed
        pass


class _HTTPConnection(http.client.HTTPConnection):
    def __init__(self, *args: object, watch: Watch, **kw: object):
        super().__init__(*args, **kw)
        self._create_connection = lambda *a, **k: watch.hold(socket.create_connection(*a, **k))


class _HTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, *args: object, watch: Watch, **kw: object):
        super().__init__(*args, **kw)
        self._create_connection = lambda *a, **k: watch.hold(socket.create_connection(*a, **k))


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, watch: Watch):
        super().__init__()
        self.watch = watch

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_HTTPConnection, req, watch=self.watch)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, watch: Watch):
        super().__init__()
        self.watch = watch

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_HTTPSConnection, req, context=self._context, watch=self.watch)


def opener(watch: Watch) -> urllib.request.OpenerDirector:
    """http and https through the environment's proxies, every connection
    watched, and no redirect followed (the caller follows them itself)."""
    director = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), _HTTPHandler(watch), _HTTPSHandler(watch),
                    urllib.request.HTTPDefaultErrorHandler(), urllib.request.HTTPErrorProcessor()):
        director.add_handler(handler)
    return director
