"""The commands' warnings: exactly the logs the paper names among the shared
ones, and a version inherits its log's warning."""
from __future__ import annotations

from wla.archive.analysis.diagnosis.warnings import log_warnings

WARNED = {
    "NASA-iPSC-1993-3.1-cln": "arrival times are start times (header and data)",
    "NASA-iPSC-1993-3-head228": "arrival times are start times (header)",
    "LLNL-Atlas-2006-2.1-cln": "arrival times are start times (data)",
    "LLNL-Thunder-2007-1.1-cln": "arrival times are start times (data)",
    "LANL-CM5-1994-4.1-cln": "run times on non-dedicated processors (header and data: 59,581 jobs)",
}


def test_every_shared_log_warns_only_if_the_paper_names_it(real_archive):
    names = [n for (n,) in real_archive.con.execute("SELECT name FROM logs WHERE kind = 'log'").fetchall()]
    assert len(names) == 19
    for name in names:
        lines = log_warnings(real_archive, name)
        if name in WARNED:
            [line] = lines
            assert line.startswith(f"{name}: {WARNED[name]}: "), line
        else:
            assert lines == [], name
