"""Predicates at their edges: impossible dates, numbers beyond 64 bits,
thousands of terms, deep nesting. Each is an answer or a PredicateError
naming the problem, never another exception; and sqlglot warns of nothing."""
from __future__ import annotations

import logging
import sys
from datetime import timedelta, tzinfo

import numpy as np
import pytest
import sqlglot
from real_logs import data_dir, pandas_log
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe
from wla.archive.clean.rules import parse_rule
from wla.archive.kernel.clock import LogClock
from wla.archive.kernel.errors import PredicateError, RecipeError, RuleError
from wla.archive.store import predicate
from wla.archive.store.ingest import ingest
from wla.archive.store.predicate import MAX_DEPTH, MAX_TERMS, MAX_VALUES, predicate_sql

SP2 = "SDSC-SP2-1998-4.2-cln"
CLOCK = LogClock(893466664, "US/Pacific")


@pytest.fixture(scope="module")
def sp2():
    return pandas_log(SP2)


def _count(real_archive, text: str) -> int:
    where = predicate_sql(text, CLOCK)
    return int(real_archive.df(
        f"SELECT count(*) AS n FROM jobs WHERE log_id = {real_archive.log_id(SP2)} AND ({where})").n.item())


@pytest.mark.parametrize("date", ["2024-02-30", "1998-13-01", "1998-02-29", "1998-06-31",
                                  "1998-06-01 24:00", "1998-06-01 12:60", "0000-01-01"])
def test_an_impossible_date_is_named(date):
    with pytest.raises(PredicateError) as e:
        predicate_sql(f"submit < '{date}'", CLOCK)
    assert f"not a date: '{date}'" in str(e.value)


@pytest.mark.parametrize("tz", ["UTC", "US/Pacific", "Asia/Tokyo", "Pacific/Kiritimati", "Etc/GMT+12"])
@pytest.mark.parametrize("date", ["0001-01-01", "0001-01-01 00:00", "9999-12-31 23:59:59"])
def test_dates_at_the_ends_of_the_calendar_are_numbers_or_refused(tz, date):
    try:
        sql = predicate_sql(f"submit < '{date}'", LogClock(893466664, tz))
    except PredicateError:
        return
    seconds = int(sql.split("<")[1]) + 893466664  # since 1970 rather than since the log's start
    # Year 1 is 1969 years before 1970, year 9999 8029 after (and a few hours either way).
    assert -1970 * 366 * 86400 < seconds < 8031 * 366 * 86400


def test_a_date_that_overflows_is_a_predicate_error(monkeypatch):
    class Far(tzinfo):
        """A zone whose offset cannot be applied, as at the ends of the calendar."""
        key = "Far/Away"

        def __init__(self, name):
            pass

        def utcoffset(self, dt):
            raise OverflowError("date value out of range")

        def dst(self, dt):
            return timedelta(0)

        def tzname(self, dt):
            return "FAR"

    monkeypatch.setattr(predicate, "ZoneInfo", Far)
    with pytest.raises(PredicateError, match="'9999-12-31' is out of range"):
        predicate_sql("submit < '9999-12-31'", LogClock(0, "Far/Away"))


def test_a_date_beyond_the_logs_clock_is_refused():
    with pytest.raises(PredicateError, match="out of range on this log's clock"):
        predicate_sql("submit < '9999-12-31'", LogClock(-(2**63), "UTC"))


@pytest.mark.parametrize("text", ["job > 1e999", "job > -1e999", "job in (1, 1e400)", "run between 0 and 1e309",
                                  "submit > 99999999999999999999999", "job = 9223372036854775808",
                                  "job = -9223372036854775809", "mem < 1e19"])
def test_numbers_beyond_64_bits_are_refused(text):
    with pytest.raises(PredicateError, match="out of range"):
        predicate_sql(text, CLOCK)


def test_not_a_number_is_not_a_field():
    with pytest.raises(PredicateError, match="'nan': job takes a number"):
        predicate_sql("job in (nan)", CLOCK)


def test_the_ends_of_the_64_bit_range_are_numbers():
    assert predicate_sql("job = 9223372036854775807") == "job = 9223372036854775807"
    assert predicate_sql("job >= -9223372036854775808") == "job >= -9223372036854775808"


def test_163_or_terms(real_archive, sp2):
    jobs = list(range(1000, 1163))
    text = " or ".join(f"job = {j}" for j in jobs)
    assert _count(real_archive, text) == int(sp2.job.isin(jobs).sum()) == 163


@pytest.mark.slow
@pytest.mark.long
def test_10000_or_terms_and_and_terms_work(real_archive, sp2):
    rng = np.random.default_rng(7)
    jobs = rng.choice(np.arange(1, 80_000), size=10_000, replace=False)
    text = " or ".join(f"job = {j}" for j in jobs)
    want = int(sp2.job.isin(jobs).sum())
    assert 1000 < want < 10_000
    assert _count(real_archive, text) == want
    # The same jobs left out: a long chain of `<>` under and, which DuckDB's
    # filter pushdown would combine pair by pair (see predicate_sql).
    text = " and ".join(f"job <> {j}" for j in jobs[:2000])
    sql = predicate_sql(text, CLOCK)
    assert sql.startswith("CASE WHEN ") and sql.endswith(" THEN TRUE ELSE FALSE END")
    assert _count(real_archive, text) == int((~sp2.job.isin(jobs[:2000])).sum())


