"""A C library's stray prints kept off standard output
(archive/analysis/capacity/quiet.py), and standard output back after."""
from __future__ import annotations

import os

from wla.archive.analysis.capacity.quiet import quiet_stdout


def test_writes_to_the_descriptor_are_dropped_inside_only(capfd):
    os.write(1, b"before\n")
    with quiet_stdout():
        os.write(1, b"stray debugging line\n")
    os.write(1, b"after\n")
    assert capfd.readouterr().out == "before\nafter\n"
