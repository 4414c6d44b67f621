"""Figs. 1 and 2 of made users: drawn, one column per attribute, the same
bytes for the same report."""
from __future__ import annotations

import numpy as np
import pandas as pd
from wla.archive.analysis.stats.sessions import session_report
from wla.archive.analysis.stats.sessions_plot import plot_sessions


def test_the_figure_is_drawn_alike_every_time(tmp_path):
    n = 12
    submit = np.arange(n) // 2 * 5000.0 + np.arange(n) % 2 * 60  # sessions of two jobs
    jobs = pd.DataFrame({"user_id": [1] * 6 + [2] * 6, "submit": submit, "wait": np.zeros(n),
                         "run": np.arange(1, n + 1) * 10.0, "procs": [1, 2, 1, 4, 8, 8] * 2,
                         "req_procs": np.full(n, -1), "req_time": np.full(n, 3600.0)})
    report = session_report(jobs, ("procs", "run"), distances=3, repeats=20).as_dict()
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    plot_sessions(report, a, "made")
    plot_sessions(report, b, "made")
    data = a.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data == b.read_bytes()
    width = int.from_bytes(data[16:20], "big")
    assert width == int(4.2 * 2 * 80)  # two columns at 80 dots an inch
