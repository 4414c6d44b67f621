"""Showing what a command returns: as text for a person, or with --json as
JSON for a program, from the same data (wla.archive.kernel.plain says how values
become JSON's, for the commands and the web catalog alike)."""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import typer
from wla.archive.kernel.plain import plain


def show(data: Any, as_json: bool, text: Callable[[Any], str], wide: bool = False) -> None:
    """Print `data` as JSON, or as `text(data)` renders it: its tables fitted
    to the terminal's 100 columns, or whole (`wide`, the option --wide)."""
    if as_json:
        typer.echo(to_json(data))
        return
    from .render import wide as whole

    with whole(wide):
        typer.echo(text(data))


def warn(messages: list[str]) -> None:
    """What the user should know about a result, one line each on stderr."""
    for message in messages:
        typer.echo(f"wla: warning: {message}", err=True)


def to_json(data: Any) -> str:
    return json.dumps(plain(data), indent=1)
