"""Every detector module is registered, and its thresholds are parameters
with defaults (the documented ones), so `diagnose` can run it bare."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import wla.archive.analysis.diagnosis as package
from wla.archive.analysis.diagnosis.registry import DETECTORS


def test_every_module_with_a_detect_function_is_registered_once():
    modules = [m.name for m in pkgutil.iter_modules(package.__path__)]
    detecting = {importlib.import_module(f"{package.__name__}.{m}").detect
                 for m in modules if hasattr(importlib.import_module(f"{package.__name__}.{m}"), "detect")}
    assert detecting == set(DETECTORS.values())
    assert len(DETECTORS) == len(detecting)


def test_every_threshold_has_a_default():
    for name, detect in DETECTORS.items():
        [log, *params] = inspect.signature(detect).parameters.values()
        assert log.name == "log", name
        assert all(p.default is not inspect.Parameter.empty for p in params), name
