"""One set of conventions across the commands, read from the typer
application itself (cli/app.py) and from what the commands print on a
small real log with two versions (tests/versions_example.py)."""
from __future__ import annotations

import json

import pytest
from cli_run import wla
from versions_example import LOG, build
from wla.archive.kernel.settings import spec
from wla.archive.kernel.units import count
from wla.cli.app import FLOW, MOVED, command
from wla.cli.options import lowered
from wla.cli.settings import BUILT
from wla.sim.evaluate.summary import METRIC_NAMES

WIDTH = 100
MULTI_FIGURE = {"stats", "validate", "quality"}  # the commands that draw several figures


def _options(name: str) -> list:
    return [p for p in command().commands[name].params if p.param_type_name == "option" and not p.hidden]


def test_every_command_of_the_flow_is_walked():
    assert set(FLOW) == set(command().commands)


@pytest.mark.parametrize("name", FLOW)
def test_plot_is_one_file_and_plot_dir_a_folder(name):
    by_flag = {flag: p for p in _options(name) for flag in p.opts}
    if "--plot" in by_flag:
        plot = by_flag["--plot"]
        assert name not in MULTI_FIGURE
        assert plot.type.name == "path" and plot.metavar == "FILE", (name, plot.metavar)
        assert ".png, .svg or .pdf" in plot.help
    if name in MULTI_FIGURE:
        assert by_flag["--plot-dir"].metavar == "DIR"
    else:
        assert "--plot-dir" not in by_flag


@pytest.mark.parametrize("name", FLOW)
def test_metric_names_a_metric_wherever_it_is(name):
    for p in _options(name):
        if "--metric" in p.opts:
            if p.multiple:  # sweep: --metric given again for more
                assert p.default and set(p.default) <= set(METRIC_NAMES) and "metric" in p.help.lower()
                assert _given(name, p, ["WAIT_Mean", "Utilization"]) == ["wait_mean", "utilization"]
                continue
            assert p.default in METRIC_NAMES and "metric" in p.help.lower()
            assert _given(name, p, "WAIT_Mean") == "wait_mean"


def _given(name: str, param, value: str):
    """The value a command receives for an option given as `value`."""
    cmd = command().commands[name]
    return param.process_value(cmd.context_class(cmd), value)


def test_choices_are_read_in_any_case():
    """The settings' choices are checked in any case (kernel/settings.py);
    the command line's own (a format, a metric, a rule) are lowered as given."""
    for option, cls, setting in BUILT:
        choices = spec(cls.described_one(setting)[0]).choices
        for choice in choices:
            assert getattr(cls(**{setting: choice.upper()}).checked(), setting) == choice
    own = {("sql", "fmt"): "CSV", ("convert", "fmt"): "Sacct", ("shake", "metric"): "WAIT_MEAN",
           ("sweep", "metric"): "Utilization", ("stats", "match"): "RATIO", ("validate", "hurst_fit"): "Means"}
    for (name, option), value in own.items():
        [param] = [p for p in _options(name) if p.name == option]
        if param.multiple:
            assert _given(name, param, [value]) == [value.lower()]
        else:
            assert _given(name, param, value) == value.lower()
    assert lowered("WAIT_Mean") == "wait_mean"


def test_an_old_spelling_is_refused_with_the_new_one(tmp_path):
    for (name, flags), now in MOVED.items():
        run = wla(name, "some-log", flags[0], tmp_path / "x", archive=tmp_path / "none.duckdb")
        assert run.one_error_line() == f"wla: {now}"


# -- what the commands print ------------------------------------------------------------

V2 = f"{LOG}@v2"
# Every command that prints a table, run on the small log; the dropped job 61 makes `why` print its decisions.
TABLES = {
    "ls": [], "sql": ["SELECT name, file_name, sha256, ingested_at, machine_size_source FROM logs"],
    "quality": [], "flurries": [LOG], "capacity": [LOG], "rules": [], "versions": [LOG],
    "diff": [LOG, "v1", "v2"], "why": [LOG, "61"], "simulate": [LOG], "users": [LOG], "stats": [LOG],
    "shake": [LOG, "--runs", "2", "--workers", "1"],
    "sweep": [LOG, "--grid", "load=0.8,0.9", "--runs", "1", "--workers", "1"],
    "compare": [LOG, "--b", "policy=conservative", "--runs", "1", "--workers", "1"],
    "doctor": [],
}
# validate prints a table too, but resamples a log of many weeks (this one has one): its table is
# held by text.validation's grid, as the others', and its --wide by the option walk below.
WIDE_ONLY = {"validate"}


