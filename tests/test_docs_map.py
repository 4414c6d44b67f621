"""One map: ARCHITECTURE.md's, and it is the tree on disk.

ARCHITECTURE.md's section "## The map" has a heading "### `PATH/`" for
every package (each folder with an __init__.py under archive/, sim/ and
cli/, and schema/) and for tests/, and under it one line "- `NAME.py` — what
it owns" for each module of that folder (`__init__.py` aside; in schema/
each `NAME.sql` too; in tests/ every file at its root). A module missing
from its package's lines fails, and so does a line, or a heading, naming
what is not there.

Every module or folder of wla the docs (ARCHITECTURE.md, README.md, the
package READMEs, the documentation's pages) name in backticks exists: a doc names paths from its own
folder, from the repository's root, or from the folders on the map.

A package README says only what is special about its package and points to
the map for its modules, so it holds no module list: no line of it is a
list item that starts with one of its own modules or subpackages
(`- \\`NAME.py\\``), and it names in backticks at most MAX_NAMED modules of
its own folder (a list written as prose names more; where a package has
fewer, the first rule is the one that holds)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP = ("archive", "sim", "cli", "schema")
ARCHITECTURE = ROOT / "ARCHITECTURE.md"
READMES = sorted(p for t in TOP for p in (ROOT / t).rglob("README.md"))
PAGES = sorted((ROOT / "docs" / "pages").rglob("*.md"))
DOCS = [ARCHITECTURE, ROOT / "README.md", *READMES, *PAGES]
MAX_NAMED = 8
# a module (`x.py`, `a/b.py`) or a folder of wla's (`store/`, `archive/kernel/`)
_PATH = re.compile(r"`((?:\.\./)*(?:[A-Za-z_][\w]*/)*[A-Za-z_][\w]*(?:\.py|/))`")
# a module or SQL file named in backticks, with the path it is named by
_FILE = re.compile(r"`((?:\.\./)*(?:[A-Za-z_][\w]*/)*[A-Za-z_][\w]*\.(?:py|sql))`")
# a list item starting with a name in backticks
_ITEM = re.compile(r"^\s*[-*] `([^`]+)`", re.M)
# folders the docs name that are no package: outputs, data, the site's own layout
NOT_PACKAGES = {"static/", "templates/", "figures/", "logs/", "versions/", "data/", "files/", "pwa/", "docs/",
                "bench/", "tests/", "notes/", "recipes/", "rules/", "site/", "sp2_validate/", ".ci/", "shared/"}


def packages() -> list[Path]:
    return sorted(p.parent for t in TOP for p in (ROOT / t).rglob("__init__.py"))


def modules(folder: Path) -> set[str]:
    """What the map lists for a folder: its modules (and schema's SQL files;
    every file at the root of tests/)."""
    if folder == ROOT / "tests":
        return {p.name for p in folder.glob("*.py")}
    found = {p.name for p in folder.glob("*.py") if p.name != "__init__.py"}
    if folder == ROOT / "schema":
        found |= {p.name for p in folder.glob("*.sql")}
    return found


def mapped() -> list[Path]:
    """The folders that have a place on the map."""
    return [*packages(), ROOT / "tests"]


def map_sections(text: str) -> dict[str, list[str]]:
    """ARCHITECTURE.md's map: each heading's folder and the names its lines list."""
    start = text.index("\n## The map\n")
    end = text.find("\n## ", start + 1)
    body = text[start:] if end == -1 else text[start:end]
    sections: dict[str, list[str]] = {}
    for block in re.split(r"^(?=### )", body, flags=re.M)[1:]:
        heading = re.match(r"### `([\w/]+)/`", block)
        assert heading, f"a heading of the map names no folder: {block.splitlines()[0]}"
        sections[heading.group(1)] = re.findall(r"^- `([\w.]+\.(?:py|sql))`", block, re.M)
    return sections


def unmapped(sections: dict[str, list[str]], tree: dict[str, set[str]]) -> list[str]:
    """What the map and the tree disagree on, each as one line."""
    wrong = [f"{folder}/: no heading in ARCHITECTURE.md's map" for folder in tree if folder not in sections]
    wrong += [f"{folder}/: on the map, not a package" for folder in sections if folder not in tree]
    for folder, names in tree.items():
        listed = sections.get(folder, [])
        wrong += [f"{folder}/{name}: not on the map" for name in sorted(names - set(listed))]
        wrong += [f"{folder}/{name}: on the map, not in the folder" for name in sorted(set(listed) - names)]
        wrong += [f"{folder}/{name}: on the map twice" for name in sorted({n for n in listed if listed.count(n) > 1})]
    return wrong


def tree() -> dict[str, set[str]]:
    return {str(p.relative_to(ROOT)): modules(p) for p in mapped()}


def test_every_package_and_module_is_on_the_map():
    assert len(tree()) > 15
    wrong = unmapped(map_sections(ARCHITECTURE.read_text()), tree())
    assert not wrong, "\n".join(wrong)


def test_a_module_not_on_the_map_is_found():
    """A module added to a package, a module gone and a package without its
    heading are each named."""
    sections, folders = map_sections(ARCHITECTURE.read_text()), tree()
    folders["archive/store"] = folders["archive/store"] | {"planted.py"}
    assert unmapped(sections, folders) == ["archive/store/planted.py: not on the map"]
    folders["archive/store"] -= {"planted.py", "lock.py"}
    assert unmapped(sections, folders) == ["archive/store/lock.py: on the map, not in the folder"]
    del sections["sim/evaluate/resample"]
    assert "sim/evaluate/resample/: no heading in ARCHITECTURE.md's map" in unmapped(sections, tree())


def _exists(doc: Path, name: str) -> bool:
    bases = [doc.parent, ROOT, *(ROOT / t for t in TOP), *mapped()]
    return any((base / name).exists() for base in bases)


def test_every_module_the_docs_name_exists():
    missing = []
    for doc in DOCS:
        for m in _PATH.finditer(doc.read_text()):
            name = m.group(1)
            if name in NOT_PACKAGES or re.search(r"[A-Z]{3,}", name):  # NAME: a placeholder
                continue
            if not _exists(doc, name):
                missing.append(f"{doc.relative_to(ROOT)}: {name}")
    assert not missing, "\n".join(missing)


def module_list(readme: Path, text: str) -> list[str]:
    """How a README lists its own package's modules, if it does: its list
    items naming one, or all the modules it names when more than MAX_NAMED."""
    folder = readme.parent.resolve()

    def own(name: str) -> bool:
        path = (folder / name).resolve()
        if name.endswith("/"):
            return path.parent == folder and (path / "__init__.py").exists()
        return path.parent == folder and path.name in modules(folder)

    items = [f"list item `{name}`" for name in _ITEM.findall(text) if own(name)]
    named = sorted({(folder / m).resolve().name for m in _FILE.findall(text) if own(m)})
    return items + ([f"{len(named)} modules named: {', '.join(named)}"] if len(named) > MAX_NAMED else [])


def test_package_readmes_hold_no_module_list():
    listing = [f"{readme.relative_to(ROOT)}: {found}" for readme in READMES
               for found in module_list(readme, readme.read_text())]
    assert not listing, "\n".join(listing)


def test_a_module_list_in_a_readme_is_found():
    readme = ROOT / "archive" / "store" / "README.md"
    assert module_list(readme, "- `lock.py` — who holds the lock\n") == ["list item `lock.py`"]
    assert module_list(ROOT / "archive" / "README.md", "- `swf/` — the format\n") == ["list item `swf/`"]
    prose = "Modules: " + ", ".join(f"`{m}`" for m in sorted(modules(readme.parent))) + "."
    assert module_list(readme, prose)[-1].startswith(f"{len(modules(readme.parent))} modules named: ")
    assert module_list(readme, "See `../swf/fields.py` and `../kernel/errors.py`.\n") == []
