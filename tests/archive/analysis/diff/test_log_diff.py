"""`wla diff A B`: any two logs or versions compared job by job, checked
against pandas reading the files, and on a third-party copy altered here."""
from __future__ import annotations

import gzip
import json
import re

import numpy as np
import pandas as pd
import pytest
from cli_run import wla
from real_logs import SWF_NAMES, data_dir, pandas_log
from wla.archive import open as open_archive
from wla.archive.analysis.diff import log_diff
from wla.archive.kernel.errors import LogNotFound
from wla.archive.store.ingest import ingest
from wla.archive.swf.fields import COLUMNS

NASA = ("NASA-iPSC-1993-3-head228", "NASA-iPSC-1993-3.1-cln")
PUBLISHED = "KTH-SP2-1996-2.1-cln"
COPY = "KTH-copy"
REPEATED = "KTH-copy-repeated"
COLUMN = dict(zip(SWF_NAMES, COLUMNS))


def expected(a: pd.DataFrame, b: pd.DataFrame):
    """Only in A, only in B and the changed values, computed by pandas alone:
    the i-th line of a job number in A against its i-th line in B."""
    a, b = a.rename(columns=COLUMN), b.rename(columns=COLUMN)
    a["occurrence"] = a.groupby("job").cumcount() + 1
    b["occurrence"] = b.groupby("job").cumcount() + 1
    m = a.merge(b, on=["job", "occurrence"], how="outer", suffixes=("_a", "_b"), indicator=True)
    only_a = m[m._merge == "left_only"]
    only_b = m[m._merge == "right_only"]
    both = m[m._merge == "both"]
    changes = []
    for c in COLUMNS[1:]:
        d = both[both[f"{c}_a"] != both[f"{c}_b"]]
        changes += [(int(j), int(o), c, float(x), float(y))
                    for j, o, x, y in zip(d.job, d.occurrence, d[f"{c}_a"], d[f"{c}_b"])]
    return (sorted(zip(only_a.job.astype(int), only_a.occurrence)),
            sorted(zip(only_b.job.astype(int), only_b.occurrence)), sorted(changes))


def got(diff):
    def occurrences(frame):
        return sorted(zip(frame.job.astype(int), frame.occurrence.astype(int)))
    changes = sorted((int(r.job), int(r.occurrence), r.field, float(r.value_a), float(r.value_b))
                     for r in diff.changed.itertuples())
    return occurrences(diff.only_a), occurrences(diff.only_b), changes


# -- an altered copy of a published log ------------------------------------------------------

def _job_lines(text: str) -> list[int]:
    lines = text.splitlines()
    return [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith(";")]


