"""cli/spelling.py: a library parameter as the running command spells it."""
from __future__ import annotations

import pytest
import wla.cli.main  # noqa: F401  (registers the commands spelled below)
from wla.archive.kernel.errors import ParameterError
from wla.cli.app import RUN
from wla.cli.spelling import spelled, told


@pytest.fixture
def running():
    def run(command):
        RUN.clear()
        RUN.update(command=command)
    yield run
    RUN.clear()


def test_the_running_command_s_option(running):
    running("sweep")
    assert spelled("load_factor") == "--load-factor"
    assert spelled("grid") == "--grid"
    assert spelled("journal") == "--save"  # the journal lies beside what --save names
    assert spelled("metric") == "--metric" and spelled("shown_metric") == "--metric"
    assert spelled("path") == "--plot"  # plot_sweep(result, metric, path)
    running("stats")
    assert spelled("directory") == "--plot-dir"  # write_plots(stats, directory, name)
    running("simulate")
    assert spelled("stop_at_last_arrival") == "--stop-at-last-arrival"
    assert spelled("log") == "LOG"  # an argument, as --help shows it


def test_another_command_s_option_or_the_name_itself(running):
    running("pull")
    assert spelled("replace") == "--replace"  # ingest's, refused during a pull
    assert spelled("read_files") == "wla sql --read-files"
    assert spelled("no_such_parameter") == "no_such_parameter"
    RUN.clear()
    assert spelled("load_factor") == "load_factor"  # outside a command: Python's name


def test_an_error_told_as_the_command_line_says_it(running):
    running("shake")
    error = ParameterError("give {workers} or {dask}, not both", "workers", "dask")
    assert told(error) == "give --workers or --dask, not both"
    assert str(error) == "give workers or dask, not both"
