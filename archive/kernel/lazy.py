"""A package's names loaded when first used (PEP 562), so that importing
the package stays light: `wla --help` reads the settings classes of
`wla.sim` without loading numba, DuckDB or pandas."""
from __future__ import annotations

import sys
import types
from importlib import import_module
from typing import Any, Callable, Mapping


def names_on_first_use(package: str, where: Mapping[str, str],
                       prepare: Callable[[str, Any], None] | None = None) -> Callable[[str], Any]:
    """The `__getattr__` of `package`: each name of `where` imported from its
    module (relative to the package) when first asked for, and kept; then
    `prepare(name, value)`. A name stays the object even when a submodule of
    the same name loads (`wla.sim.simulate` the function, as an eager
    import would leave it), where Python would bind the module."""
    module = sys.modules[package]

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(where[name], package), name)
        if prepare is not None:
            prepare(name, value)
        setattr(module, name, value)
        return value

    class _Package(types.ModuleType):
        def __setattr__(self, name: str, value: Any) -> None:
            if name in where and isinstance(value, types.ModuleType):
                return
            super().__setattr__(name, value)

    module.__class__ = _Package
    return __getattr__