def _alter(tmp_path):
    """The published file with jobs dropped, fields changed and one job
    number written twice; what was done, by job number."""
    text = gzip.open(data_dir() / f"{PUBLISHED}.swf.gz", "rt").read()
    lines = text.splitlines()
    where = set(_job_lines(text))
    jobs = pandas_log(PUBLISHED)
    over = jobs[(jobs.run > jobs.req_time) & (jobs.req_time > 0)]
    dropped = set(over.job.iloc[[3, 40, 41, 42, 200, 300]].astype(int))
    # req_time set to the run time where the run equals no other field of the job
    plain = jobs[(jobs.req_time > jobs.run) & (jobs.run > 1)
                 & ~jobs.drop(columns=["run"]).eq(jobs.run, axis=0).any(axis=1)]
    lowered = dict(zip(plain.job.iloc[100:112].astype(int), plain.run.iloc[100:112]))
    unknown = {int(j): s for j, s in zip(jobs.job.iloc[[5000, 5001, 9000]], jobs.status.iloc[[5000, 5001, 9000]])}
    twice, lost = int(jobs.job.iloc[20000]), int(jobs.job.iloc[20010])  # `lost` written as `twice`
    out, line_of = [], {}
    for i, line in enumerate(lines):
        if i not in where:
            out.append(line)
            continue
        f = line.split()
        job = int(f[0])
        if job in dropped:
            continue
        if job in lowered:
            f[8] = f[3]
        if job in unknown:
            f[10] = "-1"
        if job == lost:
            f[0] = str(twice)
        out.append(" ".join(f))
        line_of[job] = len(out)
    path = tmp_path / "kth-copy.swf"
    path.write_text("\n".join(out) + "\n")
    return path, {"path": path, "dropped": dropped, "lowered": lowered, "unknown": unknown, "twice": twice,
                  "lost": lost, "line_of_lost": line_of[lost], "jobs": jobs}


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """An archive of the NASA pair, the published KTH log and an altered copy
    of it, twice: as a lenient ingest stores it (the second line of a job
    number rejected), and with that line a job, as a log holding a repeated
    job number has it."""
    root = tmp_path_factory.mktemp("diff")
    copy, done = _alter(root)
    path = root / "a.duckdb"
    with open_archive(path, write=True) as a:
        results = ingest(a, [data_dir() / f"{n}.swf.gz" for n in (*NASA, PUBLISHED)])
        results += ingest(a, [copy], name=COPY, lenient=True)
        again = root / "kth-copy-again.swf"  # other bytes: the archive takes no file twice
        again.write_text(copy.read_text() + "; the same copy again\n")
        results += ingest(a, [again], name=REPEATED, lenient=True)
        log_id = a.log_id(REPEATED)
        a.con.execute("INSERT INTO jobs SELECT ?, ?, ?, * EXCLUDE (log_id, line_no, job) FROM jobs "
                      "WHERE log_id = ? AND job = ?",
                      [log_id, done["line_of_lost"], done["twice"], a.log_id(PUBLISHED), done["lost"]])
        a.con.execute("DELETE FROM rejects WHERE log_id = ?", [log_id])
    assert [r.status for r in results] == ["ingested"] * 5, results
    assert [r.rejects for r in results] == [0, 0, 0, 1, 1]
    return path, done


def test_the_nasa_head_against_the_cleaned_log(small):
    path, _ = small
    a, b = (pandas_log(n) for n in NASA)
    with open_archive(path) as arc:
        diff = log_diff(arc, *NASA)
    assert got(diff) == expected(a, b)
    counts = diff.counts()
    assert (counts["jobs_a"], counts["jobs_b"]) == (len(a), len(b))
    assert counts["matched"] == len(set(a.job) & set(b.job))
    # the cleaning filter of 3.1 (user=3 and proc=1 and app=1) is what the summary says
    removed = a[~a.job.isin(b.job)]
    texts = [f.text for f in diff.findings if f.group == "only in A"]
    n = len(removed)
    for field, value in (("user_id", 3), ("procs", 1), ("app_id", 1)):
        assert (removed[{"user_id": "user", "app_id": "app"}.get(field, field)] == value).all()
        share = (a[{"user_id": "user", "app_id": "app"}.get(field, field)] == value).mean()
        assert f"{n} of {n} jobs only in A have {field} = {value} ({100 * share:.1f}% of A's jobs)" in texts
    shared = a.merge(b, on="job", suffixes=("_a", "_b"))
    queue = shared[shared.queue_a != shared.queue_b]
    assert (queue.queue_b == -1).all()
    said = {f.text for f in diff.findings if f.group == "changed queue_id"}
    assert f"{len(queue)} of {len(queue)} changes to queue_id: to -1 (unknown)" in said
    assert diff.field_changes() == {c: int((shared[f"{s}_a"] != shared[f"{s}_b"]).sum())
                                    for s, c in COLUMN.items() if c != "job"
                                    and (shared[f"{s}_a"] != shared[f"{s}_b"]).any()}


def test_a_rejected_line_is_counted_not_compared(small):
    path, done = small
    run = wla("diff", PUBLISHED, COPY, archive=path)
    assert "B has 1 line its lenient ingest rejected (not compared; they are in the table rejects)" in run.out
    n = len(done["dropped"]) + 1  # the line of `lost` was rejected: only in A too
    assert f"{n} only in A, 0 only in B" in run.out


