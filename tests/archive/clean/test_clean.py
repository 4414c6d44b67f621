"""Recipes on a real log: every step's effect checked against pandas, then
versions, diff, why, publishing and provenance."""
from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from cli_run import wla as cli
from prov.model import ProvDocument
from real_logs import data_dir
from wla.archive import LogExists
from wla.archive import open as open_archive
from wla.archive.analysis.diff import rule_diff
from wla.archive.analysis.quality import quality
from wla.archive.clean.build import clean
from wla.archive.clean.provenance import provenance_json
from wla.archive.clean.publish import publish
from wla.archive.clean.recipe import parse_recipe
from wla.archive.clean.versions import versions, why
from wla.archive.kernel.errors import InvalidName
from wla.archive.store.ingest import ingest
from wla.archive.store.select import log_query
from wla.archive.swf.fields import COLUMNS
from wla.archive.swf.reader import read_swf

LOG = "SDSC-SP2-1998-4.2-cln"
FLURRY = "user=24 and job>=10288 and job<=11646"
RECIPE = f"""\
log = "{LOG}"
version = "v1"

[[step]]
rule = "normalize"

[[step]]
rule = "recover"

[[step]]
rule = "filter"
where = "{FLURRY}"
reason = "flurry of user 24 in week 16"

[[step]]
rule = "status"
statuses = [5]
"""


