"""The map in the docs is the tree on disk: every package appears in
ARCHITECTURE.md, and every module or folder of wla the docs name in
backticks exists (a doc names paths from its own folder, from the
repository's root, or from the package folders)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP = ("archive", "sim", "cli", "schema")
DOCS = [ROOT / "ARCHITECTURE.md", ROOT / "README.md", *sorted(p for t in TOP for p in (ROOT / t).rglob("README.md"))]
# a module (`x.py`, `a/b.py`) or a folder of wla's (`store/`, `archive/kernel/`)
_PATH = re.compile(r"`((?:\.\./)*(?:[A-Za-z_][\w]*/)*[A-Za-z_][\w]*(?:\.py|/))`")
# folders the docs name that are no package: outputs, data, the site's own layout
NOT_PACKAGES = {"static/", "templates/", "figures/", "logs/", "versions/", "data/", "files/", "pwa/", "docs/",
                "bench/", "tests/", "notes/", "recipes/", "rules/", "site/", "sp2_validate/", ".ci/", "shared/"}


def packages() -> list[Path]:
    return sorted(p.parent for t in TOP for p in (ROOT / t).rglob("__init__.py"))


def test_every_package_is_on_the_map():
    text = (ROOT / "ARCHITECTURE.md").read_text()
    missing = [str(p.relative_to(ROOT)) for p in packages() if f"{p.relative_to(ROOT)}/" not in text
               and f"`{p.name}/`" not in text]
    assert not missing, f"packages ARCHITECTURE.md does not name: {missing}"


def _exists(doc: Path, name: str) -> bool:
    bases = [doc.parent, ROOT, *(ROOT / t for t in TOP), *packages()]
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


def test_each_package_readme_lists_its_modules():
    """A package README with a module list names every module of its package."""
    missing = []
    for readme in sorted(p for t in TOP for p in (ROOT / t).rglob("README.md")):
        text = readme.read_text()
        if "- `" not in text:
            continue
        for module in sorted(readme.parent.glob("*.py")):
            if module.name != "__init__.py" and f"`{module.name}`" not in text and f"{module.name}`" not in text:
                missing.append(f"{readme.relative_to(ROOT)}: {module.name}")
    assert not missing, "\n".join(missing)
