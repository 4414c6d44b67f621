"""What the pull tests share: no mirror from the environment, so each test
sees the catalog's own address unless it sets one."""
from __future__ import annotations

import pytest
from wla.archive.pull.catalog import URL_ENV


@pytest.fixture(autouse=True)
def _no_env_url(monkeypatch):
    monkeypatch.delenv(URL_ENV, raising=False)
