"""Showing what a command returns (cli/present.py): text for a person, or
the same data as JSON with --json; warnings one line each on stderr."""
from __future__ import annotations

import json

from wla.cli.present import show, to_json, warn


def test_text_or_json_from_the_same_data(capsys):
    data = {"jobs": 3, "share": float("nan")}
    show(data, False, lambda d: f"{d['jobs']} jobs")
    show(data, True, lambda d: "never")
    text, json_text = capsys.readouterr().out.split("\n", 1)
    assert text == "3 jobs" and json.loads(json_text) == {"jobs": 3, "share": None}
    assert to_json([1]) == "[\n 1\n]"


def test_warnings_go_to_stderr(capsys):
    warn(["first", "second"])
    out, err = capsys.readouterr()
    assert out == "" and err == "wla: warning: first\nwla: warning: second\n"
