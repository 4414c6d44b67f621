"""The user's notes on a log (archive/store/notes.py, `wla note`): kept with
their day, listed in order, kept per log, read again after reopening, read
by a log's versions, and damaged text refused in one line before anything
is written."""
from __future__ import annotations

import datetime as dt

import pytest
from cli_run import wla
from real_logs import data_dir
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.kernel.errors import LogNotFound, UsageError, WlaError
from wla.archive.store.ingest import ingest
from wla.archive.store.notes import MAX_CHARS, add_note, check_note, notes

NASA, KTH = "NASA-iPSC-1993-3-head228", "KTH-SP2-1996-2.1-cln"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Two logs and a version, built once; each test takes a copy."""
    folder = tmp_path_factory.mktemp("notes")
    path = folder / "a.duckdb"
    with open_archive(path, write=True) as a:
        assert [r.status for r in ingest(a, [data_dir() / f"{n}.swf.gz" for n in (NASA, KTH)])] == ["ingested"] * 2
        recipe = folder / "r.toml"
        recipe.write_text(f'log = "{NASA}"\nversion = "v1"\n\n[[step]]\nrule = "normalize"\n')
        clean(a, recipe)
    return path


@pytest.fixture
def archive(built, tmp_path):
    path = tmp_path / "a.duckdb"
    path.write_bytes(built.read_bytes())
    return path


def _rows(path) -> list[tuple]:
    with open_archive(path) as a:
        return a.rows("SELECT log, seq, noted_on, text FROM notes ORDER BY log, seq")


def test_notes_are_kept_per_log_in_order_with_their_day_and_survive_reopening(archive):
    with open_archive(archive, write=True) as a:
        first = add_note(a, NASA, "pwd jobs are cut from this head", on=dt.date(2024, 1, 2))
        add_note(a, KTH, "limits changed in 1997", on=dt.date(2024, 1, 3))
        second = add_note(a, NASA, "  starts stand for arrivals  ", on=dt.date(2023, 12, 31))
        assert (first.seq, second.seq, second.text) == (1, 2, "starts stand for arrivals")
    assert _rows(archive) == [
        (KTH, 1, dt.date(2024, 1, 3), "limits changed in 1997"),
        (NASA, 1, dt.date(2024, 1, 2), "pwd jobs are cut from this head"),
        (NASA, 2, dt.date(2023, 12, 31), "starts stand for arrivals")]
    with open_archive(archive) as a:  # read-only, after reopening
        assert [(n.seq, n.text) for n in notes(a, NASA)] == [(1, "pwd jobs are cut from this head"),
                                                            (2, "starts stand for arrivals")]
        assert [n.to_dict() for n in notes(a, KTH)] == [
            {"log": KTH, "seq": 1, "noted_on": "2024-01-03", "text": "limits changed in 1997"}]
        assert notes(a, "lublin_256") == []


def test_a_note_without_a_day_is_of_today(archive):
    with open_archive(archive, write=True) as a:
        before = dt.datetime.now(dt.timezone.utc).date()
        kept = add_note(a, KTH, "today's")
        assert before <= kept.noted_on <= dt.datetime.now(dt.timezone.utc).date()


@pytest.mark.parametrize("text, message", [
    ("", "a note needs text"), ("   ", "a note needs text"),
    ("x" * (MAX_CHARS + 1), f"a note holds at most {MAX_CHARS:,} characters; this one has {MAX_CHARS + 1:,}"),
    ("two\nlines", r"one line of visible text; it holds \n"),
    ("a\x1b]0;owned\x07b", r"it holds \x1b"), ("tab\there", r"it holds \t"), ("nul\x00", r"it holds \x00"),
    ("bidi\u202eevil", r"it holds \u202e"),
])
def test_damaged_text_is_refused_in_one_line_and_nothing_is_written(archive, text, message):
    with pytest.raises(UsageError) as raised:
        check_note(text)
    said = str(raised.value)
    assert message in said and "\n" not in said and "\x1b" not in said, said
    run = wla("note", NASA, text, archive=archive)
    assert run.status == 1 and run.one_error_line() == f"wla: {said}"
    assert _rows(archive) == []


def test_an_unknown_log_and_a_read_only_archive_are_refused(archive):
    with open_archive(archive, write=True) as a:
        with pytest.raises(LogNotFound, match="no log named 'NASA'"):
            add_note(a, "NASA", "x")
    with open_archive(archive) as a:
        with pytest.raises(WlaError, match="open read-only"):
            add_note(a, NASA, "x")
    run = wla("note", "NASA", "x", archive=archive)
    assert run.status == 1 and run.one_error_line().startswith("wla: no log named 'NASA'")
    assert _rows(archive) == []


def test_the_command_keeps_a_note_on_the_original_and_a_version_lists_it(archive):
    kept = wla("note", f"{NASA}@v1", "the head of the log: 228 jobs", "--date", "2024-05-01", archive=archive)
    assert (kept.status, kept.out) == (0, f"noted on {NASA} (2024-05-01, note 1)\n")
    assert _rows(archive) == [(NASA, 1, dt.date(2024, 5, 1), "the head of the log: 228 jobs")]
    for name in (NASA, f"{NASA}@v1"):
        listed = wla("note", name, archive=archive)
        assert listed.status == 0 and listed.out.splitlines()[0] == name
        assert listed.out.splitlines()[-1] == "  your note of 2024-05-01: the head of the log: 228 jobs"
    bad = wla("note", NASA, "x", "--date", "May 1", archive=archive)
    assert bad.status == 1 and bad.one_error_line() == "wla: --date 'May 1' is not a day written YYYY-MM-DD"
    alone = wla("note", NASA, "--date", "2024-05-01", archive=archive)
    assert alone.status == 1 and "give the note's text too" in alone.one_error_line()
