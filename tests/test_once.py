"""Each rule and constant is defined once: where a second place must say the
same (SQL and Python, a rule's header and the library), these tests hold the
two to the same answer on every real log, or to the same value."""
from __future__ import annotations

import gzip
import importlib
import inspect
import re
from decimal import Decimal
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
import wla
from sqlglot import exp
from wla.archive.analysis.capacity import choice as capacity_choice
from wla.archive.clean.bind import bind
from wla.archive.clean.rules import load_rules
from wla.archive.convert.recovery import CLOCK_ALLOWANCE, normalize_span, positive_or_unknown
from wla.archive.kernel.clock import DAY, WEEK, LogClock
from wla.archive.kernel.errors import UsageError
from wla.archive.kernel.output import write_bytes
from wla.archive.kernel.processors import job_processors, processors
from wla.archive.swf.fields import COLUMNS, FIELDS
from wla.sim.settings import SimSettings

simulate_module = importlib.import_module("wla.sim.simulate")  # wla.sim.simulate is also the function
ROOT = Path(wla.__file__).resolve().parent

PACKAGE = Path(wla.__file__).resolve().parent
SCHEMA = PACKAGE / "schema"


def _package_sources() -> dict[Path, str]:
    """Every Python file of the package (not the tests), by path."""
    return {p: p.read_text(encoding="utf-8") for folder in ("archive", "sim", "cli", "schema")
            for p in sorted((PACKAGE / folder).rglob("*.py"))}


def _schema_sql() -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for p in sorted(SCHEMA.rglob("*.sql"))}


# -- the processors rule and the week: one SQL macro, one Python definition ------

def test_processors_rule_is_the_same_in_sql_python_and_pandas_on_every_real_log(real_archive):
    jobs = real_archive.df("SELECT log_id, line_no, procs, req_procs, job_procs(procs, req_procs) AS sql "
                           "FROM jobs ORDER BY log_id, line_no")
    assert jobs.log_id.nunique() == len(real_archive.log_names())
    # By hand: allocated when positive, else requested when positive, else unknown.
    by_hand = jobs.procs.where(jobs.procs > 0, jobs.req_procs.where(jobs.req_procs > 0)).astype(float)
    python = job_processors(jobs)
    sql = jobs["sql"].astype(float).to_numpy()
    np.testing.assert_array_equal(python, by_hand.to_numpy())
    np.testing.assert_array_equal(sql, by_hand.to_numpy())
    # Logs where the rule decides something: requested stands in for allocated.
    assert ((jobs.procs <= 0) & (jobs.req_procs > 0)).any()
    assert np.isnan(processors([0, -1, 3], [-1, 0, 7])[:2]).all() and processors([0], [5])[0] == 5


def test_week_is_the_same_in_sql_and_python_on_every_real_log(real_archive):
    assert WEEK == 604800 == 7 * DAY
    rows = real_archive.df("SELECT submit, log_week(submit) AS week FROM jobs WHERE submit <> -1")
    np.testing.assert_array_equal(rows.week.to_numpy(), np.floor(rows.submit.to_numpy() / WEEK).astype(np.int64))
    typed = real_archive.df("SELECT count(*) AS n FROM typed_jobs WHERE week <> CAST(floor(submit / 604800) AS BIGINT)")
    assert typed.n[0] == 0
    edges = real_archive.df("SELECT log_week(-1) AS a, log_week(604799.5) AS b, log_week(604800) AS c")
    assert edges.values.tolist() == [[-1, 0, 1]]


