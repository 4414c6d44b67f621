"""The README shows what wla does: every example in it runs, in order, on the
real logs, and prints what the README says it prints (readme_examples.py
says how an excerpt or a duration is written)."""
from __future__ import annotations

import re

import pytest
from readme_examples import README, SLOW, Example, _matches, examples, mirror, mismatch, run, workspace
from real_logs import data_dir


@pytest.mark.long
def test_every_example_prints_what_the_readme_shows(tmp_path, monkeypatch):
    monkeypatch.delenv("WLA_ARCHIVE", raising=False)
    cwd = workspace(tmp_path, data_dir())
    ran, differ = 0, []
    with mirror(data_dir()):
        for example in examples():
            if example.kind == "shown" or example.text in SLOW:
                continue
            printed = run(example, cwd)
            ran += 1
            bad = mismatch(example, printed)
            if bad is not None:
                differ.append(bad)
    assert ran >= 40
    assert not differ, "\n\n".join(differ)


@pytest.mark.slow
def test_the_slow_examples_print_what_the_readme_shows(tmp_path, monkeypatch):
    """The studies on the real logs (minutes each), on an archive of the
    logs they name (bench/figures holds the plots they draw)."""
    from wla.archive import open as open_archive
    from wla.archive.store.ingest import ingest

    monkeypatch.delenv("WLA_ARCHIVE", raising=False)
    cwd = workspace(tmp_path, data_dir())
    slow = [e for e in examples() if e.text in SLOW]
    assert len(slow) == len(SLOW)
    logs = sorted({log for e in slow for log in SLOW[e.text]})
    with open_archive(cwd / "archive.duckdb", write=True) as a:
        ingest(a, [data_dir() / f"{log}.swf.gz" for log in logs])
    differ = [bad for e in slow if (bad := mismatch(e, run(e, cwd))) is not None]
    assert not differ, "\n\n".join(differ)
    for png in ("ctc_load.png", "sp2_load.png", "sp2_last.png", "sp2_users.png", "sp2_rb.png",
                "sp2_validate/histograms.png", "sp2_validate/pox.png"):
        assert (cwd / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png


def test_the_examples_are_the_readmes_and_every_command_has_one():
    from wla.cli.app import FLOW

    found = examples()
    shown = {e.text.split()[1] for e in found if e.kind == "wla" and len(e.text.split()) > 1}
    assert set(FLOW) <= shown, f"commands without an example: {sorted(set(FLOW) - shown)}"
    text = README.read_text(encoding="utf-8")
    assert len([e for e in found if e.kind == "wla"]) == len(re.findall(r"^\$ wla ", text, re.M))
    # The placeholders of a synopsis are not examples: every example runs as written.
    assert not [e for e in found if e.kind == "wla" and re.search(r"\[[A-Z-]|\bLOG\b|\bFILE\b", e.text)]


def test_the_readme_says_to_activate_the_venv_once():
    text = README.read_text(encoding="utf-8")
    assert text.count(". .venv/bin/activate") == 1


@pytest.mark.parametrize("wanted, actual, ok", [
    (["a", "b"], ["a", "b"], True),
    (["a", "b"], ["a", "b", "c"], False),  # an unshown line is a difference
    (["a", "...", "c"], ["a", "x", "y", "c"], True),
    (["a", "...", "c"], ["a", "c"], True),
    (["a", "...", "c"], ["a", "x"], False),
    (["x ... z"], ["x y y z"], True),
    (["x ... z"], ["x y y"], False),
    (["... z"], ["anything z"], True),
    (["1.5 (a)"], ["125 (a)"], False),  # the rest of a line is literal
])
def test_an_excerpt_matches_only_what_it_shows(wanted, actual, ok):
    assert _matches(wanted, actual) is ok


def test_a_duration_is_any_duration_and_nothing_else_is():
    example = Example(1, "wla", "wla ingest x", ["1 logs, 10 jobs in 1.45 s", "elapsed 10,940 s"])
    assert mismatch(example, "1 logs, 10 jobs in 0.07 s\nelapsed 10,940 s\n") is None
    assert mismatch(example, "1 logs, 10 jobs in 0.07 s\nelapsed 10,941 s\n") is not None
    assert mismatch(example, "1 logs, 11 jobs in 1.45 s\nelapsed 10,940 s\n") is not None


def test_the_tables_section_lists_every_table_view_and_macro():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Tables and views"):text.index("## Choices where the format leaves room")]
    schema = "\n".join(p.read_text(encoding="utf-8") for p in sorted((README.parent / "schema").glob("*.sql")))
    made = re.findall(r"CREATE (?:OR REPLACE )?(?:TABLE IF NOT EXISTS|TABLE|VIEW|MACRO) (\w+)", schema)
    assert len(made) >= 16
    assert [m for m in made if f"`{m}`" not in section and f"`{m}(" not in section] == []
