"""A sweep written down (sim/evaluate/sweep_config.py): the options by name,
each of its option's type, and the grid as --grid writes it or as a list."""
from __future__ import annotations

import pytest
from wla.archive.kernel.errors import UsageError
from wla.sim.evaluate.sweep_config import read_config


def _config(tmp_path, text: str):
    path = tmp_path / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_options_and_grids_in_the_order_written(tmp_path):
    path = _config(tmp_path, 'log = "L"\nruns = 4\ntau = 10\nabsolute = true\n'
                             '[grid]\nprocs = [64, 128]\nload = "0.5:0.7:0.1"\n')
    options, grids = read_config(path)
    assert options == {"log": "L", "runs": 4, "tau": 10, "absolute": True}
    assert [name for name, _ in grids] == ["procs", "load"]
    assert grids[0][1] == [64, 128] and grids[1][1] == pytest.approx([0.5, 0.6, 0.7])


@pytest.mark.parametrize("text, says", [
    ('runs = "many"\n', 'runs is a whole number, not "many"'),
    ("runs = 1.5\n", "runs is a whole number, not 1.5"),
    ("runs = true\n", "runs is a whole number, not true"),
    ("tau = false\n", "tau is a number, not false"),
    ('log = "L"\nspeed = 3\n', "unknown keys speed; known: "),
    ('grid = "load=1"\n', r"\[grid\] is a table of parameter = values"),
    ("[grid]\nload = true\n", "grid load is a text as grid writes it or a list of values, not bool"),
])
def test_a_value_of_the_wrong_type_is_refused_naming_the_key(tmp_path, text, says):
    with pytest.raises(UsageError, match=r"sweep\.toml: " + says):
        read_config(_config(tmp_path, text))


def test_a_file_that_is_not_toml_says_its_line(tmp_path):
    with pytest.raises(UsageError, match=r"sweep\.toml:2: not TOML"):
        read_config(_config(tmp_path, 'log = "L"\nruns = = 3\n'))