def test_the_processors_rule_and_the_week_are_written_once():
    """In SQL only in macros.sql (every view calls the macros); in Python the
    week is 7 * DAY and the processors rule lives in wla.archive.kernel.processors."""
    sql = _schema_sql()
    rule = re.compile(r"procs\s*>\s*0\s+THEN\s+procs\s+WHEN\s+req_procs\s*>\s*0", re.I)
    assert [p.name for p, text in sql.items() if rule.search(text)] == ["macros.sql"]
    assert [p.name for p, text in sql.items() if "604800" in text] == ["macros.sql"]
    for view in ("figures.sql", "quality.sql"):
        assert "job_procs(procs, req_procs)" in (SCHEMA / view).read_text()
    python = _package_sources()
    assert [p.name for p, text in python.items() if re.search(r"\b604800\b|\b86400\b", text)] == ["clock.py"]
    assert [p.name for p, text in python.items()
            if re.search(r"(procs|allocated)\s*>\s*0\s*,", text)] == ["processors.py"]


# -- normalization: the conversion's and the rule's ----------------------------------

def _rule_normalize(frame: pd.DataFrame, allowance: float) -> pd.DataFrame:
    """The normalize rule's SQL, bound as a build binds it, over `frame`."""
    rule = load_rules()["normalize"]
    query = bind(rule, {"allowance": allowance}, LogClock(), {"version_id": 0, "step": 1},
                 exp.to_table("frame_in")).sql(dialect="duckdb")
    con = duckdb.connect()
    try:
        con.register("frame_in", frame)
        return con.execute(query + " ORDER BY line_no").df()
    finally:
        con.close()


def _conversion_normalize(column: str, value: float) -> float:
    """What conversion makes of a value, SWF's -1 read as unknown (None) and
    unknown written back as -1. (Conversion works before SWF's encoding, on
    exact decimals where a recovered wait of -1 s is a value, not unknown.)"""
    raw = None if value == -1 else Decimal(value)
    out = normalize_span(raw) if column in ("wait", "run") else positive_or_unknown(raw)
    return -1.0 if out is None else float(out)


NORMALIZED = ("wait", "run", "procs", "req_procs", "mem", "req_mem", "req_time")


@pytest.mark.parametrize("column", NORMALIZED)
def test_conversion_normalizes_as_the_normalize_rule_on_every_real_log(real_archive, column):
    allowance = load_rules()["normalize"].params["allowance"].default
    seen = real_archive.df(f"SELECT DISTINCT {column} AS v FROM jobs").v.to_numpy(dtype=np.float64)
    # The values where the two could part, whether or not a real log has them.
    edges = np.array([-allowance - 1, -allowance - 0.5, -allowance, -allowance + 0.5, -3600, -2, -1,
                      -0.5, 0, 0.5, 1, 2**40])
    values = np.unique(np.r_[seen, edges])
    integer = next(f.integer for f in FIELDS if f.column == column)
    if integer:
        values = np.unique(values.astype(np.int64))
    frame = pd.DataFrame({"line_no": np.arange(len(values), dtype=np.int32),
                          **{c: np.ones(len(values), np.int64 if f.integer else np.float64)
                             for c, f in zip(COLUMNS, FIELDS)}})
    frame[column] = values
    sql = _rule_normalize(frame, allowance)[column].to_numpy(dtype=np.float64)
    python = np.array([_conversion_normalize(column, float(v)) for v in values])
    np.testing.assert_array_equal(sql, python)
    assert len(values) > len(edges) - 2  # the real values came along


def test_conversion_allowance_is_the_rule_default():
    assert load_rules()["normalize"].params["allowance"].default == CLOCK_ALLOWANCE == 3900


# -- defaults: one named constant, the rule header agreeing ----------------------------

def test_capacity_defaults_are_the_rule_header_defaults():
    params = load_rules()["capacity"].params
    signature = inspect.signature(capacity_choice.capacity_deletions).parameters
    assert params["threshold"].default == capacity_choice.THRESHOLD == signature["threshold"].default
    assert params["node_limit"].default == capacity_choice.NODE_LIMIT == signature["node_limit"].default
    assert params["size_limit"].default == capacity_choice.SIZE_LIMIT == signature["size_limit"].default
    assert params["slack"].default == signature["slack"].default == 0


def test_simulate_defaults_are_named_constants():
    assert SimSettings.default("tau") is simulate_module.TAU == 10.0
    assert SimSettings.default("warmup") is simulate_module.WARMUP == 0.01