def _expected(raw: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """The recipe done by hand in pandas: the kept jobs and each step's
    count of changed (or dropped) jobs."""
    df = raw.copy()
    counts = {}
    before = df.copy()
    for c in ("wait", "run"):
        neg = (df[c] < 0) & (df[c] != -1)
        df.loc[neg & (df[c] < -3900), c] = -1
        df.loc[neg & (df[c] >= -3900), c] = 0
    for c in ("procs", "req_procs", "mem", "req_mem", "req_time"):
        df.loc[df[c] == 0, c] = -1
    counts["normalize"] = int((df[list(COLUMNS)] != before[list(COLUMNS)]).any(axis=1).sum())
    before = df.copy()
    run_gap = (df.run == -1) & (df.cpu > 0)
    procs_gap = (df.procs == -1) & (df.req_procs > 0)
    req_gap = (df.req_procs == -1) & (df.procs > 0)
    df.loc[run_gap, "run"] = df.loc[run_gap, "cpu"]
    df.loc[procs_gap, "procs"] = df.loc[procs_gap, "req_procs"]
    df.loc[req_gap, "req_procs"] = df.loc[req_gap, "procs"]
    counts["recover"] = int((df[list(COLUMNS)] != before[list(COLUMNS)]).any(axis=1).sum())
    flurry = (df.user_id == 24) & (df.job >= 10288) & (df.job <= 11646)
    counts["filter"] = int(flurry.sum())
    df = df[~flurry]
    canceled = df.status == 5
    counts["status"] = int(canceled.sum())
    return df[~canceled], counts


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("clean")
    (tmp / "r.toml").write_text(RECIPE)
    with open_archive(tmp / "a.duckdb", write=True) as a:
        ingest(a, [data_dir() / f"{LOG}.swf.gz", data_dir() / "LANL-CM5-1994-4.1-cln.swf.gz"])
        result = clean(a, tmp / "r.toml")
    return tmp, result


def _frame(a, name: str) -> pd.DataFrame:
    return a.df(log_query(a, name)).reset_index(drop=True)


def test_each_step_does_what_pandas_does(built):
    tmp, result = built
    with open_archive(tmp / "a.duckdb") as a:
        raw = _frame(a, LOG)
        got = _frame(a, f"{LOG}@v1")
    want, counts = _expected(raw)
    assert [s.rule for s in result.steps] == ["normalize", "recover", "filter", "status"]
    for s in result.steps:
        assert (s.changed if s.rule in ("normalize", "recover") else s.dropped) == counts[s.rule], s.rule
    assert counts["recover"] > 1000 and counts["filter"] == 845 and counts["status"] > 1000
    pd.testing.assert_frame_equal(got, want.reset_index(drop=True), check_dtype=False)
    assert result.jobs == len(want)


def test_the_version_is_a_chain_of_views_equal_to_its_jobs(built):
    tmp, result = built
    with open_archive(tmp / "a.duckdb") as a:
        stored = _frame(a, f"{LOG}@v1")
        view = a.df(f'SELECT * FROM "{LOG}@v1" ORDER BY line_no').reset_index(drop=True)
        pd.testing.assert_frame_equal(view[stored.columns], stored, check_dtype=False)
        for s in result.steps:
            n = a.df(f'SELECT count(*) AS n FROM "{s.view}"').n[0]
            assert n == s.jobs_in - s.dropped
        assert a.df("SELECT view_name FROM steps ORDER BY step").view_name.tolist() == \
            [f"{LOG}@v1/1-normalize", f"{LOG}@v1/2-recover", f"{LOG}@v1/3-filter", f"{LOG}@v1/4-status"]


def test_building_twice_gives_identical_jobs_and_decisions(built, tmp_path):
    tmp, _ = built
    path = tmp_path / "b.duckdb"
    with open_archive(path, write=True) as a:
        ingest(a, [data_dir() / f"{LOG}.swf.gz"])
        first = clean(a, parse_recipe(RECIPE))
        jobs1 = _frame(a, f"{LOG}@v1")
        dec1 = a.df("SELECT * EXCLUDE (version_id) FROM decisions ORDER BY step, line_no, field")
        second = clean(a, parse_recipe(RECIPE))
        jobs2 = _frame(a, f"{LOG}@v1")
        dec2 = a.df("SELECT * EXCLUDE (version_id) FROM decisions ORDER BY step, line_no, field")
    assert (first.status, second.status) == ("built", "rebuilt")
    assert first.recipe_hash == second.recipe_hash
    pd.testing.assert_frame_equal(jobs1, jobs2)
    pd.testing.assert_frame_equal(dec1, dec2)


def test_decisions_say_why_with_old_and_new_values(built):
    tmp, _ = built
    with open_archive(tmp / "a.duckdb") as a:
        raw = _frame(a, LOG).set_index("line_no")
        d = a.df("SELECT * FROM decisions")
        counts = a.df("SELECT rule, action, count(*) AS n FROM decisions GROUP BY ALL ORDER BY ALL")
    assert set(zip(counts.rule, counts.action)) <= {
        ("normalize", "modify"), ("recover", "recover"), ("filter", "drop"), ("status", "drop")}
    assert (d.reason.str.len() > 10).all()
    assert set(d[d.rule == "filter"].reason) == {"flurry of user 24 in week 16"}
    modified = d[d.action != "drop"]
    # old values are the input of the step: for the first step, the raw log's.
    first = modified[modified.step == 1]
    for row in first.itertuples():
        assert raw.loc[row.line_no, row.field] == row.old_value
    assert (modified.old_value != modified.new_value).all()


def test_diff_between_versions_matches_the_jobs(built, tmp_path):
    tmp, _ = built
    (tmp_path / "r2.toml").write_text(RECIPE.replace('version = "v1"', 'version = "v2"')
                                      .replace("statuses = [5]", "statuses = [0]"))
    with open_archive(tmp / "a.duckdb", write=True) as a:
        clean(a, tmp_path / "r2.toml")
        v1 = _frame(a, f"{LOG}@v1").set_index("line_no")
        v2 = _frame(a, f"{LOG}@v2").set_index("line_no")
        summary, detail = rule_diff(a, LOG, "v1", "v2")
        listed = versions(a, LOG)
    only1, only2 = set(v1.index) - set(v2.index), set(v2.index) - set(v1.index)
    assert set(detail[detail.change == "dropped in v2"].line_no) == only1
    assert set(detail[detail.change == "dropped in v1"].line_no) == only2
    got = dict(zip(zip(summary.change, summary.rule), summary.jobs))
    want = {("dropped in v2", "status"): len(only1), ("dropped in v1", "status"): len(only2)}
    assert got == {k: n for k, n in want.items() if n} and len(only1) + len(only2) > 1000
    assert listed.version.tolist() == ["v1", "v2"]


def test_why_shows_every_decision_on_a_job(built):
    tmp, _ = built
    with open_archive(tmp / "a.duckdb") as a:
        d = a.df("SELECT line_no, job FROM decisions WHERE rule = 'recover' AND line_no IN "
                  "(SELECT line_no FROM decisions WHERE rule = 'status') LIMIT 1")
        job = int(d.job[0])
        decisions, kept = why(a, LOG, job, "v1")
    assert decisions.rule.tolist()[-1] == "status"
    assert "recover" in decisions.rule.tolist()
    assert kept.kept.tolist() == [False]


def test_publish_is_byte_identical_self_documenting_and_immutable(built, tmp_path):
    tmp, result = built
    with open_archive(tmp / "a.duckdb", write=True) as a:
        p1 = publish(a, LOG, "v1", tmp_path / "one.swf.gz")
        p2 = publish(a, LOG, "v1", tmp_path / "two.swf.gz")
        original_header = a.df("SELECT text FROM header_lines WHERE log_id = 1 ORDER BY seq").text.tolist()
        version = _frame(a, f"{LOG}@v1")
        # The same recipe again is nothing to do; a different one is refused.
        assert clean(a, parse_recipe(RECIPE)).status == "unchanged"
        with pytest.raises(LogExists, match="published"):
            clean(a, parse_recipe(RECIPE.replace("statuses = [5]", "statuses = [5, 0]")))
    one, two = (tmp_path / "one.swf.gz").read_bytes(), (tmp_path / "two.swf.gz").read_bytes()
    assert one == two and p1.first and not p2.first and p1.sha256 == p2.sha256
    lines = gzip.decompress(one).decode().splitlines()
    comments = [ln for ln in lines if ln.startswith(";")]
    assert comments[:len(original_header)] == original_header
    notes = comments[len(original_header):]
    assert notes[0].startswith(f"; Note: Cleaned version v1 of {LOG}") and result.recipe_hash in notes[0]
    for s, note in zip(result.steps, notes[1:]):
        assert f"rule {s.rule} version {s.rule_version} (fingerprint {s.fingerprint})" in note
        assert note.endswith(f"{s.dropped} jobs dropped, {s.changed} changed")
    # Read back by an independent path, the file holds the version's jobs, original numbers kept.
    parsed = read_swf(tmp_path / "one.swf.gz")
    for c in COLUMNS:
        assert np.array_equal(parsed.columns[c], version[c].to_numpy()), c


def test_a_version_is_a_log_for_every_command(built, tmp_path):
    tmp, _ = built
    (tmp_path / "r3.toml").write_text(f'log = "{LOG}@v1"\nversion = "v3"\n\n[[step]]\nrule = "trim"\n'
                                      'before = "1998-06-01"\n')
    with open_archive(tmp / "a.duckdb", write=True) as a:
        q = quality(a, [f"{LOG}@v1"])
        res = clean(a, tmp_path / "r3.toml")
        v1 = _frame(a, f"{LOG}@v1")
        v3 = _frame(a, f"{LOG}@v3")
        decisions, kept = why(a, LOG, int(v1.job[0]), "v3")
        typed = a.df(f"SELECT count(*) AS n FROM typed_jobs WHERE log = '{LOG}@v3'").n[0]
    assert q.jobs[0] == len(v1) and q.zero_procs[0] == 0
    unix = 893466664  # UnixStartTime of SDSC-SP2; 1998-06-01 in its zone (US/Pacific, PDT)
    cut = pd.Timestamp("1998-06-01", tz="America/Los_Angeles").timestamp() - unix
    assert res.jobs == typed == int((v1.submit >= cut).sum())
    assert len(v3) == res.jobs
    # why on v3 sees the decisions of v1 it was built from, then its own.
    assert decisions.version.tolist()[-1] == f"{LOG}@v3" and kept.kept.tolist() == [False]


def test_provenance_is_valid_prov_json(built):
    tmp, result = built
    with open_archive(tmp / "a.duckdb") as a:
        text = provenance_json(a, LOG, "v1")
    doc = ProvDocument.deserialize(content=text, format="json")
    ids = {str(r.identifier) for r in doc.get_records() if r.identifier is not None}
    assert f"log:{LOG}" in ids and f"log:{LOG}%40v1" in ids
    for s in result.steps:
        assert f"rule:{s.rule}%2F{s.rule_version}" in ids
    kinds = {type(r).__name__ for r in doc.get_records()}
    assert {"ProvEntity", "ProvActivity", "ProvAgent", "ProvUsage", "ProvGeneration",
            "ProvDerivation", "ProvAssociation"} <= kinds
    plans = [r for r in doc.get_records() if type(r).__name__ == "ProvAssociation"]
    assert len(plans) == len(result.steps) + 1  # each rule, and the recipe


def test_cli_clean_why_and_errors(built, tmp_path):
    tmp, _ = built
    (tmp_path / "r4.toml").write_text(RECIPE.replace('version = "v1"', 'version = "v4"'))
    archive = tmp / "a.duckdb"
    out = cli("clean", tmp_path / "r4.toml", archive=archive)
    assert out.status == 0, out.err
    assert "step 3: filter v1" in out.out and f"built {LOG}@v4" in out.out
    out = cli("why", LOG, "10288", "--version", "v4", archive=archive)
    assert out.status == 0 and f"{LOG}@v4: job 10288" in out.out
    (tmp_path / "bad.toml").write_text(RECIPE.replace(FLURRY, "usr=24"))
    out = cli("clean", tmp_path / "bad.toml", archive=archive)
    assert out.out == "" and "unknown field 'usr'" in out.one_error_line()


def test_a_log_with_versions_cannot_be_replaced(built, tmp_path):
    tmp, _ = built
    other = tmp_path / f"{LOG}.swf"
    other.write_text("1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n")
    with open_archive(tmp / "a.duckdb", write=True) as a:
        res = ingest(a, [other], replace=True)
        assert res[0].status == "failed" and "has cleaned versions" in res[0].message
        # A version's name cannot even be asked for: '@' is not in log names.
        with pytest.raises(InvalidName, match="holds '@'"):
            ingest(a, [other], name=f"{LOG}@v1", replace=True)
        assert a.df(f"SELECT jobs FROM logs WHERE name = '{LOG}'").jobs[0] == 59715
