"""The caveats wla ships (archive/analysis/caveats.toml): every entry well
formed and about a log the Parallel Workloads Archive has, every number it
states written in the experience paper, found by every name and version of
its log, and a damaged file refused naming the file and the entry."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from real_logs import ROOT, data_dir
from wla.archive import open as open_archive
from wla.archive.analysis.caveats import base_log, caveats_of, known_issues, load_caveats
from wla.archive.kernel.errors import LogNotFound, WlaError
from wla.archive.pull.catalog import load_catalog
from wla.archive.store.ingest import ingest
from wla.archive.store.notes import add_note

SHIPPED = ROOT / "archive" / "analysis" / "caveats.toml"
PAPER = ROOT.parent / "shared" / "papers" / "pwa-experience-feitelson-tsafrir-krakov.txt"


def _raw() -> list[dict]:
    return tomllib.loads(SHIPPED.read_text(encoding="utf-8"))["caveat"]  # read apart from the loader


def _by_section(entries) -> list[dict]:
    """The entries in the order of the paper's sections, the file's within one."""
    return sorted(entries, key=lambda e: [int(p) for p in e["section"].split(".")])


def test_every_caveat_is_about_a_log_of_the_archive_and_cites_a_section():
    logs = {e.log for e in load_catalog().entries}
    raw = _raw()
    assert len(raw) == 39
    for entry in raw:
        assert set(entry) == {"logs", "section", "topic", "text"}, entry
        assert set(entry["logs"]) <= logs, entry["logs"]
        assert re.fullmatch(r"[234](\.[1-7])?", entry["section"]), entry
    loaded = load_caveats()
    assert sum(len(v) for v in loaded.values()) == sum(len(e["logs"]) for e in raw)
    for log, issues in loaded.items():
        wanted = [(e["section"], e["topic"], e["text"]) for e in _by_section(e for e in raw if log in e["logs"])]
        assert [(i.section, i.topic, i.text) for i in issues] == wanted
        assert all(i.source == "paper" and i.noted_on is None for i in issues)


@pytest.mark.skipif(not PAPER.exists(), reason="the experience paper is not beside the project")
def test_every_number_a_caveat_states_is_the_papers():
    paper = PAPER.read_text(encoding="utf-8").replace(",", "")
    for entry in _raw():
        for number in re.findall(r"\d[\d,.:]*\d|\d", entry["text"]):
            plain = number.replace(",", "").rstrip(".")
            assert plain in paper or plain.zfill(5) in paper, (entry["topic"], number)


def test_the_paper_examples_the_issue_names_are_there():
    said = {(log, i.topic): i.text for log, issues in load_caveats().items() for i in issues}
    assert "338" in said["CTC-SP2-1996", "batch partition of 338 processors"]
    assert "56.8%" in said["NASA-iPSC-1993", "system checks (pwd)"]
    assert "4294967294" in said["LLNL-Thunder-2007", "time limit 4294967294"]
    assert "3:45 AM" in said["SDSC-Par-1996", "a daily automatic script"]
    assert "57.8%" in said["HPC2N-2002", "user 2 dominates"]
    assert ("LANL-O2K-1999", "end time is a logged event") in said
    assert ("KTH-SP2-1996", "faked submit times") in said
    for log in ("SDSC-SP2-1998", "Sandia-Ross-2001", "LPC-EGEE-2004", "CEA-Curie-2011"):
        assert any(topic.startswith(("capacity", "a partition")) for lg, topic in said if lg == log), log
    assert ("LLNL-Atlas-2006", "half-capacity trial") in said


@pytest.mark.parametrize("name, log", [
    ("SDSC-SP2-1998", "SDSC-SP2-1998"), ("SDSC-SP2-1998-4", "SDSC-SP2-1998"),
    ("SDSC-SP2-1998-4.2-cln", "SDSC-SP2-1998"), ("SDSC-SP2-1998-4.2-cln@wla1", "SDSC-SP2-1998"),
    ("NASA-iPSC-1993-3-head228", "NASA-iPSC-1993"), ("DAS2-fs0-2003-1", "DAS2-fs0-2003"),
    ("SDSC-Par-1995-3.1-cln", "SDSC-Par-1995"), ("lublin_256", None), ("my-log", None)])
def test_a_names_log_is_its_name_up_to_its_year(name, log):
    assert base_log(name) == log


def test_every_version_and_file_of_a_log_finds_its_caveats():
    ctc = [e["topic"] for e in _by_section(e for e in _raw() if "CTC-SP2-1996" in e["logs"])]
    assert len(ctc) == 4
    for name in ("CTC-SP2-1996-3", "CTC-SP2-1996-3.1-cln", "CTC-SP2-1996-3.1-cln@mine"):
        assert [i.topic for i in caveats_of(name)] == ctc
    assert caveats_of("lublin_256") == () and caveats_of("CTC-SP2-1995-2") == ()


@pytest.mark.parametrize("entry, message", [
    ('logs = ["A-2000"]\nsection = "3.1"\ntopic = "t"\n', "caveat entry 2: no 'text'"),
    ('logs = ["A-2000"]\nsection = "3.1"\ntopic = "t"\ntext = "x"\nsource = "me"\n',
     "caveat entry 2: unknown key 'source'"),
    ('logs = "A-2000"\nsection = "3.1"\ntopic = "t"\ntext = "x"\n', "caveat entry 2: logs must be a list"),
    ('logs = ["A-2000-1.1-cln"]\nsection = "3.1"\ntopic = "t"\ntext = "x"\n',
     "caveat entry 2: 'A-2000-1.1-cln' is not a log's name without its version"),
    ('logs = ["A-2000"]\nsection = "§3"\ntopic = "t"\ntext = "x"\n', "caveat entry 2: section must be"),
    ('logs = ["A-2000"]\nsection = 3.1\ntopic = "t"\ntext = "x"\n', "caveat entry 2: section must be"),
    ('logs = ["A-2000"]\nsection = "3.1"\ntopic = "t"\ntext = " "\n', "caveat entry 2: text must be a text"),
    ('logs = ["A-2000"]\nsection = "3.1"\ntopic = "t"\ntext = "a\\u001b[2Jb"\n',
     "caveat entry 2: text must be one line of visible text"),
    (f'logs = ["A-2000"]\nsection = "3.1"\ntopic = "t"\ntext = "{"x" * 601}"\n',
     "caveat entry 2: text has 601 characters; at most 600"),
    ('logs = ["A-2000"]\nsection = "3.1"\ntopic = "t"\ntext = "x"\n[[caveat]\n', "not a TOML file of caveats"),
])
def test_a_damaged_entry_is_refused_naming_the_file_and_the_entry(tmp_path, entry, message):
    path = tmp_path / "caveats.toml"
    good = '[[caveat]]\nlogs = ["A-2000"]\nsection = "3.1"\ntopic = "t"\ntext = "fine"\n'
    path.write_text(good + "\n[[caveat]]\n" + entry, encoding="utf-8")
    with pytest.raises(WlaError) as raised:
        load_caveats(path)
    assert str(raised.value).startswith(f"{path}: ") and message in str(raised.value), str(raised.value)
    path.write_text(good, encoding="utf-8")
    assert [i.text for i in load_caveats(path)["A-2000"]] == ["fine"]


def test_a_missing_file_or_other_tables_are_refused(tmp_path):
    with pytest.raises(WlaError, match="cannot read the caveats"):
        load_caveats(tmp_path / "none.toml")
    other = tmp_path / "other.toml"
    other.write_text('[[log]]\nname = "x"\n', encoding="utf-8")
    with pytest.raises(WlaError, match=rf"{re.escape(str(other))}: unknown table or key 'log'"):
        load_caveats(other)


def test_known_issues_are_the_caveats_then_the_notes_on_the_original(tmp_path):
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        [got] = ingest(a, [data_dir() / "KTH-SP2-1996-2.1-cln.swf.gz"])
        assert got.status == "ingested"
        add_note(a, "KTH-SP2-1996-2.1-cln", "limits changed in the spring", on=_day("2024-03-02"))
        issues = known_issues(a, "KTH-SP2-1996-2.1-cln")
        kth = [e["topic"] for e in _by_section(e for e in _raw() if "KTH-SP2-1996" in e["logs"])]
        assert [i.topic for i in issues] == [*kth, ""]
        assert (issues[-1].source, issues[-1].noted_on, issues[-1].text) == (
            "user", "2024-03-02", "limits changed in the spring")
        assert issues[-1].where() == "your note of 2024-03-02" and issues[0].where() == "paper §2"
        with pytest.raises(LogNotFound, match="no log named 'KTH'"):
            known_issues(a, "KTH")


def _day(text: str):
    import datetime as dt

    return dt.date.fromisoformat(text)


def test_the_shipped_file_is_package_data():
    pyproject = tomllib.loads(Path(ROOT / "pyproject.toml").read_text())
    assert "*.toml" in pyproject["tool"]["setuptools"]["package-data"]["wla.archive.analysis"]
