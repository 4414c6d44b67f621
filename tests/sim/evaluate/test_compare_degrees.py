"""`wla compare --degrees`: the shaking paper's Table II (the butterfly
effect) as one command. Its columns are recomputed from single simulations
and from each degree's own comparison; the whole reproduction on SDSC SP2
(slow) gives the numbers docs/pages/reproductions/butterfly.md shows."""
from __future__ import annotations

import json

import numpy as np
import pytest
from cli_run import wla
from real_logs import ROOT, data_dir
from wla.archive import open as open_archive
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import read_recipe
from wla.archive.kernel.errors import OptionError, ParameterError
from wla.archive.store.ingest import ingest
from wla.sim import simulate
from wla.sim.evaluate.compare import Configuration, compare
from wla.sim.evaluate.compare_degrees import compare_degrees, gap_pct, parse_degrees
from wla.sim.workload import from_archive

LOG = "SDSC-SP2-1998-4.2-cln"
PAGE = ROOT / "docs" / "pages" / "reproductions" / "butterfly.md"


def test_the_gap_is_a_percent_of_a():
    """The paper's first column: 88.15 without the cut, 81.38 with it: 6.77 is
    7.68% of 88.15 (A = the log) and 8.32% of 81.38 (the paper's 8.31%)."""
    assert gap_pct(88.15, 81.38) == pytest.approx(6.77 / 88.15 * 100)
    assert gap_pct(81.38, 88.15) == pytest.approx(8.3190, abs=1e-4)
    assert gap_pct(86.82, 86.62) == pytest.approx(0.2304, abs=1e-4)
    assert gap_pct(0.0, 1.0) is None and gap_pct(None, 1.0) is None and gap_pct(1.0, float("nan")) is None


def test_degrees_are_read_from_a_list_and_checked():
    assert parse_degrees("60,300,900") == [60.0, 300.0, 900.0]
    assert parse_degrees(" 0.5 ") == [0.5]
    for text, what in (("60;300", "comma-separated"), ("60,,900", "comma-separated"), ("", "comma-separated"),
                       ("-1", "not -1"), ("nan", "not nan"), ("inf", "not inf"), (",".join(["1"] * 101), "101")):
        with pytest.raises(OptionError, match=what):
            parse_degrees(text)


@pytest.fixture(scope="module")
def sp2_trunc(tmp_path_factory):
    """SDSC SP2 and its version with job 64241's run cut to its request."""
    path = tmp_path_factory.mktemp("butterfly") / "a.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [data_dir() / f"{LOG}.swf.gz"])
        clean(a, read_recipe(ROOT / "schema" / "recipes" / f"{LOG}-trunc.toml"))
    return path


def test_the_columns_are_the_single_runs_then_each_degree_s_comparison(sp2_trunc):
    with open_archive(sp2_trunc) as a:
        wa, wb = from_archive(a, LOG), from_archive(a, LOG, "trunc")
    sim = {"overrun": "keep"}
    a, b = Configuration("A", wa, sim), Configuration("B", wb, sim)
    result = compare_degrees(a, b, [60, 900], runs=3, workers=1)
    single = [simulate(w, overrun="keep").metrics["bounded_slowdown"]["mean"] for w in (wa, wb)]
    first, *shaken = result.columns()
    assert (first["degree"], first["a"], first["b"]) == (None, *single)
    assert first["gap_pct"] == abs(single[1] - single[0]) / single[0] * 100
    assert [c["degree"] for c in shaken] == [60.0, 900.0]
    for column, degree in zip(shaken, (60, 900)):
        alone = compare(a, b, runs=3, workers=1, degree=degree)
        runs = alone.runs
        assert column["a"] == pytest.approx(np.mean(runs["bounded_slowdown_mean_a"][1:]), rel=1e-12)
        assert column["b"] == pytest.approx(np.mean(runs["bounded_slowdown_mean_b"][1:]), rel=1e-12)
        assert column["difference"] == alone.metrics["bounded_slowdown_mean"]["difference"]
    # the stored runs: one row per run and degree
    assert result.runs["degree"].tolist() == [60.0] * 4 + [900.0] * 4
    with pytest.raises(ParameterError, match="metric"):
        compare_degrees(a, b, [60], runs=1, metric="slowness")


def test_the_command_prints_table_ii_for_a_few_runs(sp2_trunc):
    args = ("compare", LOG, "--b", "version=trunc", "--overrun", "keep", "--degrees", "60,300,900", "--runs", "2",
            "--workers", "1")
    r = wla(*args, "--json", archive=sp2_trunc)
    assert r.status == 0, r.err
    data = json.loads(r.out)
    assert data["metric"] == "bounded_slowdown_mean" and data["settings"]["degrees"] == [60.0, 300.0, 900.0]
    assert [c["degree"] for c in data["columns"]] == [None, 60.0, 300.0, 900.0]
    assert [p["settings"]["shaking"]["degree"] for p in data["per_degree"]] == [60.0, 300.0, 900.0]
    assert data["configurations"][1]["source"]["log"] == f"{LOG}@trunc"
    text = wla(*args, archive=sp2_trunc)
    assert text.status == 0, text.err
    lines = text.out.splitlines()
    assert lines[0].endswith("overrun keep)") and lines[1].startswith("B: version=trunc")
    row = next(ln for ln in lines if ln.startswith("A "))
    assert row.split()[1] == f"{data['columns'][0]['a']:,.2f}"
    bad = wla("compare", LOG, "--b", "version=trunc", "--degrees", "60;300", archive=sp2_trunc)
    assert bad.status != 0 and "--degrees" in bad.err and len(bad.err.strip().splitlines()) == 1


@pytest.mark.slow  # 600 simulations of SDSC SP2: a minute on two cores
def test_the_whole_reproduction_gives_the_numbers_of_its_page(sp2_trunc):
    r = wla("compare", LOG, "--b", "version=trunc", "--overrun", "keep", "--degrees", "60,300,900", "--json",
            archive=sp2_trunc)
    assert r.status == 0, r.err
    columns = json.loads(r.out)["columns"]
    page = PAGE.read_text(encoding="utf-8")
    for side in ("a", "b"):
        assert f"| wla, {'w/o' if side == 'a' else 'with'} the cut | " + " | ".join(
            f"{c[side]:.2f}" for c in columns) + " |" in page
    assert "| wla, abs diff | " + " | ".join(f"{c['gap_pct']:.2f}%" for c in columns) + " |" in page
    assert all(not c["difference"]["survives"] for c in columns[1:])
