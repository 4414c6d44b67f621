"""Real processes: a second one meets the lock; SIGKILL mid-ingest loses nothing committed."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
from real_logs import data_dir
from wla.archive import ArchiveLocked
from wla.archive import open as open_archive
from wla.archive.store.ingest import ingest

SMALL = ["NASA-iPSC-1993-3-head228", "ANL-Intrepid-2009-1-head10", "HPC2N-2002-2.2-head3170"]
BIG = "KTH-SP2-1996-2.1-cln"


def _child(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


HOLD = """
    import sys, time
    from wla.archive import open
    a = open(sys.argv[1], write=True)
    print("holding", flush=True)
    time.sleep(60)
"""


def test_second_process_is_told_the_archive_is_locked(tmp_path):
    path = tmp_path / "a.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [data_dir() / f"{SMALL[0]}.swf.gz"])
    holder = _child(HOLD, str(path))
    try:
        assert holder.stdout.readline().strip() == "holding"
        with pytest.raises(ArchiveLocked, match="locked by another process"):
            open_archive(path)
        with pytest.raises(ArchiveLocked):
            open_archive(path, write=True)
        cli = subprocess.run([sys.executable, "-m", "wla.cli.main", "--archive", str(path), "ls"],
                             capture_output=True, text=True)
        assert cli.returncode == 1
        assert cli.stderr.count("\n") == 1 and "locked by another process" in cli.stderr
        assert "Traceback" not in cli.stderr
    finally:
        holder.kill()
        holder.wait()
    with open_archive(path) as a:  # free again once the holder is gone
        assert a.log_names() == [SMALL[0]]


KILLED = """
    import sys, time
    import wla.archive.store.ingest as ing
    from wla.archive import open
    original = ing._append
    def pausing(con, table, log_id, frame):
        original(con, table, log_id, frame)
        if table == "jobs" and len(frame) > 20000:   # inside the big log's transaction
            print("mid-transaction", flush=True)
            time.sleep(60)
    ing._append = pausing
    a = open(sys.argv[1], write=True)
    ing.ingest(a, sys.argv[3:], workers=int(sys.argv[2]))
"""

JOBS = {"NASA-iPSC-1993-3-head228": 228, "ANL-Intrepid-2009-1-head10": 10,
        "HPC2N-2002-2.2-head3170": 3170}


@pytest.mark.parametrize("workers", [1, 2])
def test_sigkill_during_ingest_leaves_earlier_logs_and_no_trace(tmp_path, workers):
    path = tmp_path / "k.duckdb"
    files = [str(data_dir() / f"{n}.swf.gz") for n in SMALL + [BIG]]
    child = _child(KILLED, str(path), str(workers), *files)
    line = child.stdout.readline().strip()
    assert line == "mid-transaction", child.stderr.read()
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL
    with open_archive(path, write=True) as a:
        names = a.log_names()
        if workers == 1:  # in order: every log before the killed one is in
            assert names == sorted(SMALL)
        assert BIG not in names
        counts = dict(a.con.execute(
            "SELECT name, count(*) FROM jobs JOIN logs USING (log_id) GROUP BY name").fetchall())
        assert counts == {n: JOBS[n] for n in names}  # whatever committed is whole
        for table in ("jobs", "header_lines", "rejects"):
            orphans = a.con.execute(
                f"SELECT count(*) FROM {table} WHERE log_id NOT IN (SELECT log_id FROM logs)"
            ).fetchall()[0][0]
            assert orphans == 0, table
        (res,) = ingest(a, [files[-1]])  # and the killed log goes in cleanly now
        assert res.status == "ingested" and res.jobs == 28476
