"""Small text files wla reads whole (archive/clean/textfile.py): UTF-8 or a
refusal at its line and column, TOML errors at their line, nesting bounded."""
from __future__ import annotations

import pytest
from wla.archive.clean.textfile import MAX_NESTING, parse_toml, read_text
from wla.archive.kernel.errors import RecipeError


def test_the_text_without_its_byte_order_mark(tmp_path):
    path = tmp_path / "r.toml"
    path.write_bytes(b"\xef\xbb\xbflog = 'x'\n")
    assert read_text(path, "recipe", RecipeError) == "log = 'x'\n"


def test_a_byte_that_is_not_utf8_is_named_at_its_line_and_column(tmp_path):
    path = tmp_path / "r.toml"
    path.write_bytes(b"a = 1\nbb\xff = 2\n")  # line 2, the third byte of the line
    with pytest.raises(RecipeError, match=r"r\.toml:2: not UTF-8: byte 0xff at column 3; a recipe is UTF-8 text"):
        read_text(path, "recipe", RecipeError)


def test_a_folder_is_not_read(tmp_path):
    with pytest.raises(RecipeError, match="folder"):
        read_text(tmp_path, "recipe", RecipeError)


def test_toml_errors_say_file_and_line():
    assert parse_toml("a = 1\n[b]\nc = 'x'\n", "f.toml", RecipeError) == {"a": 1, "b": {"c": "x"}}
    with pytest.raises(RecipeError, match=r"^f\.toml:2: not TOML: .* \(column \d+\)$"):
        parse_toml("a = 1\nb = = 2\n", "f.toml", RecipeError)


def test_nesting_is_bounded():
    deep = "a = " + "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1) + "\n"
    with pytest.raises(RecipeError, match=f"f.toml: nested more than {MAX_NESTING} levels deep"):
        parse_toml(deep, "f.toml", RecipeError)
    shallow = "a = " + "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1) + "\n"
    assert parse_toml(shallow, "f.toml", RecipeError)  # the table itself is the last level
