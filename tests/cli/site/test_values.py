"""Values as the site's pages show and sort them (cli/site/values.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from wla.cli.site.values import as_json, shown, sort_key, with_unit


@pytest.mark.parametrize("value, column, text", [
    (None, "", "-"),
    (math.nan, "", "-"),
    (True, "", "yes"),
    (0.1234, "utilization", "12.3%"),
    (1234567.0, "", "1,234,567"),
    (2.5, "", "2.50"),
    (14.04, "months", "14.0"),
    (np.int64(1234567), "", "1,234,567"),
    (1234567, "job", "1234567"),
    ("é ~x", "", "é ~x"),
    (8597585.0, "peak_at", "8,597,585 s (99.5 d)"),  # 8,597,585 / 86,400 = 99.51 days
    (736.0, "median_run", "736 s"),
    (0.42, "build_seconds", "0.42 s"),
    (172800, "max_runtime", "172,800 s (2.0 d)"),
])
def test_shown(value, column, text):
    assert shown(value, column) == text


def test_sort_keys_and_json():
    assert [sort_key(v) for v in (None, True, 0.1, 12)] == ["", "1", "0.1", "12"]
    assert as_json({"a": math.inf, "b": "é"}) == '{"a": null, "b": "é"}'


@pytest.mark.parametrize("value, column, text", [
    (240, "machine_size", "240 processors"),
    (1, "ceiling", "1 processor"),
    (1, "flurry_weeks", "1 user-week"),
    (51330, "file_size", "51,330 bytes"),
    (1.0, "months", "1.0 months"),
    (4586526.0, "peak_at", "4,586,526 s (53.1 d) after the log's start"),
    (None, "machine_size", "-"),
    (12, "jobs", "12"),  # the label says what it counts
    (0.933, "ceiling_share", "93.3%"),
])
def test_with_unit(value, column, text):
    assert with_unit(value, column) == text