def test_each_simulator_setting_is_declared_once():
    """simulate(), the reference's check, sweep grids and the command line
    read SimSettings; no other module restates a setting's default."""
    assert SimSettings().edit(policy="fcfs").policy == "fcfs"
    with pytest.raises(UsageError, match="not a setting of SimSettings: speed"):
        simulate_module.simulate(None, speed=2)
    for name in ("simulate.py", "reference.py", "esp.py"):
        source = (ROOT / "sim" / name).read_text()
        assert "tau: float = " not in source and "warmup: float = " not in source, name


# -- one writer, one set of plot helpers, one start-a-job step, one overrun ----------

def test_one_gzip_writer_gives_the_same_bytes_every_time(tmp_path):
    data = b"; Version: 2.2\n1 0 1 1 1 -1 -1 1 1 -1 1 1 1 1 1 1 -1 -1\n"
    write_bytes(tmp_path / "a.swf.GZ", data)
    write_bytes(tmp_path / "b.swf.gz", data)
    write_bytes(tmp_path / "c.swf", data)
    a, b = (tmp_path / "a.swf.GZ").read_bytes(), (tmp_path / "b.swf.gz").read_bytes()
    assert a == b and gzip.decompress(a) == data == (tmp_path / "c.swf").read_bytes()
    assert a[4:8] == b"\0\0\0\0" and not a[3] & 0x08  # mtime 0, no file name in the header
    writers = [p.name for p, text in _package_sources().items() if re.search(r"GzipFile\(|gzip\.open\(", text)
               and re.search(r"mode=\"wb\"|\"wb\"", text)]
    assert writers == ["output.py"]


def test_plots_are_saved_by_one_helper():
    savers = [p.name for p, text in _package_sources().items() if ".savefig(" in text]
    assert savers == ["plot.py"]
    axes = [p.name for p, text in _package_sources().items() if "ConciseDateFormatter(" in text]
    assert axes == ["plot.py"]


def test_the_cores_start_a_job_in_one_place():
    core = (PACKAGE / "sim" / "core.py").read_text()
    body = core[core.index("def simulate_core("):]
    assert body.count("_start(") == 2  # the head of the queue, a backfilled job
    assert core.count("_heap_push(eh_t") == 1 and "_heap_push(eh_t" not in body
    reference = (PACKAGE / "sim" / "reference.py").read_text()
    for step in ("_pass", "_shadow", "_start"):
        assert f"{step}" in body or f"def {step}(" in core, step  # marked with the reference's names
        assert f"def {step}(" in reference, step
    # conservative backfilling starts its jobs in one loop, and places each
    # job in the two ways the reference does (earliest fit; earlier in a compression)
    conservative = (PACKAGE / "sim" / "conservative.py").read_text()
    assert conservative.count("start[j] = now") == 1 and conservative.count("push(eh_t") == 1
    assert conservative.count("pr.earliest(") == 1 and conservative.count("pr.earlier(") == 1
    for name in ("def earliest(", "def room_before(", "def hold(", "def advance("):
        assert name in reference, name


def test_overrun_is_applied_once_per_simulation(monkeypatch):
    from wla.sim import reference, schedule

    calls = []
    real = reference.apply_overrun

    def counted(run, estimate, overrun):
        calls.append(overrun)
        return real(run, estimate, overrun)

    for module in (simulate_module, schedule, reference):
        monkeypatch.setattr(module, "apply_overrun", counted, raising=False)
    frame = pd.DataFrame({"submit": [0.0, 1.0, 2.0], "run": [5.0, 9.0, 3.0], "procs": [1, 2, 1],
                          "req_time": [4.0, 10.0, 3.0]})
    result = simulate_module.simulate(frame, procs=2, overrun="truncate")
    assert calls == ["truncate"]
    assert result.run.tolist() == [4.0, 9.0, 3.0]  # the first job cut at its estimate, once
