"""The documentation shows what wla does: every example of every page (and
of the README) runs, page by page, on the real logs, and prints what the
page says it prints (page_examples.py says how a page is read and what it
starts from). `pytest tests/docs -k simulation` runs one page."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from page_examples import (
    PAGES,
    README,
    ROOT,
    Example,
    _matches,
    begin,
    examples,
    ingest_every_log,
    mismatch,
    name,
    pages,
    run_page,
    start,
    workspace,
)
from real_logs import data_dir

# Pages whose examples take many seconds: handed to a worker first.
LONG = {"README", "getting-started"}
# Pages whose examples take five seconds or more, run in the slow step (which
# CI runs too), so that the default run keeps within its five minutes.
SLOW_PAGES = {"archive", "cleaning", "shaking", "site", "python", "worked-example", "simulation", "resampling",
              "feedback", "api/index"}
# Pages whose slow studies give a table, not a figure.
UNDRAWN = {"reproductions/butterfly"}
# The commands a slow example may run: studies over a log, and what they need.
STUDIES = {"clean", "compare", "resample", "sessions", "shake", "simulate", "stats", "sweep", "validate"}


@pytest.fixture(scope="session")
def logs_archive(tmp_path_factory):
    """The `logs` start, made once per worker: every real log ingested as a
    reader ingests them; each page works on a copy."""
    cwd = workspace(tmp_path_factory.mktemp("docs-logs"), data_dir())
    return ingest_every_log(cwd)


def _page_params(slow: bool):
    params = []
    for page in pages():
        found = examples(page)
        if slow and not any(e.slow for e in found):
            continue
        marks = ([pytest.mark.slow] if slow or name(page) in SLOW_PAGES
                 else [pytest.mark.long] if name(page) in LONG else [])
        params.append(pytest.param(page, id=name(page), marks=marks))
    return params


@pytest.mark.parametrize("page", _page_params(slow=False))
def test_every_example_prints_what_its_page_shows(page, request, tmp_path, monkeypatch):
    monkeypatch.delenv("WLA_ARCHIVE", raising=False)
    cwd = workspace(tmp_path, data_dir())
    begin(page, cwd, request.getfixturevalue("logs_archive") if start(page) == "logs" else None)
    ran, differ = run_page(page, cwd, data_dir())
    assert ran >= 1 or all(e.slow or e.kind == "shown" for e in examples(page))
    assert not differ, "\n\n".join(differ)


@pytest.mark.parametrize("page", _page_params(slow=True))
def test_the_slow_examples_print_what_their_page_shows(page, tmp_path, monkeypatch):
    """The studies on the real logs (minutes each), on an archive of the
    logs they name (bench/figures holds the plots they draw)."""
    from wla.archive import open as open_archive
    from wla.archive.store.ingest import ingest

    monkeypatch.delenv("WLA_ARCHIVE", raising=False)
    cwd = workspace(tmp_path, data_dir())
    logs = sorted({log for e in examples(page) for log in e.slow})
    with open_archive(cwd / "archive.duckdb", write=True) as a:
        ingest(a, [data_dir() / f"{log}.swf.gz" for log in logs])
    ran, differ = run_page(page, cwd, data_dir(), slow=True)
    assert ran >= 1
    assert not differ, "\n\n".join(differ)
    commands = "\n".join(e.text for e in examples(page) if e.slow)
    drawn = re.findall(r"--(?:plot|plot-runs|histograms) (\S+\.png)", commands)
    for folder in re.findall(r"--plot-dir (\S+)", commands):  # validate's two figures, stats's four
        inside = sorted(p.name for p in (cwd / folder).glob("*.png"))
        assert len(inside) >= 2, (folder, inside)
        drawn += [f"{folder}/{png}" for png in inside]
    assert drawn or name(page) in UNDRAWN
    for png in drawn:
        assert (cwd / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png


def test_the_slow_examples_are_the_studies_on_the_real_logs():
    """The studies of minutes (and the versions they need) are on the guide's
    study pages and the reproductions, and are studies: nothing else is left
    out of the default run."""
    slow = {(name(p), e.text.split()[1]) for p in pages() for e in examples(p) if e.slow}
    assert {page for page, _ in slow} >= {"resampling", "shaking", "reproductions/butterfly",
                                          "reproductions/sessions", "reproductions/window"}
    for page, command in slow:
        assert page in ("resampling", "shaking") or page.startswith("reproductions/"), page
        assert command in STUDIES, (page, command)


def test_a_single_page_runs_alone_by_its_name():
    """The test ids are the pages' names, each held by one page, so `-k NAME` picks it."""
    names = [name(p) for p in pages()]
    assert len(set(names)) == len(names)
    for n in ("README", "getting-started", "archive", "simulation", "shaking", "resampling"):
        assert n in names
        assert [m for m in names if n in m] == [n], n


def test_every_page_says_what_it_starts_from():
    """A page that starts from an empty folder says so in a comment the runner reads."""
    for page in pages():
        assert start(page) in ("logs", "empty")
    assert start(PAGES / "archive.md") == "empty"
    assert start(README) == "empty"


