"""One Context: which archive file a run uses, opening it, and every spelling
of a log or version resolved the same way through the Python API."""
from __future__ import annotations

import numpy as np
import pytest
from real_logs import pandas_log
from versions_example import LOG, V1, V2, build  # noqa: F401 (V2: the second version's recipe)
from wla.archive import ArchiveMissing, LogNotFound, UsageError
from wla.archive import open as open_archive
from wla.archive.clean.provenance import provenance
from wla.archive.clean.recipe import parse_recipe
from wla.archive.clean.versions import version_name, why
from wla.archive.context import ENV_PATH, Context
from wla.archive.resolve import LogName, resolve, resolve_version
from wla.sim import from_archive


@pytest.fixture(scope="module")
def archive_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("context") / "a.duckdb"
    build(path)
    return path


@pytest.fixture(scope="module")
def ids(archive_file) -> dict[str, int]:
    with open_archive(archive_file) as a:
        return dict(a.con.execute("SELECT name, log_id FROM logs").fetchall())


def test_every_spelling_of_a_version_is_the_same_name(archive_file, ids):
    v1 = LogName(LOG, "v1", ids[f"{LOG}@v1"])
    with open_archive(archive_file) as a:
        for log, version in [(f"{LOG}@v1", None), (LOG, "v1"), (LOG, f"{LOG}@v1"), (f"{LOG}@v1", "v1"),
                             (f"{LOG}@v1", f"{LOG}@v1")]:
            assert resolve(a, log, version) == v1, (log, version)
        assert str(v1) == v1.name == f"{LOG}@v1"


def test_original_names_the_log_itself(archive_file, ids):
    log = LogName(LOG, None, ids[LOG])
    with open_archive(archive_file) as a:
        for spelled, version in [(LOG, None), (LOG, "original"), (f"{LOG}@original", None),
                                 (f"{LOG}@original", "original")]:
            assert resolve(a, spelled, version) == log
        assert log.name == LOG


@pytest.mark.parametrize("log, version, error, says", [
    ("nope", None, LogNotFound, f"no log named 'nope'; the archive holds: {LOG}"),
    ("nope@v1", None, LogNotFound, "no log named 'nope'"),
    (LOG, "v9", LogNotFound, f"no version 'v9' of {LOG}; its versions: v1, v2"),
    (f"{LOG}@v9", None, LogNotFound, f"no version 'v9' of {LOG}; its versions: v1, v2"),
    (f"{LOG}@v1", "v2", UsageError, f"{LOG}@v1 names version v1 and the version given is v2; give one"),
    (f"{LOG}@v1", "original", UsageError, "names version v1 and the version given is original"),
    (LOG, "other@v1", UsageError, f"version 'other@v1' is not a version of {LOG}"),
])
def test_what_cannot_be_resolved_says_why(archive_file, log, version, error, says):
    with open_archive(archive_file) as a, pytest.raises(error) as e:
        resolve(a, log, version)
    assert says in str(e.value)


def test_what_only_a_version_has_refuses_the_original(archive_file):
    with open_archive(archive_file) as a:
        assert resolve_version(a, LOG, "v2").name == f"{LOG}@v2"
        with pytest.raises(UsageError, match=f"{LOG} is the original log, not a version; name a version "
                                             r"\(its versions: v1, v2\)"):
            resolve_version(a, LOG)
        with pytest.raises(UsageError, match="is the original log"):
            provenance(a, LOG, "original")


def test_the_python_entry_points_take_every_spelling(archive_file):
    jobs = pandas_log(LOG)
    kept_v1 = int((jobs.user != 4).sum())
    with open_archive(archive_file) as a:
        by_name = from_archive(a, f"{LOG}@v1")
        by_option = from_archive(a, LOG, version="v1")
        assert by_name.total == by_option.total == kept_v1
        assert np.array_equal(by_name.job, by_option.job)
        assert by_name.source["log"] == by_option.source["log"] == f"{LOG}@v1"
        original = from_archive(a, LOG, version="original")
        assert original.total == len(jobs) and original.source["log"] == LOG
        assert version_name(a, LOG, "v2") == version_name(a, f"{LOG}@v2") == f"{LOG}@v2"
        assert provenance(a, f"{LOG}@v1") == provenance(a, LOG, "v1")
        job = int(jobs.job[jobs.user == 4].iloc[0])
        decisions, kept = why(a, f"{LOG}@v2", job)
        same = why(a, LOG, job, "v2")
        assert decisions.equals(same[0]) and kept.equals(same[1])
        assert list(kept.version) == [f"{LOG}@v2"] and not kept.kept.any()
        assert list(decisions.version) == [f"{LOG}@v1"]  # dropped by v1, which v2 is built from


def test_a_recipe_built_from_a_version_names_the_original():
    assert parse_recipe(V2).name == f"{LOG}@v2"
    assert parse_recipe(V1).name == f"{LOG}@v1"


# -- which file ----------------------------------------------------------------------------


def test_the_path_given_wins_over_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_PATH, str(tmp_path / "env.duckdb"))
    assert Context(tmp_path / "given.duckdb").path == str(tmp_path / "given.duckdb")
    assert Context().path == str(tmp_path / "env.duckdb")
    monkeypatch.delenv(ENV_PATH)
    assert Context().path == "archive.duckdb"


def test_a_missing_archive_is_never_created_unless_asked(tmp_path):
    path = tmp_path / "missing.duckdb"
    ctx = Context(path)
    with pytest.raises(ArchiveMissing, match=f"no archive at {path}"), ctx.reading():
        pass
    with pytest.raises(ArchiveMissing, match=f"no archive at {path}"), ctx.writing():
        pass
    with pytest.raises(ArchiveMissing):
        ctx.resolve(LOG)
    assert not path.exists() and list(tmp_path.iterdir()) == []
    with ctx.writing(create=True) as a:
        assert a.writable
    assert path.exists()


def test_reading_closes_the_archive_on_leaving(archive_file):
    ctx = Context(archive_file)
    with ctx.reading() as a:
        assert not a.writable and a.con is not None
    assert a.con is None
    with ctx.writing() as w:  # nothing of the reader is left open
        assert w.writable
    assert ctx.resolve(LOG, "v2").name == f"{LOG}@v2"
