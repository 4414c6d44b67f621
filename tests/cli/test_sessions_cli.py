"""`wla sessions` (cli/sessions.py) on SDSC-SP2: the numbers of the library on the file as
pandas reads it, Figs. 1 and 2 drawn, the same seed the same output, and
refusals in one line."""
from __future__ import annotations

import json

import pytest
from cli_run import wla
from real_logs import pandas_log
from wla.archive.analysis.stats.sessions import session_report

LOG = "SDSC-SP2-1998-4.2-cln"


def test_the_command_gives_the_librarys_numbers_on_the_file(sp2_archive_file, tmp_path):
    r = wla("sessions", LOG, "--repeats", "3", "--distances", "4", "--seed", "2", "--json", archive=sp2_archive_file)
    assert r.status == 0, r.err
    got = json.loads(r.out)
    want = session_report(pandas_log(LOG).rename(columns={"user": "user_id"}), distances=4, repeats=3, seed=2)
    assert got["log"] == LOG and got["users"] == want.users and got["sessions"] == want.sessions
    for g, w in zip(got["attributes"], want.as_dict()["attributes"]):
        assert g["table"] == w["table"] and g["null"]["values"] == pytest.approx(w["null"]["values"])
        assert g["log"]["mean"] == pytest.approx(w["log"]["mean"]) and len(g["log"]["mean"]) == 5
    # within a session jobs are more alike than a session apart, and than when shuffled
    procs = got["attributes"][0]
    assert procs["table"]["0 vs 1"]["shorter"] > 0.6 and procs["null"]["max"] < procs["log"]["mean"][0]
    again = wla("sessions", LOG, "--repeats", "3", "--distances", "4", "--seed", "2", "--json",
                archive=sp2_archive_file)
    assert again.out == r.out
    figure = tmp_path / "fig1.png"
    shown = wla("sessions", LOG, "--attribute", "run", "--repeats", "5", "--plot", figure, archive=sp2_archive_file)
    assert shown.status == 0, shown.err
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "run time" in shown.out and "0 > 1" in shown.out and "5 job shuffles" in shown.out


@pytest.mark.parametrize("args, words", [(["--distances", "1"], "--distances"),
                                         (["--attribute", "cpu"], "procs, req_time, run"),
                                         (["--shuffle", "users"], "jobs, sessions"),
                                         (["--plot", "x.gif"], "plot")])
def test_refusals_are_one_line(sp2_archive_file, args, words):
    assert words in wla("sessions", LOG, *args, archive=sp2_archive_file).one_error_line()
