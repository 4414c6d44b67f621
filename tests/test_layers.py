"""The floors of wla, each importing only from the floors below it:

  0 the kernel     wla.archive.kernel (errors, names, ranges, jit, clock, processors,
                   plain, progress, output, statements, plot), and `wla` itself (the version)
  1 the archive    the rest of wla.archive (swf, store, clean, convert, analysis, pull) and wla.schema
  2 the simulator  wla.sim, with its evaluations
  3 the front ends wla.cli, with the site generator (wla.cli.site)

Every import of every module is read from its source: `import` and `from`
statements at any depth (inside functions too), modules named by string to
`importlib.import_module` or `__import__`, and the modules a compiled part
names when it is registered with the kernel's `jit` (`Part(...)`), which
`jit` imports by those names. An import that climbs fails the test, naming
both modules and their floors.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The folders the package `wla` is made of (pyproject.toml's package-dir).
FOLDERS = {"archive": "wla.archive", "schema": "wla.schema", "sim": "wla.sim", "cli": "wla.cli"}
FLOORS = ("the kernel", "the archive", "the simulator", "the front ends")


def floor(module: str) -> int:
    """The floor of a module of wla (a package's floor is its __init__'s)."""
    def within(*prefixes: str) -> bool:
        return any(module == p or module.startswith(p + ".") for p in prefixes)

    if module == "wla" or within("wla.archive.kernel"):
        return 0
    if within("wla.archive", "wla.schema"):
        return 1
    if within("wla.sim"):
        return 2
    if within("wla.cli"):
        return 3
    raise LookupError(f"{module} is on no floor")


def modules() -> dict[str, Path]:
    """Every module of wla, by name, and its file."""
    found = {"wla": ROOT / "__init__.py"}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


MODULES = modules()


def _package(name: str) -> str:
    """The package a module's relative imports start from."""
    return name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]


def _resolve(importer: str, module: str | None, level: int) -> str:
    if not level:
        return module or ""
    base = _package(importer).split(".")
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _called(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def imports(name: str) -> list[tuple[str, int]]:
    """The wla modules `name` imports, with the line of each import."""
    found = []
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = _resolve(name, node.module, node.level)
            for alias in node.names:  # `from wla.archive.kernel import jit` imports the module jit
                sub = f"{module}.{alias.name}"
                found.append((sub if sub in MODULES else module, node.lineno))
        elif isinstance(node, ast.Call) and _called(node) in ("import_module", "__import__") and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                level = len(first.value) - len(first.value.lstrip("."))
                found.append((_resolve(name, first.value.lstrip(".") or None, level), node.lineno))
        elif isinstance(node, ast.Call) and _called(node) == "Part":  # jit imports a part's modules by name
            found += [(s.partition(":")[0], node.lineno) for s in _strings(node) if s.startswith("wla.")]
    return [(module, line) for module, line in found if module == "wla" or module.startswith("wla.")]


def climbing() -> list[str]:
    wrong = []
    for name in MODULES:
        for imported, line in imports(name):
            if floor(imported) > floor(name):
                where = MODULES[name]
                where = where.relative_to(ROOT) if where.is_relative_to(ROOT) else where
                wrong.append(f"{where}:{line}: {name} ({FLOORS[floor(name)]}) "
                             f"imports {imported} ({FLOORS[floor(imported)]})")
    return wrong


def test_every_module_is_on_a_floor():
    assert len(MODULES) > 100
    for name in MODULES:
        floor(name)


def test_every_module_imported_exists():
    """A module named by an import or a string is one of wla's (a moved
    module's old name, left in a string, would be found here)."""
    missing = [f"{name}:{line}: {imported}" for name in MODULES for imported, line in imports(name)
               if imported not in MODULES]
    assert missing == []


def test_no_import_climbs():
    assert climbing() == []


def test_the_kernel_is_its_own_folder():
    kernel = {name for name in MODULES if floor(name) == 0} - {"wla"}
    assert kernel and all(MODULES[name].parent == ROOT / "archive" / "kernel" for name in kernel)


@pytest.mark.parametrize("source, climbs", [
    ("from wla.sim import simulate", "wla.sim.simulate"),
    ("def f():\n    from ...sim.evaluate import shake", "wla.sim.evaluate.shake"),
    ("import importlib\nimportlib.import_module('wla.cli.main')", "wla.cli.main"),
    ("register(Part('p', ('wla.sim.core',), ('wla.sim.warm:warm',), 1))", "wla.sim.core"),
])
def test_a_climbing_import_is_found(tmp_path, monkeypatch, source, climbs):
    """The reader finds each kind of import: a module of the kernel given
    each one fails the test, naming both modules and their floors."""
    planted = tmp_path / "planted.py"
    planted.write_text(source + "\n", encoding="utf-8")
    monkeypatch.setitem(MODULES, "wla.archive.kernel.planted", planted)
    wrong = [line for line in climbing() if "planted" in line]
    assert wrong and f"wla.archive.kernel.planted (the kernel) imports {climbs} (" in wrong[0]
