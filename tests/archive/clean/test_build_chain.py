"""Building a version: time linear in the number of steps, and a version
that drops every job, which is built but not published."""
from __future__ import annotations

import re

import pytest
from cli_run import wla
from real_logs import data_dir
from wla.archive import open as open_archive
from wla.archive.clean import build
from wla.archive.clean.build import clean
from wla.archive.clean.publish import publish
from wla.archive.clean.recipe import parse_recipe
from wla.archive.kernel.errors import EmptyVersion
from wla.archive.store.ingest import ingest
from wla.archive.store.select import log_query

SMALL = "NASA-iPSC-1993-3-head228"


def _chain(steps: int, version: str, log: str = SMALL) -> str:
    return f'log = "{log}"\nversion = "{version}"\n' + '\n[[step]]\nrule = "normalize"\n' * steps


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    path = tmp_path_factory.mktemp("chain") / "a.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [data_dir() / f"{SMALL}.swf.gz"])
    return path


class _Counting:
    """The archive's connection, counting the statements that read a step's
    view: each would evaluate the chain of views before it."""

    def __init__(self, con, views: re.Pattern):
        self.con, self.views, self.reads = con, views, 0

    def execute(self, sql, *args):
        if not sql.startswith("CREATE VIEW") and self.views.search(sql):
            self.reads += 1
        return self.con.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self.con, name)


def test_no_step_evaluates_the_chain_before_it(small, monkeypatch):
    """A measure that needs no clock: while a version of 24 steps is built,
    no statement reads a step's view (each step reads the rows of the one
    before, kept in a temporary table); the views are only created."""
    seen = []
    real = build._build_steps

    def counted(con, *args, **kw):
        seen.append(_Counting(con, re.compile(rf'"{SMALL}@c24/\d+-')))
        return real(seen[-1], *args, **kw)

    monkeypatch.setattr(build, "_build_steps", counted)
    with open_archive(small, write=True) as a:
        result = clean(a, parse_recipe(_chain(24, "c24")))
        views = a.df(f"SELECT count(*) AS n FROM duckdb_views() WHERE view_name LIKE '{SMALL}@c24/%'").n[0]
        final = a.df(f'SELECT * FROM "{SMALL}@c24" ORDER BY line_no').reset_index(drop=True)
        stored = a.df(log_query(a, f"{SMALL}@c24")).reset_index(drop=True)
        temp = a.df("SELECT count(*) AS n FROM duckdb_tables() WHERE table_name LIKE '_wla_build_%'").n[0]
    assert len(result.steps) == 24 and views == 24 and seen[0].reads == 0
    assert final[stored.columns].equals(stored) and temp == 0


# Four jobs for normalize (allowance 3900 s): a wait of -5 s is skew (0), one
# of -5000 s unknown (-1); 0 processors and 0 requested time are unknown.
SKEWED = "".join(f"{j} {10 * j} {w} 100 {p} -1 -1 1 {t} -1 1 1 1 -1 -1 -1 -1 -1\n"
                 for j, w, p, t in [(1, -5, 1, 50), (2, -5000, 1, 50), (3, 0, 0, 50), (4, 0, 1, 0)])


def test_the_decisions_of_a_chain_are_those_of_its_steps(tmp_path):
    """Normalizing again changes nothing more: step 1 of 16 decides what a
    single step decides (by hand: jobs 1 and 2 wait, 3 procs, 4 req_time),
    the 15 after it decide nothing."""
    (tmp_path / "skewed.swf").write_text(SKEWED)
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [tmp_path / "skewed.swf"])
        one = clean(a, parse_recipe(_chain(1, "one", "skewed")))
        many = clean(a, parse_recipe(_chain(16, "many", "skewed")))
        query = ("SELECT step, line_no, field, old_value, new_value, reason FROM decisions "
                 "WHERE version = ? ORDER BY ALL")
        d1, d16 = (a.df(query, [f"skewed@{v}"]) for v in ("one", "many"))
    assert len(one.steps) == 1 and len(many.steps) == 16
    assert list(zip(d1.line_no, d1.field, d1.old_value, d1.new_value)) == [
        (1, "wait", -5, 0), (2, "wait", -5000, -1), (3, "procs", 0, -1), (4, "req_time", 0, -1)]
    assert d1.equals(d16)
    assert [s.changed for s in many.steps] == [4] + [0] * 15


def test_a_version_without_jobs_is_built_but_not_published(small, tmp_path):
    recipe = f'log = "{SMALL}"\nversion = "none"\n\n[[step]]\nrule = "filter"\nwhere = "job >= 0"\n'
    with open_archive(small, write=True) as a:
        result = clean(a, parse_recipe(recipe))
        assert result.jobs == 0 and result.steps[0].dropped == 228
        with pytest.raises(EmptyVersion, match="no jobs .* could not be ingested back"):
            publish(a, SMALL, "none", tmp_path / "none.swf")
        published = a.df("SELECT published_at FROM versions WHERE name = ?", [f"{SMALL}@none"])
    assert not (tmp_path / "none.swf").exists() and published.published_at.isna().all()
    line = wla("publish", SMALL, "none", "-o", tmp_path / "none.swf", archive=small).one_error_line()
    assert "no jobs" in line and not (tmp_path / "none.swf").exists()
    # Why: the file it would be (header lines, no job line) is no log to wla.
    header_only = tmp_path / "header.swf"
    header_only.write_text("; Version: 2.2\n; MaxProcs: 128\n")
    with open_archive(tmp_path / "b.duckdb", write=True) as b:
        [res] = ingest(b, [header_only])
    assert res.status == "failed" and "no job lines" in res.message