def test_an_altered_copy_shows_exactly_what_was_done(small):
    path, done = small
    with open_archive(path) as arc:
        diff = log_diff(arc, PUBLISHED, REPEATED)
    jobs = done["jobs"]
    only_a, only_b, changes = got(diff)
    assert only_a == sorted([(j, 1) for j in done["dropped"]] + [(done["lost"], 1)])
    assert only_b == [(done["twice"], 2)]
    want = sorted([(j, 1, "req_time", float(jobs.req_time[jobs.job == j].iloc[0]), float(run))
                   for j, run in done["lowered"].items()]
                  + [(j, 1, "status", float(s), -1.0) for j, s in done["unknown"].items()])
    assert changes == want
    assert (diff.repeated_a, diff.repeated_b) == (0, 1)
    assert "matched by order of occurrence" in diff.matching()
    # the row only in B is the line written with the other job's number, from the copy
    [row] = diff.only_b.itertuples()
    lost = jobs[jobs.job == done["lost"]].iloc[0]
    assert (row.line_no, row.submit, row.run, row.user_id) == (done["line_of_lost"], lost.submit, lost.run, lost.user)
    dropped = jobs[jobs.job.isin(done["dropped"] | {done["lost"]})]
    over = int(((dropped.run > dropped.req_time) & (dropped.req_time > 0)).sum())
    share = ((jobs.run > jobs.req_time) & (jobs.req_time > 0)).mean()
    texts = {f.text for f in diff.findings}
    n = len(dropped)
    assert f"{over} of {n} jobs only in A have run > requested time ({100 * share:.1f}% of A's jobs)" in texts
    k = len(done["lowered"])
    assert f"{k} of {k} changes to req_time set it to the job's run in B" in texts
    assert any(t.startswith(f"{k} of {k} changes to req_time: lowered by ") for t in texts)
    s = len(done["unknown"])
    assert f"{s} of {s} changes to status: to -1 (unknown)" in texts
    assert f"{k + s} changes to 2 fields: req_time {k}, status {s}" in texts


def test_a_log_against_itself_is_the_same(small):
    path, _ = small
    with open_archive(path) as arc:
        diff = log_diff(arc, NASA[0], NASA[0])
        assert diff.same and diff.findings == [] and diff.matched == diff.jobs_a == 228
        with pytest.raises(LogNotFound, match="no log named 'nope'"):
            log_diff(arc, PUBLISHED, "nope")
        # the temporary tables are gone: a second diff on the same connection works alike
        assert got(log_diff(arc, PUBLISHED, COPY)) == got(log_diff(arc, PUBLISHED, COPY))
        assert not {t for (t,) in arc.rows("SELECT table_name FROM duckdb_tables() WHERE temporary")}


def test_every_statement_of_the_diffs_is_named_once_and_read():
    """schema/diff.sql: each `-- name:` starts one statement, and the diff
    package asks for each by its name (a statement no code reads is dead)."""
    from pathlib import Path

    from wla.archive.analysis import diff as package
    from wla.archive.analysis.diff.sql import statements
    from wla.schema import load_sql

    names = re.findall(r"^-- name: (\w+)$", load_sql("diff"), re.MULTILINE)
    assert len(names) == len(set(names)) == len(statements()) > 15
    assert all(";" not in text and text.strip() for text in statements().values())
    code = "".join(p.read_text() for p in Path(package.__file__).parent.glob("*.py"))
    assert [n for n in names if f'"{n}"' not in code] == []


def test_the_command_prints_counts_findings_and_rows(small):
    path, done = small
    run = wla("diff", PUBLISHED, REPEATED, "--limit", "2", archive=path)
    assert run.status == 0, run.err
    n = len(done["dropped"]) + 1
    assert "matched by job number; 0 job numbers occur more than once in A and 1 in B" in run.out
    assert f"{28476 - n:,} in both ({len(done['lowered']) + len(done['unknown'])} changed), {n} only in A, " \
           f"1 only in B" in run.out
    assert f"{n} jobs only in A:" in run.out and f"... {n - 2} more rows (--limit 0 shows all)" in run.out
    same = wla("diff", PUBLISHED, PUBLISHED, archive=path)
    assert same.out.rstrip().endswith("A and B hold the same jobs with the same values")
    assert wla("diff", PUBLISHED, "nope", archive=path).one_error_line().startswith("wla: no log named 'nope'")


