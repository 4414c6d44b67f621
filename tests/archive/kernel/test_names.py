"""Names are names: one line of visible text wherever a log or version name
comes in (ingest, --name, convert, recipes), and a published header that
reads back as exactly the original header lines plus the Note lines."""
from __future__ import annotations

import gzip
import json
import re
import shutil

import pandas as pd
import pytest
from cli_run import wla
from real_logs import data_dir
from wla.archive import open as open_archive
from wla.archive.clean.build import clean, header_line
from wla.archive.clean.publish import publish
from wla.archive.clean.recipe import parse_recipe
from wla.archive.convert.records import convert
from wla.archive.kernel.errors import InvalidName, RecipeError, WlaError
from wla.archive.kernel.names import MAX_NAME, check_log_name, check_log_ref, check_name, check_version_name
from wla.archive.store.ingest import ingest

SMALL = "NASA-iPSC-1993-3-head228"
JOB_LINE = "1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1"
INJECTED = f"evil\n{JOB_LINE}"  # a name that would add a job line to a header
FIELDS = ["job", "submit", "wait", "run", "procs", "cpu", "mem", "req_procs", "req_time", "req_mem",
          "status", "user", "group", "app", "queue", "partition", "prev", "think"]


@pytest.mark.parametrize("name", ["SDSC-SP2-1998-4.2-cln", "a b", "Zürich-2020", "x" * MAX_NAME, "日本"])
def test_ordinary_names_are_taken(name):
    assert check_name(name) == name and check_log_name(name) == name


@pytest.mark.parametrize("name, says", [
    ("", "is empty"),
    (" lead", "blank"),
    ("trail\t", "blank"),
    ("a\nb", "control character (U+000A)"),
    ("a\rb", "control character (U+000D)"),
    ("a\x00b", "control character (U+0000)"),
    ("a\x85b", "control character (U+0085)"),
    ("a\u2028b", "line separator (U+2028)"),
    ("a\u2029b", "paragraph separator (U+2029)"),
    ("a\u200bb", "format character (U+200B)"),
    ("a\u202eb", "format character (U+202E)"),
    ("a\udcffb", "surrogate (U+DCFF)"),
    ("x" * (MAX_NAME + 1), f"at most {MAX_NAME}"),
])
def test_names_that_are_not_one_visible_line_are_refused(name, says):
    with pytest.raises(InvalidName) as e:
        check_name(name)
    assert says in str(e.value)
    assert "\n" not in str(e.value) and "\u2028" not in str(e.value)


def test_log_and_version_names():
    with pytest.raises(InvalidName, match="'@'"):
        check_log_name("LOG@v1")
    assert check_log_ref("LOG@v1") == "LOG@v1"  # a recipe may start from a version
    for bad in ("LOG@v@1", "LOG@", "@v1", "LOG@v 1"):
        with pytest.raises(InvalidName):
            check_log_ref(bad)
    assert check_version_name("wla1.2_b-3") == "wla1.2_b-3"
    for bad in ("-v", "v 1", "v\n1", ""):
        with pytest.raises(InvalidName):
            check_version_name(bad)


@pytest.fixture
def small_file(tmp_path):
    path = tmp_path / f"{SMALL}.swf.gz"
    shutil.copy(data_dir() / f"{SMALL}.swf.gz", path)
    return path


def _logs(path) -> list[str]:
    with open_archive(path) as a:
        return a.df("SELECT name FROM logs ORDER BY name").name.tolist()


def test_an_injected_name_is_refused_at_ingest(tmp_path, small_file):
    archive = tmp_path / "a.duckdb"
    with open_archive(archive, write=True) as a:
        for name in (INJECTED, "a\u2028b", "x@y", "", " x"):
            with pytest.raises(InvalidName):
                ingest(a, [small_file], name=name)
        # The name a file gives itself is checked the same way; that file
        # fails alone, and the other files of the batch still go in.
        folder = tmp_path / "batch"
        folder.mkdir()
        odd = folder / f"{INJECTED}.swf.gz"
        shutil.copy(small_file, odd)
        shutil.copy(small_file, folder / "plain.swf.gz")
        results = ingest(a, [folder])
        assert [r.status for r in results] == ["failed", "ingested"]
        assert isinstance(results[0].error, InvalidName) and "control character" in results[0].message
        assert "\n" not in results[0].message and results[0].message.endswith("; ingest it with name")
    assert _logs(archive) == ["plain"]
    line = wla("ingest", small_file, "--name", INJECTED, archive=archive).one_error_line()
    assert "control character (U+000A)" in line
    assert _logs(archive) == ["plain"]


