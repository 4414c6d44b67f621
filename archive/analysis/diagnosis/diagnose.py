"""Run every detector over a log."""
from __future__ import annotations

from ...kernel.errors import UsageError
from ...store.file import Archive
from .finding import Finding
from .log_data import LogData, load
from .registry import DETECTORS


def diagnose(archive: Archive, name: str, params: dict[str, dict] | None = None) -> list[Finding]:
    """Every detector's findings for the log `name`, in the registry's order;
    `params` overrides a detector's thresholds by its name."""
    return diagnose_data(load(archive, name), params)


def diagnose_data(log: LogData, params: dict[str, dict] | None = None) -> list[Finding]:
    params = params or {}
    unknown = sorted(set(params) - set(DETECTORS))
    if unknown:
        raise UsageError(f"no detector {', '.join(unknown)}: the detectors are {', '.join(DETECTORS)}")
    return [f for name, detect in DETECTORS.items() for f in detect(log, **params.get(name, {}))]
