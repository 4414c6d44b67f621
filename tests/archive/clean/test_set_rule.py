"""The rule `set` (schema/rules/set.sql with archive/clean/set_rule.py): the
ranges of each field worked out by hand, damaged recipe values refused in
one line before anything is written, and the shipped recipe of the shaking
paper's butterfly effect on SDSC SP2, checked with pandas from the file."""
from __future__ import annotations

import math

import pytest
from real_logs import ROOT, data_dir, pandas_log
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe, read_recipe
from wla.archive.clean.set_rule import check_setting, field_range
from wla.archive.kernel.errors import RecipeError, UsageError
from wla.archive.store.ingest import ingest
from wla.archive.swf.fields import COLUMNS

LOG = "SDSC-SP2-1998-4.2-cln"
RECIPE = ROOT / "schema" / "recipes" / f"{LOG}-trunc.toml"


@pytest.mark.parametrize("field, value, kept", [
    ("run", 64800, 64800), ("run", 0, 0), ("run", -1, -1), ("run", 0.5, 0.5), ("submit", 2**53, 2**53),
    ("procs", 16.0, 16), ("procs", 1, 1), ("status", 0, 0), ("status", 5, 5), ("status", -1, -1),
    ("job", 1, 1), ("user_id", 0, 0), ("req_time", 0.25, 0.25), ("prev_job", -1, -1),
])
def test_values_each_field_can_hold(field, value, kept):
    assert check_setting(field, value) == (field, kept)
    assert type(check_setting(field, value)[1]) is type(kept)


@pytest.mark.parametrize("field, value, message", [
    ("runtime", 1, "field 'runtime' is not an SWF field; one of: job, submit,"),
    ("RUN", 1, "field 'RUN' is not an SWF field"),
    (4, 1, "field 4 is not an SWF field"),
    ("run", -2, "value -2 cannot be run: run is -1 (unknown) or a number >= 0 and at most 2^53"),
    ("run", 2.0**53 + 2, "value 9007199254740994.0 cannot be run"),
    ("status", 6, "value 6 cannot be status: status is -1 (unknown) or a whole number in [0, 5]"),
    ("procs", 0, "value 0 cannot be procs: procs is -1 (unknown) or a whole number >= 1"),
    ("procs", 2.5, "value 2.5 cannot be procs"),
    ("req_time", 0, "value 0 cannot be req_time: req_time is -1 (unknown) or a number > 0 and at most 2^53"),
    ("job", -1, "value -1 cannot be job: job is a whole number >= 1"),
    ("run", math.inf, "value inf for run is not a finite number"),
    ("run", math.nan, "value nan for run is not a finite number"),
    ("run", True, "value True for run is not a finite number"),
    ("run", "64800", "value '64800' for run is not a finite number"),
])
def test_what_no_field_can_hold_is_refused_in_one_line(field, value, message):
    with pytest.raises(UsageError) as e:
        check_setting(field, value)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_every_field_has_a_range_said_in_words():
    assert [field_range(f) for f in ("job", "run", "mem", "status")] == [
        "a whole number >= 1", "-1 (unknown) or a number >= 0 and at most 2^53",
        "-1 (unknown) or a number > 0 and at most 2^53",
        "-1 (unknown) or a whole number in [0, 5]"]
    assert all(field_range(f) for f in COLUMNS)


MADE = "1 0 10 100 4 -1 -1 4 3600 -1 1 7 -1 -1 -1 -1 -1 -1\n2 50 0 200 8 -1 -1 8 7200 -1 1 3 -1 -1 -1 -1 -1 -1\n"


@pytest.mark.parametrize("step, message", [
    ('field = "runtime"\nvalue = 1\nwhere = "job=1"', "step 1 (set): field 'runtime' is not an SWF field"),
    ('field = "run; drop table jobs"\nvalue = 1\nwhere = "job=1"', "is not an SWF field"),
    ('field = 11\nvalue = 1\nwhere = "job=1"', "step 1 (set): field: 11 is not of type text"),
    ('field = "run"\nvalue = "ten"\nwhere = "job=1"', "step 1 (set): value: 'ten' is not of type number"),
    ('field = "run"\nvalue = true\nwhere = "job=1"', "value: True is not of type number"),
    ('field = "run"\nvalue = nan\nwhere = "job=1"', "value: nan is not a finite number"),
    ('field = "run"\nvalue = -inf\nwhere = "job=1"', "value: -inf is not a finite number"),
    ('field = "run"\nvalue = 1e300\nwhere = "job=1"', "outside the 64-bit range"),
    ('field = "status"\nvalue = 9\nwhere = "job=1"', "step 1 (set): value 9 cannot be status"),
    ('field = "run"\nvalue = 1\nwhere = "job=3"', "step 1 (set): the predicate 'job=3' selects no job of the 2"),
    ('field = "run"\nvalue = 1\nwhere = "job=1; drop table jobs"', "a predicate is one condition"),
    ('field = "run"\nvalue = 1\nwhere = "nosuch=1"', "step 1 (set): "),
    ('field = "run"\nvalue = 1', "rule set needs where"),
    ('field = "run"\nvalue = 1\nwhere = "job=1"\nwhy = "x"', "rule set has no parameter why"),
    ('field = "submit"\nvalue = 9e15\nwhere = "job=1"', "job 1 (line 1): "),
])
def test_damaged_recipe_values_are_refused_and_nothing_is_written(tmp_path, step, message):
    (tmp_path / "made.swf").write_text(MADE)
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [tmp_path / "made.swf"])
        with pytest.raises(RecipeError) as e:
            clean(a, parse_recipe(f'log = "made"\nversion = "x"\n\n[[step]]\nrule = "set"\n{step}\n'))
        assert message in str(e.value) and "\n" not in str(e.value)
        assert a.con.execute("SELECT count(*) FROM logs WHERE name = 'made@x'").fetchall() == [(0,)]
        assert a.con.execute("SELECT count(*) FROM decisions").fetchall() == [(0,)]


@pytest.fixture(scope="module")
def truncated(tmp_path_factory):
    path = tmp_path_factory.mktemp("trunc") / "a.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [data_dir() / f"{LOG}.swf.gz"])
        result = clean(a, read_recipe(RECIPE))
    with open_archive(path) as a:
        yield a, result


def test_the_butterfly_recipe_cuts_one_run_and_nothing_else(truncated):
    """Job 64241 ran 64,830 s on a request of 64,800 s; afterwards its run is
    64,800 s and every other value of every job is the file's."""
    a, result = truncated
    df = pandas_log(LOG)
    [row] = df[df.job == 64241].to_dict("records")
    assert (row["run"], row["req_time"]) == (64830, 64800)
    got = a.df(f"SELECT {', '.join(COLUMNS)} FROM jobs WHERE log_id = {a.log_id(LOG + '@trunc')} ORDER BY line_no")
    assert len(got) == len(df) == 59715
    want = df.copy()
    want.loc[want.job == 64241, "run"] = 64800
    assert (got.to_numpy(float) == want.to_numpy(float)).all()  # the file's 18 fields, in order
    assert (got.to_numpy(float) != df.to_numpy(float)).sum() == 1
    decisions = a.df("SELECT job, action, field, old_value, new_value FROM decisions")
    assert decisions.values.tolist() == [[64241, "modify", "run", 64830.0, 64800.0]]
    [step] = result.steps
    assert (step.rule, step.dropped, step.changed) == ("set", 0, 1)
    assert step.note == "run set to 64800 for 1 job (job=64241)"