def test_an_injected_name_is_refused_by_convert(tmp_path):
    records = tmp_path / "records.csv"
    records.write_text("arrival,run,procs\n1,10,1\n")
    archive = tmp_path / "a.duckdb"
    with open_archive(archive, write=True) as a:
        with pytest.raises(InvalidName, match="control character"):
            convert(a, records, "csv", name=INJECTED)
        with pytest.raises(InvalidName, match="'@'"):
            convert(a, records, "csv", name="x@v1")
    line = wla("convert", records, "-f", "csv", "--name", "a\u2029b", archive=archive).one_error_line()
    assert "paragraph separator" in line
    assert _logs(archive) == []


@pytest.mark.parametrize("log, version, says", [
    (json.dumps(INJECTED), '"v1"', "control character"),
    ('"x\\u2028y"', '"v1"', "line separator"),
    (f'"{SMALL}"', json.dumps(f"v1\n{JOB_LINE}"), "version name"),
    (f'"{SMALL}"', '"v\\u2028"', "version name"),
    (f'"{SMALL}@v1@v2"', '"v3"', "version name"),
])
def test_an_injected_name_is_refused_in_a_recipe(tmp_path, log, version, says):
    text = f'log = {log}\nversion = {version}\n\n[[step]]\nrule = "normalize"\n'
    with pytest.raises(RecipeError) as e:
        parse_recipe(text, "r.toml")
    assert str(e.value).startswith("r.toml: ") and says in str(e.value)
    (tmp_path / "r.toml").write_text(text)
    line = wla("clean", tmp_path / "r.toml", archive=tmp_path / "a.duckdb").one_error_line()
    assert says in line


def _raw(path) -> tuple[list[str], pd.DataFrame]:
    """An SWF file read without wla: its comment lines, and its jobs."""
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        lines = fh.read().split("\n")
    comments = [ln for ln in lines if ln.startswith(";")]
    rows = [ln.split() for ln in lines if ln.strip() and not ln.startswith(";")]
    return comments, pd.DataFrame([[float(x) for x in r] for r in rows], columns=FIELDS)


# Values a header line must never let out: line breaks of every kind, quotes.
REASON = 'drop "them"\nnow\r\u2028\u2029\x85 (user 1\'s)'


def test_the_published_header_is_the_original_plus_the_notes(tmp_path, small_file):
    recipe = (f'log = "{SMALL}"\nversion = "v1"\n\n'
              '[[step]]\nrule = "normalize"\n\n'
              f'[[step]]\nrule = "filter"\nwhere = "user = 1 or queue in (1)"\nreason = {json.dumps(REASON)}\n\n'
              '[[step]]\nrule = "status"\nstatuses = [0, 5]\n\n'
              '[[step]]\nrule = "trim"\nbefore = "1993-10-01 06:00"\n')
    out = tmp_path / "v1.swf.gz"
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [small_file])
        built = clean(a, parse_recipe(recipe, "r.toml"))
        published = publish(a, SMALL, "v1", out)
    original, raw = _raw(small_file)
    comments, jobs = _raw(out)
    notes = comments[len(original):]
    assert comments[:len(original)] == original
    assert len(notes) == 1 + len(built.steps) and all(n.startswith("; Note: ") for n in notes)
    # Every line of the file is one line to any reader, even one that also
    # breaks at U+2028 and the like (str.splitlines).
    text = gzip.decompress(out.read_bytes()).decode("utf-8")
    assert text.splitlines() == text.split("\n")[:-1]
    # The reason went in whole, JSON-quoted.
    quoted = notes[2].split("reason=", 1)[1].rsplit(": ", 1)[0]
    assert json.loads(quoted) == REASON
    # The jobs: those pandas keeps by the same rules. The log starts at
    # "Fri Oct 01 00:00:03 PDT 1993" (its StartTime), so 06:00 that day is
    # 6 hours less 3 seconds into it.
    cut = 6 * 3600 - 3
    keep = (~((raw.user == 1) | (raw.queue == 1)) & ~raw.status.isin([0, 5])
            & ~((raw.submit != -1) & (raw.submit < cut)))
    assert jobs.job.tolist() == raw.job[keep].tolist() and published.jobs == int(keep.sum())
    assert 0 < published.jobs < len(raw) - 20
    # Each step's note: its rule and the jobs it dropped, counted here in turn.
    filtered = (raw.user == 1) | (raw.queue == 1)
    trimmed = ~filtered & (raw.submit < cut)
    step = re.compile(r"^; Note: Step (\d): rule (\w+) version 1 \(fingerprint [0-9a-f]{64}\) with "
                      r".*: (\d+) jobs dropped, (\d+) changed$")
    found = [step.match(n).groups() for n in notes[1:]]
    assert found == [("1", "normalize", "0", "0"), ("2", "filter", str(int(filtered.sum())), "0"),
                     ("3", "status", "0", "0"), ("4", "trim", str(int(trimmed.sum())), "0")]
    assert notes[0].startswith(f"; Note: Cleaned version v1 of {SMALL} ({SMALL}@v1), made by wla ")