def test_the_json_has_every_row_whatever_the_limit(small):
    path, done = small
    run = wla("diff", PUBLISHED, REPEATED, "--limit", "1", "--json", archive=path)
    assert run.status == 0, run.err
    shown = json.loads(run.out)
    copy = pd.read_csv(done["path"], sep=r"\s+", comment=";", header=None, names=SWF_NAMES)
    only_a, only_b, changes = expected(pandas_log(PUBLISHED), copy)
    assert (shown["a"], shown["b"]) == (PUBLISHED, REPEATED)
    assert sorted((r["job"], r["occurrence"]) for r in shown["only_a"]) == only_a
    assert sorted((r["job"], r["occurrence"]) for r in shown["only_b"]) == only_b == [(done["twice"], 2)]
    assert sorted((c["job"], c["occurrence"], c["field"], float(c["value_a"]), float(c["value_b"]))
                  for c in shown["changed"]) == changes
    assert shown["counts"] == {"jobs_a": 28476, "jobs_b": len(copy), "matched": len(copy) - 1,
                               "only_a": len(only_a), "only_b": 1,
                               "changed_jobs": len({(j, o) for j, o, *_ in changes}), "changes": len(changes),
                               "repeated_a": 0, "repeated_b": 1, "rejects_a": 0, "rejects_b": 0}
    assert set(shown["only_a"][0]) == {"line_no", "occurrence", *COLUMNS}
    # integer fields stay integers in JSON, times stay numbers
    status = [c for c in shown["changed"] if c["field"] == "status"]
    assert status and all(isinstance(c["value_b"], int) for c in status)
    assert all(set(f) == {"group", "text", "count", "of"} for f in shown["findings"])


def test_three_arguments_still_compare_versions_by_rule(small):
    path, _ = small
    run = wla("diff", PUBLISHED, "original", "original", archive=path)
    assert run.status == 0 and "hold the same jobs with the same values" in run.out


# -- the real pairs: published versions and the heads of original logs ---------------

PAIRS = [("HPC2N-2002-2.1-cln", "HPC2N-2002-2.2-cln"), ("SDSC-BLUE-2000-4.1-cln", "SDSC-BLUE-2000-4.2-cln"),
         ("HPC2N-2002-2.2-head3170", "HPC2N-2002-2.2-cln")]


@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_real_pairs_match_pandas(real_archive, pair):
    a, b = (pandas_log(n) for n in pair)
    diff = log_diff(real_archive, *pair)
    assert got(diff) == expected(a, b)
    assert (diff.jobs_a, diff.jobs_b) == (len(a), len(b))
    removed = a[~a.job.isin(b.job)]
    first = np.arange(1, len(removed) + 1)
    if pair[0].endswith("-cln"):  # 2.2 and 4.2 removed the log's first jobs (job<=10, job<=8)
        assert diff.only_b.empty and diff.changed.empty
        assert (a.index[~a.job.isin(b.job)] == first - 1).all()
        n, lo, hi = len(removed), int(removed.job.min()), int(removed.job.max())
        assert f"{n} of {n} jobs only in A have job numbers {lo} to {hi}: the first {n} jobs of A" in \
            [f.text for f in diff.findings]


@pytest.mark.slow
def test_the_head_of_hpc2n_against_its_cleaned_log(real_archive):
    """2.2-cln filled unknown run times from the CPU time and set allocated
    processors to the requested ones where more were allocated."""
    head, cln = pandas_log("HPC2N-2002-2.2-head3170"), pandas_log("HPC2N-2002-2.2-cln")
    diff = log_diff(real_archive, "HPC2N-2002-2.2-head3170", "HPC2N-2002-2.2-cln")
    m = head.merge(cln, on="job", suffixes=("_a", "_b"))
    run, procs = m[m.run_a != m.run_b], m[m.procs_a != m.procs_b]
    assert (run.run_a == -1).all() and (run.run_b == run.cpu_b).all()
    assert (procs.procs_a > procs.req_procs_a).all() and (procs.procs_b == procs.req_procs_b).all()
    texts = {f.text for f in diff.findings}
    r, p = len(run), len(procs)
    assert f"{r} of {r} changes to run: from -1 (unknown) to a known value" in texts
    assert f"{r} of {r} changes to run set it to the job's cpu in B" in texts
    assert f"{p} of {p} changes to procs set it to the job's req_procs in B" in texts
    share = ((head.procs > head.req_procs) & (head.req_procs > 0)).mean()
    assert f"{p} of {p} jobs whose procs changed have more processors than requested " \
           f"({100 * share:.1f}% of A's jobs)" in texts