def test_the_examples_are_the_pages_and_every_command_has_one():
    from wla.cli.app import FLOW

    found = [e for p in pages() for e in examples(p)]
    shown = {e.text.split()[1] for e in found if e.kind == "wla" and len(e.text.split()) > 1}
    assert set(FLOW) <= shown, f"commands without an example: {sorted(set(FLOW) - shown)}"
    for page in [README, *sorted(PAGES.rglob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        wla_lines = [e for e in examples(page) if e.kind == "wla"]
        assert len(wla_lines) == len(re.findall(r"^\$ wla ", text, re.M)), page
    # The placeholders of a synopsis are not examples: every example runs as written.
    assert not [e for e in found if e.kind == "wla" and re.search(r"\[[A-Z-]|\bLOG\b|\bFILE\b", e.text)]


def test_the_readme_says_to_activate_the_venv_once():
    text = README.read_text(encoding="utf-8")
    assert text.count(". .venv/bin/activate") == 1


def test_ci_runs_the_readme_s_test_command():
    """The README's test command, its lines joined, is what CI runs first."""
    text = README.read_text(encoding="utf-8")
    block = text[text.index("Set up and run the tests"):]
    block = block[block.index("```sh\n") + 6:]
    lines = [ln.rstrip(" &\\").strip() for ln in block[:block.index("```")].splitlines() if ln.strip()]
    assert lines[-1] == ".venv/bin/python -m pytest -q"
    assert " && ".join(lines) in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.slow  # seconds of a worker; CI's slow step runs it
def test_the_readme_s_main_job_runs_as_pasted(tmp_path, monkeypatch):
    """The README's main job, pasted into a shell beside ../shared/data/swf:
    its lines after the venv's set-up (done here already), with the venv's wla."""
    import subprocess
    import sys

    monkeypatch.delenv("WLA_ARCHIVE", raising=False)
    text = README.read_text(encoding="utf-8")
    block = text[text.index("## The main job"):]
    block = block[block.index("```sh\n") + 6:]
    block = block[:block.index("```")]
    setup = "python3 -m venv .venv &&\n.venv/bin/pip install -q -e . &&\n"
    assert block.startswith(setup)
    cwd = workspace(tmp_path, data_dir())
    (cwd / ".venv" / "bin").mkdir(parents=True)
    (cwd / ".venv" / "bin" / "wla").symlink_to(Path(sys.executable).parent / "wla")
    done = subprocess.run(["bash", "-c", block[len(setup):]], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "19 logs, 2,205,156 jobs in " in done.stdout
    assert "built SDSC-SP2-1998-4.2-cln@wla1: 59,715 -> 57,693 jobs" in done.stdout
    assert "to sp2-wla1.swf.gz: 57,693 jobs, sha256 295451a1a42e" in done.stdout
    assert re.search(r"^wait \(s\) +20,809 +1,152 +106,308$", done.stdout, re.M)
    assert (cwd / "sp2-wla1.swf.gz").is_file()


def test_the_readme_is_short():
    """The manual is the site; the README says what wla is, how to start, and where to read on."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 210
    for page in ("getting-started", "archive", "simulation", "reference/commands"):
        assert f"docs/pages/{page}.md" in text, page


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
    example = Example("x", 1, "wla", "wla ingest x", ["1 logs, 10 jobs in 1.45 s", "elapsed 10,940 s"])
    assert mismatch(example, "1 logs, 10 jobs in 0.07 s\nelapsed 10,940 s\n") is None
    assert mismatch(example, "1 logs, 10 jobs in 0.07 s\nelapsed 10,941 s\n") is not None
    assert mismatch(example, "1 logs, 11 jobs in 1.45 s\nelapsed 10,940 s\n") is not None


def test_a_page_is_read_block_by_block(tmp_path):
    """Commands, their output, a continued line, a slow block and the start, on a page made here."""
    page = tmp_path / "p.md"
    page.write_text("<!-- examples start from: empty -->\n\n```sh\n$ wla ls \\\n    --json\n[]\n$ sacct -a\n```\n\n"
                    "<!-- slow: A, B -->\n```sh\n$ wla sweep A\nx\n```\n\n```python\nx = 1\n```\n", encoding="utf-8")
    found = examples(page)
    assert [(e.kind, e.text, e.expected, e.slow) for e in found] == [
        ("wla", "wla ls  --json", ["[]"], ()), ("shown", "sacct -a", [], ()),
        ("wla", "wla sweep A", ["x"], ("A", "B")), ("python", "x = 1", [], ())]
    assert [e.line for e in found] == [4, 7, 12, 17]
    assert start(page) == "empty"
    page.write_text("<!-- examples start from: nowhere -->\n", encoding="utf-8")
    with pytest.raises(ValueError, match="nowhere"):
        start(page)


def test_the_tables_page_lists_every_table_view_and_macro():
    section = (PAGES / "reference" / "tables.md").read_text(encoding="utf-8")
    schema = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "schema").glob("*.sql")))
    made = re.findall(r"CREATE (?:OR REPLACE )?(?:TABLE IF NOT EXISTS|TABLE|VIEW|MACRO) (\w+)", schema)
    assert len(made) >= 16
    assert [m for m in made if f"`{m}`" not in section and f"`{m}(" not in section] == []


def test_a_page_copies_the_archive_it_starts_from(tmp_path):
    """Two pages never share an archive: each starts from its own copy."""
    source = tmp_path / "logs.duckdb"
    source.write_bytes(b"archive")
    for n, page in enumerate((PAGES / "simulation.md", PAGES / "archive.md")):
        cwd = tmp_path / str(n)
        cwd.mkdir()
        begin(page, cwd, source)
    assert (tmp_path / "0" / "archive.duckdb").read_bytes() == b"archive"
    assert not (tmp_path / "1" / "archive.duckdb").exists()
    shutil.rmtree(tmp_path / "0")
    assert source.read_bytes() == b"archive"