def test_a_header_line_never_breaks():
    assert header_line("; Note: fine") == "; Note: fine"
    for bad in ("; Note: a\nb", "; Note: a\rb", "; Note: a\u2028b", "; Note: a\x0bb", "no semicolon"):
        with pytest.raises(WlaError):
            header_line(bad)


def test_publish_refuses_a_header_that_would_add_jobs(tmp_path, small_file):
    """An archive written by hand (or by an older wla) with a line break in a
    header line: the published text would hold a job the version has not."""
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        ingest(a, [small_file])
        clean(a, parse_recipe(f'log = "{SMALL}"\nversion = "v1"\n[[step]]\nrule = "normalize"\n'))
        vid = a.log_id(f"{SMALL}@v1")
        a.con.execute("UPDATE header_lines SET text = ? WHERE log_id = ? AND seq = 1",
                      [f"; Computer: x\n{JOB_LINE}", vid])
        with pytest.raises(WlaError, match="job lines"):
            publish(a, SMALL, "v1", tmp_path / "v1.swf")
    assert not (tmp_path / "v1.swf").exists()


def test_parameter_values_in_notes_are_one_line_whatever_they_hold():
    from wla.archive.clean.bind import params_text

    nasty = ["a\nb", "c\rd", "e\u2028f", "g\u2029h", "i\x85j", "k\x0bl", 'm"n', "o\\p"]
    text = params_text({"where": nasty[0], "reason": nasty[2], "names": nasty, "n": 5, "x": 0.5,
                        "flag": True, "none": None, "nested": [[nasty[1]], {"k\n": nasty[3]}]})
    assert text.isascii() and len(text.splitlines()) == 1 and "\n" not in text and "\r" not in text
    assert text.startswith('where="a\\nb", reason="e\\u2028f", names=["a\\nb", "c\\rd", ')
    assert ", n=5, x=0.5, flag=true, none=none, " in text
    assert json.loads(text.split("names=", 1)[1].split(", n=5")[0]) == nasty


# -- an unknown log name: the closest names, not all of them -----------------------------------

LOGS = ["CTC-SP2-1996-3.1-cln", "HPC2N-2002-2.2-cln", "KTH-SP2-1996-2.1-cln", "SDSC-BLUE-2000-4.1-cln",
        "SDSC-BLUE-2000-4.2-cln", "SDSC-SP2-1998-4.2-cln"]


def test_the_closest_names_are_spelled_alike_or_hold_the_name():
    from wla.archive.kernel.names import closest

    assert closest("SDSC-SP2", LOGS) == ["SDSC-SP2-1998-4.2-cln"]  # held, in any case
    assert closest("sdsc-blue-2000-4.2-cln", LOGS)[0] == "SDSC-BLUE-2000-4.2-cln"
    assert closest("KTH-SP2-1996-2.1-clm", LOGS) == ["KTH-SP2-1996-2.1-cln"]  # one letter off
    assert closest("zzz", LOGS) == []


def test_a_refusal_lists_few_names_and_the_closest_of_many():
    from wla.archive.kernel.names import LISTED, known_hint

    assert known_hint("x", []) == "; the archive is empty"
    assert known_hint("x", LOGS[:LISTED]) == "; the archive holds: " + ", ".join(LOGS[:LISTED])
    assert known_hint("SDSC-SP2", LOGS) == "; closest: SDSC-SP2-1998-4.2-cln (of the archive's 6 logs)"
    assert known_hint("zzz", LOGS) == "; none of the archive's 6 logs is named alike"
