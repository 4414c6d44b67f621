"""The options page's settings tables are the settings classes' own."""
from pathlib import Path

from wla.archive.kernel.errors import OptionError
from wla.archive.kernel.ranges import number
from wla.archive.kernel.settings import Spec
from wla.cli.reference import BEGIN, END, accepted, settings_markdown

PAGE = Path(__file__).resolve().parents[2] / "docs" / "pages" / "reference" / "options.md"


def test_the_page_holds_the_tables_the_classes_make():
    text = PAGE.read_text(encoding="utf-8")
    shown = text[text.index(BEGIN):text.index(END) + len(END)]
    assert shown == settings_markdown(), (
        "docs/pages/reference/options.md is stale: put wla.cli.reference.settings_markdown() between its markers")


def test_a_range_is_what_the_check_says_when_it_refuses():
    s = Spec("h", check=lambda n, v: number(n, v, 0, 1, high_open=True))
    assert accepted(s, "warmup") == "a number in [0, 1)"
    assert accepted(Spec("h", choices=("a", "b")), "x") == "a, b"
    assert accepted(Spec("h"), "x") == ""


def test_every_row_names_a_setting_with_its_default():
    from wla.sim.settings import SimSettings

    table = settings_markdown()
    assert "| `--warmup` | `0.01` | a number in [0, 1) |" in table
    assert "| `--procs` | (none) | a whole number from 1 to 2,147,483,647 |" in table
    assert table.count("\n| `--") == len(SimSettings.names()) + 6 + 12  # ShakeSettings 6, ResampleSettings 12
    try:
        SimSettings(warmup=1.0).checked()
    except OptionError as e:
        assert "a number in [0, 1)" in str(e)
    else:
        raise AssertionError("warmup 1.0 was accepted")
