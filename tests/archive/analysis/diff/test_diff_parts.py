"""The parts of `wla diff` on two hand-made logs: the pairing's tables
(archive/analysis/diff/pairing.py), the changed fields (fields.py), what a
finding must hold to be said (findings.py, report.py), the statements
(sql.py) and the diff by rule's refusal (by_rule.py)."""
from __future__ import annotations

import pytest
from wla.archive import open as open_archive
from wla.archive.analysis.diff import by_job, by_rule, fields, findings, pairing, report, sql
from wla.archive.kernel.errors import WlaError
from wla.archive.store.ingest import ingest

A = ("; MaxProcs: 8\n"
     "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
     "2 5 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
     "3 9 0 30 4 -1 -1 4 40 -1 1 2 1 -1 -1 -1 -1 -1\n")
# job 1 the same; job 2's run time 10 -> 15; job 3 gone; job 4 new
B = ("; MaxProcs: 8\n"
     "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
     "2 5 0 15 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
     "4 12 0 5 1 -1 -1 1 10 -1 1 3 1 -1 -1 -1 -1 -1\n")


@pytest.fixture
def two_logs(tmp_path):
    for name, text in (("a", A), ("b", B)):
        (tmp_path / f"{name}.swf").write_text(text)
    path = tmp_path / "d.duckdb"
    with open_archive(path, write=True) as arc:
        ingest(arc, [tmp_path / "a.swf", tmp_path / "b.swf"])
    return path


def _ids(arc):
    return dict(arc.rows("SELECT name, log_id FROM logs"))


def _temporary(arc):
    return {t for (t,) in arc.rows("SELECT table_name FROM duckdb_tables() WHERE temporary")}


def test_the_pairing_s_tables_live_while_the_block_runs_and_go_however_it_ends(two_logs):
    with open_archive(two_logs) as arc:
        ids = _ids(arc)
        with pairing.paired(arc, ids["a"], ids["b"]):
            assert _temporary(arc) == {f"wla_diff_{t}" for t in pairing.MADE}
            changed = fields.changes(arc)
        assert _temporary(arc) == set()
        with pytest.raises(RuntimeError), pairing.paired(arc, ids["a"], ids["b"]):
            raise RuntimeError("stopped")
        assert _temporary(arc) == set()
    # one changed field, by hand: job 2's run time, 10 in A and 15 in B (a run time is a number, not whole)
    assert changed[["job", "field", "value_a", "value_b"]].values.tolist() == [[2, "run", 10.0, 15.0]]


def test_the_job_by_job_diff_of_the_two_logs(two_logs):
    with open_archive(two_logs) as arc:
        diff = by_job.log_diff(arc, "a", "b")
    assert isinstance(diff, report.LogDiff)
    assert (diff.jobs_a, diff.jobs_b, diff.matched) == (3, 3, 2)
    assert not diff.same


def test_a_finding_holds_for_most_of_the_group_and_more_than_in_the_log():
    # 8 of 10 changed jobs (80% >= MOST 75%) against 10% of the log: worth saying
    assert report.MOST == 0.75 and findings._worth(8, 10, 100, 1000)
    assert not findings._worth(7, 10, 10, 1000)  # 70% < 75%
    assert not findings._worth(8, 10, 900, 1000)  # 90% of the log: nothing special (0.9 > 0.9 * 0.8)
    assert findings._share(1, 3) == "33.3%" and findings._share(1, 0) == "-"
    assert fields._by(5, 5, 5) == "each by +5" and fields._by(-2, 1, 3) == "by -2 to +3 (median +1)"
    assert fields._factor(0.5, 0.5, 0.5) == "each a factor of 0.50"


def test_every_statement_is_read_by_name():
    assert "CREATE OR REPLACE TEMP TABLE wla_diff_rows" in sql.statement("rows")
    with pytest.raises(KeyError):
        sql.statement("no_such_statement")


def test_the_diff_by_rule_names_what_it_cannot_find(two_logs):
    with open_archive(two_logs) as arc, pytest.raises(WlaError):
        by_rule.rule_diff(arc, "a", "v1", "v2")
