"""Which archive file a run uses (archive/store/location.py)."""
from __future__ import annotations

from pathlib import Path

from wla.archive.store.location import DEFAULT_PATH, ENV_PATH, archive_path


def test_the_given_file_then_the_environment_then_the_default(monkeypatch):
    monkeypatch.setenv(ENV_PATH, "/data/env.duckdb")
    assert archive_path(Path("given.duckdb")) == "given.duckdb"
    assert archive_path() == "/data/env.duckdb"
    monkeypatch.setenv(ENV_PATH, "")
    assert archive_path() == DEFAULT_PATH == "archive.duckdb"
    monkeypatch.delenv(ENV_PATH)
    assert archive_path(None) == "archive.duckdb"
