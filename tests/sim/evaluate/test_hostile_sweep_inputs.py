"""A sweep's inputs under attack: grid numbers that would spin, overflow or
crash the simulator, a parameter given twice, a --save that would replace
someone's file. Each is refused at once, in one line, before any run."""
from __future__ import annotations

import os

import pytest
from cli_run import wla
from wla.archive.kernel.errors import UsageError
from wla.sim.evaluate.grid import MAX_DIGITS, MAX_POINTS, parse_grid

LOG = "NASA-iPSC-1993-3-head228"


@pytest.fixture(scope="module")
def archive_file(tmp_path_factory):
    from real_logs import data_dir

    path = tmp_path_factory.mktemp("inputs") / "a.duckdb"
    assert wla("ingest", data_dir() / f"{LOG}.swf.gz", archive=path).status == 0
    return path


@pytest.mark.parametrize("grid, words", [
    ("load=0.5:0.5:1e-40", f"'1e-40' has more than {MAX_DIGITS} digits after the point"),
    ("load=1:2:1e-999999", f"'1e-999999' has more than {MAX_DIGITS} digits after the point"),
    ("load=1:2:1e-19", f"more than 10^12 values; at most {MAX_POINTS:,}"),
    ("load=1:1e999999999:1", f"more than 10^12 values; at most {MAX_POINTS:,}"),
    ("load=0:1:0.25", "--grid load: must be a number in [1e-06, 1,000,000], not 0.0"),
    ("load=1e999999999", "--grid load: must be a number in [1e-06, 1,000,000], not inf"),
    ("procs=1180591620717411303424", "--grid procs: must be a whole number from 1 to 2,147,483,647, "
                                     "not 1180591620717411303424"),
    ("procs=0,4", "--grid procs: must be a whole number from 1 to 2,147,483,647, not 0"),
    ("badness=0:2e6:1e6", "--grid badness: must be a number in [0, 1,000,000], not 2000000.0"),
    ("rb_npw=-1", "--grid rb_npw: must be a number in [0, 10,000,000], not -1.0"),
])
def test_grid_numbers_out_of_range_are_refused_at_once(archive_file, grid, words):
    with pytest.raises(UsageError) as e:
        parse_grid(grid)
    assert words.replace("--grid", "grid") in str(e.value)  # Python names the grid; the command line its option
    line = wla("sweep", LOG, "--grid", grid, "--runs", "1", "--workers", "1", archive=archive_file).one_error_line()
    assert words in line


def test_ranges_still_give_the_values_as_written():
    assert parse_grid("load=0.5:0.6:0.05") == ("load", [0.5, 0.55, 0.6])
    assert parse_grid("procs=64:128:64") == ("procs", [64, 128])


def test_a_parameter_given_twice_is_refused(archive_file):
    line = wla("sweep", LOG, "--grid", "load=1", "--grid", "load=2", "--runs", "1", "--workers", "1",
               archive=archive_file).one_error_line()
    assert line == "wla: --grid load is given twice; give each parameter's values in one --grid"


@pytest.mark.parametrize("command", [
    ["sweep", LOG, "--grid", "load=1", "--runs", "1", "--workers", "1"],
    ["shake", LOG, "--runs", "1", "--workers", "1"],
    ["simulate", LOG],
])
def test_save_replaces_only_what_wla_saved(archive_file, tmp_path, command):
    target = tmp_path / "t.parquet"
    target.write_text("someone's notes\n")
    line = wla(*command, "--save", target, archive=archive_file).one_error_line()
    assert line == f"wla: {target} exists and is not a result wla saved; give --force to replace it"
    assert target.read_text() == "someone's notes\n"
    assert wla(*command, "--save", target, "--force", archive=archive_file).status == 0
    assert target.read_bytes()[:4] == b"PAR1"
    again = wla(*command, "--save", target, archive=archive_file)  # its own result: replaced
    assert again.status == 0, again.err


def test_save_is_never_a_fifo_or_a_link(archive_file, tmp_path):
    fifo = tmp_path / "f.parquet"
    os.mkfifo(fifo)
    victim = tmp_path / "victim"
    victim.write_text("x")
    link = tmp_path / "l.parquet"
    link.symlink_to(victim)
    for target in (fifo, link):
        line = wla("simulate", LOG, "--save", target, "--force", archive=archive_file).one_error_line()
        assert line == f"wla: {target}: not a regular file; --save writes a new file or replaces a result wla saved"
    assert victim.read_text() == "x"


@pytest.mark.parametrize("body, words", [
    ('runs = "many"', 'runs is a whole number, not "many"'),
    ("runs = 1.5", "runs is a whole number, not 1.5"),
    ("runs = true", "runs is a whole number, not true"),
    ("seed = -0.0", "seed is a whole number, not -0.0"),
    ("tau = \"10\"", 'tau is a number, not "10"'),
    ("absolute = 1", "absolute is true or false, not 1"),
    ("log = 3", "log is text, not 3"),
    ("runs = = 2", ":1: not TOML: Invalid value (column 8)"),
    ("x = " + "[" * 200 + "]" * 200, "nested more than 32 levels deep"),
    ("[grid]\nload = true", "grid load is a text as --grid writes it or a list of values, not bool"),
    ("[grid]\nload = [[1]]", "grid load is a text as --grid writes it or a list of values, not list"),
    ("[grid]\nload = \"1:2:1e-999999\"", "'1e-999999' has more than 20 digits after the point"),
])
def test_a_config_is_read_as_a_recipe_is(archive_file, tmp_path, body, words):
    config = tmp_path / "c.toml"
    config.write_text(body + "\n")
    line = wla("sweep", LOG, "--config", config, "--runs", "1", "--workers", "1",
               archive=archive_file).one_error_line()
    assert words in line and (str(config) in line or "--grid" in line), line


def test_a_config_that_is_not_utf8_names_its_line(archive_file, tmp_path):
    config = tmp_path / "c.toml"
    config.write_bytes(b"runs = 2\nlog = \"\xe9\"\n")
    line = wla("sweep", "--config", config, archive=archive_file).one_error_line()
    assert line == f"wla: {config}:2: not UTF-8: byte 0xe9 at column 8; a sweep config is UTF-8 text"


def test_runs_times_points_are_capped(archive_file):
    from wla.sim.evaluate.sweep import MAX_SIMULATIONS

    line = wla("sweep", LOG, "--grid", "load=0.5:1.5:0.0001", "--runs", "1000", "--workers", "1",
               archive=archive_file).one_error_line()
    assert line == (f"wla: 10,001 points x 1,001 runs each (the single and 1,000 more) are 10,011,001 "
                    f"simulations; a sweep does at most {MAX_SIMULATIONS:,}: fewer points or runs, or several sweeps")


@pytest.mark.parametrize("kind", ["fifo", "folder", "device"])
def test_an_archive_that_is_no_regular_file_is_refused_without_waiting(tmp_path, kind):
    import subprocess
    import sys

    target = {"fifo": tmp_path / "a.duckdb", "folder": tmp_path, "device": "/dev/null"}[kind]
    if kind == "fifo":
        os.mkfifo(target)
    what = {"fifo": "a FIFO", "folder": "a folder", "device": "a character device"}[kind]
    for command in (["ls"], ["sweep", LOG, "--grid", "load=1", "--runs", "1"]):
        r = subprocess.run([sys.executable, "-m", "wla.cli.main", "-a", str(target), *command],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 1 and r.stderr == f"wla: cannot open archive {target}: {what}, not a regular file\n"