def test_every_table_command_takes_wide():
    for name in [*TABLES, *WIDE_ONLY]:
        assert "--wide" in {flag for p in _options(name) for flag in p.opts}, name


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    path = tmp_path_factory.mktemp("conventions") / "a.duckdb"
    build(path)
    return path


@pytest.mark.parametrize("name", sorted(TABLES))
def test_a_table_fits_100_columns_and_wide_shows_it_whole(small, name):
    assert "--wide" in {flag for p in _options(name) for flag in p.opts}
    fitted = wla(name, *TABLES[name], archive=small)
    assert fitted.status == 0, fitted.err
    long = [line for line in fitted.out.splitlines() if len(line) > WIDTH]
    assert long == [], (name, long)
    whole = wla(name, *TABLES[name], "--wide", archive=small)
    assert whole.status == 0, whole.err
    if name in ("why", "sql", "shake", "compare"):  # tables wider than 100 columns, shown on one line each
        assert max(len(line) for line in whole.out.splitlines()) > WIDTH


def test_why_cuts_the_reason_and_wide_gives_it_whole(small):
    fitted, whole = (wla("why", LOG, "61", *more, archive=small).out for more in ((), ("--wide",)))
    assert "matches the filter user=5" in whole and fitted != whole
    [row] = [line for line in whole.splitlines() if line.startswith(V2 + " ")]  # one row, one line
    assert row.endswith("matches the filter user=5")


# -- units and counts ---------------------------------------------------------------------


def test_fractions_are_percentages_in_text_and_fractions_in_json(small):
    """The log's utilization by hand: the processor-seconds its jobs use over
    the machine's (128 processors) from the first submit to the last end."""
    data = json.loads(wla("simulate", LOG, "--json", archive=small).out)
    util = data["metrics"]["utilization"]
    assert 0 < util < 1
    text = wla("simulate", LOG, archive=small).out
    assert f"utilization {100 * util:.1f}% of the machine" in text
    shaken = wla("shake", LOG, "--runs", "2", "--workers", "1", archive=small)
    row = next(line for line in shaken.out.splitlines() if line.startswith("utilization (%)"))
    assert row.split()[2] == f"{100 * util:.1f}%"  # the original run is the simulation above


def test_seconds_carry_their_unit_and_large_ones_a_human_unit(small):
    """first_arrival_mean by hand: each user's first submit, from the log's
    start, averaged over the users (pandas on the file, not wla)."""
    from real_logs import pandas_log

    jobs = pandas_log(LOG)
    first = jobs.groupby("user")["submit"].min()  # submit times count from the log's start
    stats = json.loads(wla("stats", LOG, "--json", archive=small).out)
    assert stats["scalars"]["first_arrival_mean"] == pytest.approx(first.mean())
    line = next(x for x in wla("stats", LOG, archive=small).out.splitlines() if x.startswith("first_arrival_mean"))
    hours = first.mean() / 3600
    assert line.split(None, 1)[1] == f"{first.mean():,.0f} s ({hours:.1f} h)"


def test_counts_agree_with_their_nouns(small, tmp_path):
    assert (count(1, "version"), count(2, "version"), count(0, "log")) == ("1 version", "2 versions", "0 logs")
    assert count(1_024, "job") == "1,024 jobs" and count(1, "match", "matches") == "1 match"
    flurries = wla("flurries", LOG, archive=small).out
    assert flurries.startswith(f"{LOG}: 228 jobs over 1 week;")  # 228 jobs submitted on one day
    one = wla("sql", f"SELECT * FROM jobs WHERE log_id = (SELECT log_id FROM logs WHERE name = '{LOG}')",
              "--limit", "227", archive=small).out
    assert one.rstrip().endswith("... 1 more row (--limit N shows N, --all every one)")