def test_too_many_terms_or_values_are_refused():
    with pytest.raises(PredicateError, match=f"{MAX_TERMS + 1:,} conditions joined by and/or; at most"):
        predicate_sql(" or ".join(f"job = {j}" for j in range(MAX_TERMS + 1)))
    with pytest.raises(PredicateError, match=f"at most {MAX_VALUES:,}"):
        predicate_sql("job in (" + ",".join(str(j) for j in range(MAX_VALUES + 2)) + ")")


@pytest.mark.parametrize("text", [
    "(" * 3000 + "job = 1" + ")" * 3000,
    "(" * (MAX_DEPTH + 1) + "job = 1" + ")" * (MAX_DEPTH + 1),
    "not " * (MAX_DEPTH + 1) + "job = 1",
    "not (" * 13 + "job = 1" + ")" * 13,
    "job = " + "- " * (MAX_DEPTH + 1) + "1",
    "job in (" * 3000 + "1" + ")" * 3000,
])
def test_deep_nesting_is_refused_before_parsing(text):
    with pytest.raises(PredicateError, match=f"levels deep .*at most {MAX_DEPTH}"):
        predicate_sql(text)


def test_nesting_up_to_the_limit_is_read():
    assert predicate_sql("(" * MAX_DEPTH + "job = 1" + ")" * MAX_DEPTH) == \
        "(" * MAX_DEPTH + "job = 1" + ")" * MAX_DEPTH
    assert predicate_sql("not " * MAX_DEPTH + "job = 1").count("NOT") == MAX_DEPTH
    # Parentheses in a string are text, not nesting.
    with pytest.raises(PredicateError, match="not a date"):
        predicate_sql("submit < '" + "(" * 100 + "'", CLOCK)


def test_a_recursion_error_is_still_a_predicate_error():
    """The last guard: with far less stack than usual, a predicate within the
    limits still ends in a PredicateError."""
    text = "(" * MAX_DEPTH + "job = 1" + ")" * MAX_DEPTH
    predicate._parsed.cache_clear()  # parsed afresh, not taken from the cache
    depth = len(__import__("inspect").stack())
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 120)
    try:
        with pytest.raises(PredicateError, match="too deeply"):
            predicate_sql(text)
    finally:
        sys.setrecursionlimit(old)


def test_sqlglot_warns_of_nothing(caplog):
    """sqlglot reads a statement it does not know as a 'Command' and logs a
    warning; wla parses strictly, so that is an error and nothing is logged."""
    with caplog.at_level(logging.WARNING, logger="sqlglot"):
        sqlglot.parse("CALL foo()", read="duckdb")
    assert any("unsupported syntax" in r.getMessage() for r in caplog.records)  # the test can see it
    caplog.clear()
    head = "-- name: mine\n-- version: 1\n-- rationale:\n--   A rule of a test.\n"
    with caplog.at_level(logging.WARNING, logger="sqlglot"):
        for text in ("CALL foo()", "LOAD httpfs", "user = 1; CALL foo()", "VACUUM"):
            with pytest.raises(PredicateError):
                predicate_sql(text)
        for sql in ("CALL foo()", "LOAD httpfs", "VACUUM", "SELECT * FROM input; CALL foo()"):
            with pytest.raises(RuleError, match="a rule is one SELECT"):
                parse_rule(head + sql + "\n", "mine.sql")
    assert caplog.records == []


@pytest.mark.parametrize("where, says", [
    ("(" * 3000 + "job = 1" + ")" * 3000, "levels deep"),
    (" or ".join(f"job = {j}" for j in range(MAX_TERMS + 1)), "conditions joined by and/or"),
    ("submit < '2024-02-30'", "not a date: '2024-02-30'"),
    ("job > 1e999", "out of range"),
])
def test_a_predicate_parameter_names_file_and_step(tmp_path, where, says):
    text = (f'log = "{SP2}"\nversion = "v"\n\n[[step]]\nrule = "normalize"\n\n'
            f'[[step]]\nrule = "filter"\nwhere = "{where}"\n')
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [data_dir() / "NASA-iPSC-1993-3-head228.swf.gz"], name=SP2)
        with pytest.raises(RecipeError) as e:
            clean(a, parse_recipe(text, "r.toml"))
    assert str(e.value).startswith("r.toml: step 2 (filter): ") and says in str(e.value)


@pytest.mark.slow  # the same 10,000 terms as above, through a whole build
def test_10000_or_terms_in_a_recipe(tmp_path):
    log = "NASA-iPSC-1993-3-head228"
    raw = pandas_log(log)
    jobs = range(0, 20_000, 2)  # 10,000 terms: the even job numbers
    where = " or ".join(f"job = {j}" for j in jobs)
    text = f'log = "{log}"\nversion = "v"\n\n[[step]]\nrule = "filter"\nwhere = "{where}"\n'
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [data_dir() / f"{log}.swf.gz"])
        result = clean(a, parse_recipe(text, "r.toml"))
        reasons = a.df("SELECT DISTINCT reason FROM decisions").reason.tolist()
    assert result.steps[0].dropped == int((raw.job % 2 == 0).sum()) > 100
    assert result.jobs == int((raw.job % 2 == 1).sum())
    # The reason repeats the predicate, shortened: every dropped job carries it.
    assert len(reasons) == 1 and reasons[0].startswith("matches the filter job = 0 or job = 2")
    assert len(reasons[0]) < 300
