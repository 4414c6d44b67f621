"""The documentation site builds, strict: a broken link, a page missing
from the navigation or a docstring mkdocstrings cannot read fails, here as
in CI (.ci/run). Skipped, saying so, where the `docs` extra is not installed."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from page_examples import ROOT


@pytest.mark.slow  # CI builds the site strict in a step of its own too
def test_the_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[docs]')")
    pytest.importorskip("material", reason="mkdocs-material is not installed (pip install -e '.[docs]')")
    pytest.importorskip("mkdocstrings", reason="mkdocstrings is not installed (pip install -e '.[docs]')")
    out = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "docs" / "mkdocs.yml"),
                           "-d", str(out)], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr
    for page in ("index.html", "getting-started/index.html", "simulation/index.html",
                 "reference/tables/index.html", "figures/sp2_load.png"):
        assert (out / page).is_file(), page
