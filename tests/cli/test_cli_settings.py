"""cli/settings.py: a command that takes a settings class gets one option
per setting, with the class's default and help, and receives the class."""
from __future__ import annotations

from dataclasses import dataclass

import typer
from typer.testing import CliRunner
from wla.archive.kernel.settings import Settings, setting
from wla.cli.settings import option, takes


@dataclass(frozen=True)
class Knobs(Settings):
    size: int = setting(4, "How many")
    mode: str = setting("fast", "fast or slow")
    label: str | None = setting(None, "A name")


def _app(**groups):
    app = typer.Typer()
    got = {}

    @app.command()
    @takes(**groups)
    def run(name: str = typer.Argument(...), knobs: Knobs = Knobs(), loud: bool = typer.Option(False, "--loud")):
        got.update(name=name, knobs=knobs, loud=loud)

    return app, got


def test_each_setting_is_an_option_and_the_command_gets_the_class():
    app, got = _app(knobs=Knobs)
    r = CliRunner().invoke(app, ["x", "--size", "7", "--label", "a b", "--loud"])
    assert r.exit_code == 0, r.output
    assert got == {"name": "x", "knobs": Knobs(size=7, mode="fast", label="a b"), "loud": True}
    help_text = CliRunner().invoke(app, ["--help"]).output
    assert "--size" in help_text and "How many" in help_text and "[default: 4]" in help_text


def test_a_command_leaves_a_setting_out_or_words_it_its_own_way():
    app, got = _app(knobs=(Knobs, {"mode": None, "size": option(Knobs, "size", help="Boxes")}))
    help_text = CliRunner().invoke(app, ["--help"]).output
    assert "--mode" not in help_text and "Boxes" in help_text
    assert CliRunner().invoke(app, ["x"]).exit_code == 0
    assert got["knobs"] == Knobs()
    assert CliRunner().invoke(app, ["x", "--mode", "slow"]).exit_code != 0
