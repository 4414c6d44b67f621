"""archive/kernel/lazy.py: a package's names load when first asked for, and
a function keeps its name when its module of the same name loads."""
from __future__ import annotations

import importlib
import sys

import pytest


@pytest.fixture
def package(tmp_path, monkeypatch):
    root = tmp_path / "lazypkg"
    root.mkdir()
    (root / "__init__.py").write_text(
        "from wla.archive.kernel.lazy import names_on_first_use\n"
        "PREPARED = []\n"
        "__getattr__ = names_on_first_use(__name__, {'work': '.work', 'VALUE': '.values'},\n"
        "                                 lambda name, value: PREPARED.append(name))\n")
    (root / "work.py").write_text("def work():\n    return 42\n")
    (root / "values.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("lazypkg")
    for name in [m for m in sys.modules if m == "lazypkg" or m.startswith("lazypkg.")]:
        del sys.modules[name]


def test_a_name_loads_when_first_asked_for_and_once(package):
    assert "lazypkg.values" not in sys.modules
    assert package.VALUE == 7 and package.VALUE == 7
    assert "lazypkg.values" in sys.modules and package.PREPARED == ["VALUE"]
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        package.nothing  # noqa: B018


def test_a_function_keeps_its_name_when_its_module_loads(package):
    importlib.import_module("lazypkg.work")  # Python would bind the module to lazypkg.work here
    from lazypkg import work

    assert callable(work) and work() == 42 and package.work is work
