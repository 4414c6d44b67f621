"""The timing rule (Table 3's fixes) on SDSC SP2: the side effect of start =
submit on runs over their request, counted independently with pandas."""
from __future__ import annotations

import pytest
from real_logs import data_dir, pandas_log
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe
from wla.archive.kernel.errors import RecipeError
from wla.archive.store.ingest import ingest

LOG = "SDSC-SP2-1998-4.2-cln"


def _over(df) -> int:
    return int(((df.run >= 0) & (df.req_time > 0) & (df.run > df.req_time + 60)).sum())


@pytest.fixture(scope="module")
def sp2(tmp_path_factory):
    path = tmp_path_factory.mktemp("timing") / "a.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [data_dir() / f"{LOG}.swf.gz"])
        for version, fix in (("s", "start = submit"), ("d", "submit = start")):
            clean(a, parse_recipe(f'log = "{LOG}"\nversion = "{version}"\n\n[[step]]\nrule = "timing"\n'
                                  f'fix = "{fix}"\n'))
    with open_archive(path) as a:
        yield a


def test_start_equals_submit_on_sdsc_sp2(sp2):
    df = pandas_log(LOG)
    missing = (df.run == -1) & (df.status != 1) & (df.wait >= 0) & (df.submit != -1)
    assert missing.sum() == 5671 and (df.status[df.run == -1] == 5).all()
    after = df.copy()
    after.loc[missing, "run"] = after.loc[missing, "wait"]
    after.loc[missing, "wait"] = 0
    assert (_over(df), _over(after)) == (383, 2178)
    got = sp2.df(f"SELECT run, req_time FROM jobs WHERE log_id = {sp2.log_id(LOG + '@s')}")
    assert _over(got) == _over(after)
    decisions = sp2.df("SELECT field, count(*) AS n FROM decisions GROUP BY field ORDER BY field")
    # a decision is kept where a value changes: two of the waits were 0 already
    assert decisions.values.tolist() == [["run", 5671], ["wait", int((missing & (df.wait != 0)).sum())]]
    assert (missing & (df.wait == 0)).sum() == 2


def test_submit_equals_start_leaves_sdsc_sp2(sp2):
    """No start of the cleaned SDSC SP2 precedes its submit: the default fix has nothing to do."""
    got = sp2.df(f"SELECT run, req_time FROM jobs WHERE log_id = {sp2.log_id(LOG + '@d')}")
    assert _over(got) == _over(pandas_log(LOG)) == 383


def test_an_unknown_fix_is_refused(tmp_path):
    (tmp_path / "made.swf").write_text("1 100 -300 50 1 -1 -1 1 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n")
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [tmp_path / "made.swf"])
        with pytest.raises(RecipeError, match="fix must be one of"):
            clean(a, parse_recipe('log = "made"\nversion = "x"\n\n[[step]]\nrule = "timing"\nfix = "end = start"\n'))
