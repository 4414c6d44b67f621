"""Connections a download can rely on ending (archive/pull/connection.py):
the watch shuts every socket it holds at the deadline, one handed to it
later at once, and the opener follows no redirect."""
from __future__ import annotations

import socket
import time
import urllib.request

from wla.archive.pull.connection import Watch, opener


def _fired(watch: Watch) -> bool:
    end = time.monotonic() + 10
    while not watch.fired and time.monotonic() < end:
        time.sleep(0.01)
    return watch.fired


def test_the_deadline_shuts_what_the_watch_holds():
    mine, server = socket.socketpair()
    late, late_server = socket.socketpair()
    with mine, server, late, late_server:
        watch = Watch(0.05)
        watch.hold(mine)
        assert _fired(watch)
        assert server.recv(1) == b"" and mine.recv(1) == b""  # shut both ways: a read ends at once
        watch.hold(late)  # after the deadline: shut as it is handed over
        assert late_server.recv(1) == b""


def test_a_cancelled_watch_never_fires():
    watch = Watch(0.05)
    watch.cancel()
    watch.timer.join(5)
    assert not watch.fired


def test_the_opener_follows_no_redirect():
    watch = Watch(60)
    director = opener(watch)
    watch.cancel()
    assert not any(isinstance(h, urllib.request.HTTPRedirectHandler) for h in director.handlers)
    opens = {m for h in director.handlers for m in dir(h) if m.endswith("_open")}
    assert {"http_open", "https_open"} <= opens
