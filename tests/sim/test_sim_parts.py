"""The simulator's compiled parts (sim/parts.py) are registered with the
kernel's jit when `wla.sim` is imported, and name modules that exist."""
from __future__ import annotations

import importlib

import wla.sim  # noqa: F401  (registers the parts)
from wla.archive.kernel import jit
from wla.sim.parts import CHECK, CORE


def test_the_parts_are_registered_once_and_their_modules_exist():
    assert CORE in jit.PARTS and CHECK in jit.PARTS
    assert jit.register(CORE) is CORE and jit.PARTS.count(CORE) == 1
    for part in (CORE, CHECK):
        for name in part.modules:
            importlib.import_module(name)
        for warm in part.warm:
            module, _, function = warm.partition(":")
            assert callable(getattr(importlib.import_module(module), function))
