"""Values as the site's pages show and sort them (cli/site/values.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from wla.cli.site.values import as_json, shown, sort_key


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
])
def test_shown(value, column, text):
    assert shown(value, column) == text


def test_sort_keys_and_json():
    assert [sort_key(v) for v in (None, True, 0.1, 12)] == ["", "1", "0.1", "12"]
    assert as_json({"a": math.inf, "b": "é"}) == '{"a": null, "b": "é"}'
