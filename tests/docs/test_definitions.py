"""The definitions pages that code and `--help` cite exist, with the
sections they are cited by (docs/pages/definitions/).

Code names a page by its path in the repository, with "section N" for the
numbered sections of cleaning.md; `--help` names it as the docs do,
"(definitions: Resampling)", by its title in the site's navigation."""
from __future__ import annotations

import re
from pathlib import Path

import click
import yaml
from typer.main import get_command
from wla.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = DOCS / "pages"
CODE = [ROOT / d for d in ("archive", "sim", "cli", "schema")]
SUFFIXES = {".py", ".sql", ".md", ".toml"}
NAMES = "swf|archive|cleaning|simulation|shaking|resampling|statistics"

# docs/pages/definitions/cleaning.md section 4; sections 1 and 2; sections 3 to 5;
# docs/pages/definitions/resampling.md "Validating a resampled workload"
CITATION = re.compile(r"docs/pages/definitions/([\w-]+)\.md(?:'s)?"
                      r"(?:,?\s+sections?\s+(\d+)(?:\s+(and|to)\s+(\d+))?)?"
                      r"(?:,?\s+\"([^\"]+)\")?")
# what the definitions were cited as before they were in the repository
BARE = re.compile(rf"(?<![/\w-])(?:{NAMES})\.md\b|\bthe spec\b|\bspec's\b")
HELP = re.compile(r"definitions: ([A-Z][\w ]*?)(?=[;)])")


def code_files() -> list[Path]:
    return sorted(p for d in CODE for p in d.rglob("*") if p.suffix in SUFFIXES and "__pycache__" not in p.parts)


def headings(page: Path) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^#{1,6}\s+(.*)$", page.read_text(), re.M)]


def numbered(page: Path) -> set[int]:
    return {int(m.group(1)) for h in headings(page) if (m := re.match(r"(\d+)\.\s", h))}


def definitions_nav() -> dict[str, Path]:
    """Title -> page of the Definitions section of the site's navigation."""
    text = (DOCS / "mkdocs.yml").read_text()
    nav = yaml.safe_load(re.sub(r"!!python/\S+", "", text))["nav"]
    section = next(item["Definitions"] for item in nav if isinstance(item, dict) and "Definitions" in item)
    return {title: PAGES / path for entry in section if isinstance(entry, dict) for title, path in entry.items()}


def citations() -> list[tuple[str, re.Match]]:
    return [(f"{p.relative_to(ROOT)}", m) for p in code_files() for m in CITATION.finditer(p.read_text())]


def help_texts() -> list[tuple[str, str]]:
    """Every command's help and every option's, as `wla ... --help` shows them."""
    out = []

    def walk(command: click.Command, path: str) -> None:
        out.append((path, command.help or ""))
        out.extend((f"{path} {p.name}", getattr(p, "help", None) or "") for p in command.params)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}")

    walk(get_command(app), "wla")
    return out


def test_every_code_citation_names_a_page_and_section_that_exist():
    found = citations()
    assert len(found) >= 40  # the simulator, the studies, the analyses and convert all cite them
    with_sections = 0
    for where, m in found:
        page = PAGES / "definitions" / f"{m.group(1)}.md"
        assert page.is_file(), (where, m.group(0))
        if m.group(2):
            first, how, last = int(m.group(2)), m.group(3), m.group(4)
            wanted = set(range(first, int(last) + 1)) if how == "to" else {first, *([int(last)] if last else [])}
            assert wanted <= numbered(page), (where, m.group(0), sorted(numbered(page)))
            with_sections += 1
        if m.group(5):
            assert m.group(5) in headings(page), (where, m.group(0))
    assert with_sections >= 10


def test_sections_are_read_as_cited():
    """The pattern itself: ranges and pairs give every number they name."""
    m = CITATION.search('(docs/pages/definitions/cleaning.md\nsections 3 to 5) docs/pages/definitions/x.md')
    assert m.group(1, 2, 3, 4) == ("cleaning", "3", "to", "5")
    assert numbered(PAGES / "definitions" / "cleaning.md") == {1, 2, 3, 4, 5, 6, 7}


def test_code_no_longer_cites_pages_outside_the_repository():
    stale = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p in code_files()
             for n, line in enumerate(p.read_text().splitlines(), 1) if BARE.search(line)]
    assert stale == []


def test_every_page_cited_from_help_exists():
    nav = definitions_nav()
    assert set(nav) >= {"Cleaning", "Simulation", "Shaking", "Resampling", "Statistics"}
    cited = [(where, name) for where, text in help_texts() for name in HELP.findall(text)]
    assert {name for _, name in cited} >= {"Resampling"}  # resample's own help and its --phase
    for where, name in cited:
        assert name in nav and nav[name].is_file(), (where, name)
    stale = [(where, text) for where, text in help_texts() if BARE.search(text)]
    assert stale == []


def test_help_form_in_code_names_pages_of_the_nav():
    """The same form written into results (a resampled log's notes) names a page too."""
    nav = definitions_nav()
    for p in code_files():
        for name in HELP.findall(p.read_text()):
            assert name in nav, (f"{p.relative_to(ROOT)}", name)
