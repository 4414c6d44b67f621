"""`wla sql` on a terminal: at most --limit rows (100) and how many more;
every row in a file or with --all; DuckDB's hint kept in the one-line error."""
from __future__ import annotations

import pytest
from cli_run import wla
from wla.archive import QueryError
from wla.archive import open as open_archive
from wla.archive.store.ingest import ingest


@pytest.fixture(scope="module")
def archive_105(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sql")
    swf = folder / "many.swf"
    swf.write_text("; MaxProcs: 8\n" + "".join(f"{j} {j} 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                              for j in range(1, 106)))
    path = folder / "a.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [swf])
    return path


def _rows(out: str) -> list[str]:
    return [ln.strip() for ln in out.splitlines()[1:] if ln.strip() and not ln.startswith("...")]


def test_a_terminal_shows_the_first_100_rows_and_how_many_more(archive_105):
    r = wla("sql", "SELECT job FROM jobs ORDER BY job", archive=archive_105)
    assert r.status == 0, r.err
    assert _rows(r.out) == [str(j) for j in range(1, 101)]
    assert r.out.rstrip().endswith("... 5 more rows (--limit N shows N, --all every one)")
    two = wla("sql", "SELECT job FROM jobs ORDER BY job", "--limit", "104", archive=archive_105)
    assert two.out.rstrip().endswith("... 1 more row (--limit N shows N, --all every one)")
    for every in (["--all"], ["--limit", "0"]):
        r = wla("sql", "SELECT job FROM jobs ORDER BY job", *every, archive=archive_105)
        assert _rows(r.out) == [str(j) for j in range(1, 106)] and "more row" not in r.out


def test_a_file_holds_every_row(archive_105, tmp_path):
    out = tmp_path / "rows.txt"
    assert wla("sql", "SELECT job FROM jobs ORDER BY job", "-o", out, archive=archive_105).status == 0
    assert _rows(out.read_text()) == [str(j) for j in range(1, 106)]
    csv = wla("sql", "SELECT job FROM jobs ORDER BY job", "-f", "csv", archive=archive_105)
    assert csv.out.splitlines()[1:] == [str(j) for j in range(1, 106)]


def test_duckdb_s_hint_stays_in_the_one_line(archive_105):
    line = wla("sql", "SELECT sumx(run) FROM jobs", archive=archive_105).one_error_line()
    assert line == 'wla: Catalog Error: Scalar Function with name sumx does not exist! Did you mean "sum"?'
    with open_archive(archive_105) as a, pytest.raises(QueryError) as e:
        a.sql("SELECT * FROM jobz")
    assert str(e.value) == 'Catalog Error: Table with name jobz does not exist! Did you mean "jobs"?'
    assert "LINE 1" not in str(e.value)
