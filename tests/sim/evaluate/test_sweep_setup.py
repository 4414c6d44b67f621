"""sim/evaluate/sweep_setup.py: a sweep made whole in the library, so a
Python caller meets the command line's rules."""
from __future__ import annotations

from pathlib import Path

import pytest
from wla.archive.kernel.errors import ParameterError
from wla.sim.evaluate.sweep_setup import journal_for, sweep_setup


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_named_settings_win_over_the_file_which_wins_over_the_defaults(tmp_path):
    config = _config(tmp_path, 'log = "L"\nruns = 7\ntau = 20\n[grid]\nload = "0.5:0.7:0.1"\npolicy = "easy,fcfs"\n')
    setup = sweep_setup(["policy=conservative"], config, runs=2)
    assert setup.log == "L" and setup.shake.runs == 2 and setup.sim.tau == 20
    assert setup.sim.warmup == 0.01  # the default
    # the given grid replaces the file's of the same name, and goes last (it varies fastest)
    assert setup.grids == [("load", [0.5, 0.6, 0.7]), ("policy", ["conservative"])]
    assert sweep_setup(["load=1"], query="SELECT 1", absolute=True).shake.relative is None


@pytest.mark.parametrize("grids, given, message", [
    (["load=1", "load=2"], {"log": "L"}, "grid load is given twice; give each parameter's values in one grid"),
    ([], {"log": "L"}, "give at least one grid NAME=VALUES (or a config file with a [grid] table)"),
    (["load=1"], {}, "give a log to sweep, or query SQL"),
    (["policy=easy"], {"log": "L", "policy": "fcfs"}, "policy is swept by a grid; do not also give it"),
    (["load=1"], {"log": "L", "load_factor": 2.0}, "load_factor is swept by a grid; do not also give it"),
    (["load=1"], {"log": "L", "speed": 2}, "not a setting of a sweep: speed"),
])
def test_each_rule_is_the_library_s(grids, given, message):
    with pytest.raises(ParameterError) as e:
        sweep_setup(grids, **given)
    assert str(e.value) == message


def test_the_command_line_spells_the_parameters_as_its_options():
    with pytest.raises(ParameterError) as e:
        sweep_setup(["policy=easy"], log="L", policy="fcfs")
    flags = {"grid": "--grid", "policy": "--policy"}
    assert e.value.spelled(flags.get) == "--policy is swept by a --grid; do not also give it"


def test_the_journal_sits_beside_what_it_records(tmp_path):
    assert journal_for(tmp_path / "a.duckdb", "out.parquet") == Path("out.parquet.journal")
    assert journal_for(tmp_path / "a.duckdb", "loads") == tmp_path / "a.duckdb.loads.sweep-journal"
    assert journal_for(tmp_path / "a.duckdb", None) is None
    with pytest.raises(ParameterError, match="^resume finishes the sweep that save names"):
        journal_for(tmp_path / "a.duckdb", None, resume=True)
