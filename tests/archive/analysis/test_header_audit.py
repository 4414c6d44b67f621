"""The header audit against the real logs (headers that are right, headers
that are wrong, checked with pandas and by hand) and against copies of a
real log with one header claim or job number altered."""
from __future__ import annotations

import gzip
import json
import re
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from cli_run import wla
from real_logs import data_dir, pandas_log
from wla.archive import open as open_archive
from wla.archive.analysis.header_audit import header_audit, mismatch_lines, verdict
from wla.archive.analysis.header_times import read_time, write_time
from wla.archive.clean.build import clean
from wla.archive.clean.recipe import parse_recipe
from wla.archive.store.ingest import ingest

AUDITED = {"maxjobs": "MaxJobs", "maxrecords": "MaxRecords", "unixstarttime": "UnixStartTime",
           "starttime": "StartTime", "endtime": "EndTime", "maxprocs": "MaxProcs", "maxruntime": "MaxRuntime",
           "maxmemory": "MaxMemory"}
KTH = "KTH-SP2-1996-2.1-cln"
LUBLIN = "lublin_256"


def header(name: str) -> dict[str, str]:
    """The file's first value of each label, read with a regular expression."""
    out: dict[str, str] = {}
    with gzip.open(data_dir() / f"{name}.swf.gz", "rt") as fh:
        for line in fh:
            m = re.match(r"^;\s*(\w+):\s*(.*?)\s*$", line)
            if m:
                out.setdefault(m.group(1), m.group(2))
    return out


def last_end(df) -> float:
    known = df.submit != -1
    return float((df.submit + df.wait.clip(lower=0) + df.run.clip(lower=0))[known].max())


# -- real logs whose header is right -------------------------------------------------------

RIGHT = ["SDSC-SP2-1998-4.2-cln", KTH, "HPC2N-2002-2.2-cln", "SDSC-BLUE-2000-4.2-cln", LUBLIN, "RICC-2010-2"]


@pytest.mark.parametrize("name", RIGHT)
def test_a_right_header_has_no_mismatch(real_archive, name):
    audit = header_audit(real_archive, name)
    assert mismatch_lines(audit) == [] and audit.ok.all()
    labels = {AUDITED[k.lower()] for k in header(name) if k.lower() in AUDITED}
    if "MaxProcs" not in labels and "MaxNodes" in header(name):
        labels.add("MaxNodes")  # the machine size then
    if "UnixStartTime" not in labels:
        labels -= {"StartTime", "EndTime"}  # nothing places them
    removal = "jobs removed" in gzip.open(data_dir() / f"{name}.swf.gz", "rt").read(20000)
    assert set(audit.label) == labels | {"job numbers"} | ({"Note"} if removal else set())


def test_the_notes_account_for_every_missing_number(real_archive):
    """SDSC-SP2: five filters removed 944 + 11740 + 635 + 452 + 10 jobs; their
    numbers are exactly the ones missing from 1 to MaxJobs."""
    df = pandas_log("SDSC-SP2-1998-4.2-cln")
    audit = header_audit(real_archive, "SDSC-SP2-1998-4.2-cln").set_index("label")
    missing = int(header("SDSC-SP2-1998-4.2-cln")["MaxJobs"]) - df.job.nunique()
    assert missing == 944 + 11740 + 635 + 452 + 10
    assert audit.loc["Note", "claim"] == f"{missing} jobs removed by 5 filters"
    assert audit.loc["Note", "data"] == f"{missing} job numbers missing up to the highest ({df.job.max()})"


def test_jobs_removed_after_the_last_kept_one_still_fit_maxjobs(real_archive):
    """OSC-Clust: the filter took the last two numbers too, so the highest is
    below MaxJobs; the header still agrees with its Note."""
    name = "OSC-Clust-2000-3.1-cln"
    df, max_jobs = pandas_log(name), int(header(name)["MaxJobs"])
    audit = header_audit(real_archive, name).set_index("label")
    assert df.job.max() < max_jobs == len(df) + 44617
    assert audit.loc["MaxJobs", "ok"] and audit.loc["Note", "ok"]
    within = df.job.max() - df.job.nunique()
    assert audit.loc["Note", "data"] == (f"{within} job numbers missing up to the highest ({df.job.max()}), "
                                         f"{within + max_jobs - df.job.max()} up to MaxJobs ({max_jobs})")


# -- real logs whose header is wrong -------------------------------------------------------


def test_a_file_cut_short_keeps_the_whole_logs_header(real_archive):
    """NASA-iPSC head228: the first 228 jobs under the header of all 42,264;
    and this original log's first job comes 10,000 s after UnixStartTime."""
    name = "NASA-iPSC-1993-3-head228"
    df, h = pandas_log(name), header(name)
    u, first, end = int(h["UnixStartTime"]), float(df.submit.min()), last_end(df)
    claimed_end = datetime(1993, 12, 31, 23, 3, 45, tzinfo=ZoneInfo("US/Pacific")).timestamp()  # PST, by hand
    pacific = ZoneInfo("US/Pacific")

    def local(t: float) -> str:
        return datetime.fromtimestamp(t, pacific).strftime("%a %b %d %H:%M:%S %Z %Y")

    assert mismatch_lines(header_audit(real_archive, name)) == [
        f"MaxJobs: 42264 claimed; {len(df)} jobs, highest job number {df.job.max()}: "
        f"{42264 - df.job.max()} more claimed than the highest job number",
        f"MaxRecords: 42264 claimed; {len(df)} job lines: {42264 - len(df)} more claimed",
        f"UnixStartTime: {u} claimed; first submit {first:g} s after it ({local(u + first)}): "
        f"job 1 submitted {first:g} s after it",
        f"EndTime: {h['EndTime']} claimed; the last job ends {local(u + end)}: "
        f"{claimed_end - u - end:.0f} s ({(claimed_end - u - end) / 86400:.1f} days) later claimed",
    ]


def test_an_older_cleaned_version_kept_the_original_record_count(real_archive):
    """CTC-SP2 3.1: MaxRecords is the original log's, before the 2080 removed jobs."""
    name = "CTC-SP2-1996-3.1-cln"
    df = pandas_log(name)
    claimed = int(header(name)["MaxRecords"])
    assert claimed - len(df) == 2080
    assert mismatch_lines(header_audit(real_archive, name)) == [
        f"MaxRecords: {claimed} claimed; {len(df)} job lines: {claimed - len(df)} more claimed, "
        "as many as the Notes say were removed"]


def test_gaps_no_note_explains(real_archive):
    """HPC2N head3170 (the original log): numbers missing with no Note."""
    name = "HPC2N-2002-2.2-head3170"
    df = pandas_log(name)
    numbers = np.sort(df.job.unique())
    below = np.concatenate([[0], numbers[:-1]])
    starts = (below + 1)[numbers - below > 1]
    ends = (numbers - 1)[numbers - below > 1]
    shown = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in zip(starts[:3], ends[:3]))
    missing = int(numbers[-1] - len(numbers))
    lines = mismatch_lines(header_audit(real_archive, name))
    assert lines[-1] == (f"job numbers: 1 to {numbers[-1]}, each once, in order claimed; {missing} missing in "
                         f"{len(starts)} gaps ({shown}, ...): {missing} missing without a Note")
    assert [line.split(":")[0] for line in lines] == ["MaxJobs", "MaxRecords", "EndTime", "job numbers"]


def test_a_written_offset_places_the_time(real_archive):
    """ANL-Intrepid writes `GMT-6`: StartTime agrees, EndTime is the full log's."""
    audit = header_audit(real_archive, "ANL-Intrepid-2009-1-head10").set_index("label")
    assert audit.loc["StartTime", "ok"] and not audit.loc["EndTime", "ok"]
    claimed = datetime(2009, 9, 1, 23, 42, 6, tzinfo=timezone.utc).timestamp() + 6 * 3600
    end = last_end(pandas_log("ANL-Intrepid-2009-1-head10"))
    off = claimed - (1231135224 + end)
    assert audit.loc["EndTime", "difference"] == f"{off:.0f} s ({off / 86400:.1f} days) later claimed"


# -- copies with one thing altered ----------------------------------------------------------


def _kth_lines() -> list[str]:
    with gzip.open(data_dir() / f"{KTH}.swf.gz", "rt") as fh:
        return fh.read().splitlines()


def _renumber(line: str, number: int) -> str:
    """A job line with another job number, in the same width."""
    m = re.match(r"^(\s*)(\d+)", line)
    width = len(m.group(0))
    return str(number).rjust(width) + line[width:]


def _swap_two_numbers(lines: list[str]) -> list[str]:
    jobs = [i for i, line in enumerate(lines) if line.strip() and not line.startswith(";")]
    a, b = jobs[99], jobs[100]
    na, nb = (int(lines[i].split()[0]) for i in (a, b))
    out = list(lines)
    out[a], out[b] = _renumber(lines[a], nb), _renumber(lines[b], na)
    return out


def _replace(old: str, new: str):
    def alter(lines: list[str]) -> list[str]:
        hits = [i for i, line in enumerate(lines) if line.startswith(";") and old in line]
        assert len(hits) == 1, old
        out = list(lines)
        out[hits[0]] = lines[hits[0]].replace(old, new)
        return out
    return alter


ALTERED = {
    "kth-maxjobs": _replace("MaxJobs: 28490", "MaxJobs: 28500"),
    "kth-maxprocs": _replace("MaxProcs: 100", "MaxProcs: 64"),
    "kth-unixstart": _replace("UnixStartTime: 843480031", "UnixStartTime: 843483631"),
    "kth-starttime": _replace("StartTime: Mon Sep 23 14:00:31", "StartTime: Mon Sep 23 15:00:31"),
    "kth-endtime": _replace("EndTime:   Fri Aug 29 10:55:01", "EndTime:   Fri Aug 22 10:55:01"),
    "kth-note": _replace("(14 jobs removed)", "(12 jobs removed)"),
    "kth-order": _swap_two_numbers,
}


@pytest.fixture(scope="module")
def altered(tmp_path_factory):
    """An archive of KTH as it is, of each altered copy, and of lublin_256
    with job 5 numbered 4 (ingested leniently: the line is set apart)."""
    folder = tmp_path_factory.mktemp("altered")
    lines = _kth_lines()
    files = [data_dir() / f"{KTH}.swf.gz"]
    for name, alter in ALTERED.items():
        files.append(folder / f"{name}.swf")
        files[-1].write_text("\n".join(alter(lines)) + "\n")
    with gzip.open(data_dir() / f"{LUBLIN}.swf.gz", "rt") as fh:
        lublin = fh.read().splitlines()
    fifth = next(i for i, line in enumerate(lublin) if not line.startswith(";") and line.split()[0] == "5")
    lublin[fifth] = _renumber(lublin[fifth], 4)
    (folder / "lublin-repeat.swf").write_text("\n".join(lublin) + "\n")
    path = folder / "a.duckdb"
    with open_archive(path, write=True) as a:
        results = ingest(a, files) + ingest(a, [folder / "lublin-repeat.swf"], lenient=True)
        assert [(r.status, r.rejects) for r in results] == [("ingested", 0)] * len(files) + [("ingested", 1)]
    return path


def _lines(path, name: str) -> list[str]:
    with open_archive(path) as a:
        return mismatch_lines(header_audit(a, name))


def test_the_unaltered_copy_agrees(altered):
    assert _lines(altered, KTH) == []


def test_an_altered_count(altered):
    assert _lines(altered, "kth-maxjobs") == [
        "MaxJobs: 28500 claimed; 28476 jobs, highest job number 28490, 28490 with the 14 the Notes say "
        "were removed: 10 more claimed than the highest job number"]
    used = int(pandas_log(KTH).procs.max())
    assert _lines(altered, "kth-maxprocs") == [
        f"MaxProcs: 64 claimed; jobs used up to {used} processors and requested up to "
        f"{int(pandas_log(KTH).req_procs.max())} processors: {used - 64} processors more used"]


def test_an_altered_time(altered):
    stockholm = ZoneInfo("Europe/Stockholm")
    start = datetime(1996, 9, 23, 14, 0, 31, tzinfo=stockholm)
    assert int(start.timestamp()) == 843480031  # the header's two claims agree, by hand
    end = datetime.fromtimestamp(843480031 + last_end(pandas_log(KTH)), stockholm)
    assert _lines(altered, "kth-starttime") == [
        "StartTime: Mon Sep 23 15:00:31 CEST 1996 claimed; submit 0 is Mon Sep 23 14:00:31 CEST 1996: "
        "3600 s later claimed"]
    early = (end - datetime(1997, 8, 22, 10, 55, 1, tzinfo=stockholm)).total_seconds()
    assert _lines(altered, "kth-endtime") == [
        f"EndTime: Fri Aug 22 10:55:01 CEST 1997 claimed; the last job ends "
        f"{end.strftime('%a %b %d %H:%M:%S %Z %Y')}: {early:.0f} s ({early / 86400:.1f} days) earlier claimed"]
    # StartTime and EndTime agree with the jobs: the one claim that is off is UnixStartTime
    assert _lines(altered, "kth-unixstart") == [
        "UnixStartTime: 843483631 claimed; StartTime and EndTime put submit 0 at 843480031: 3600 s later claimed"]


def test_an_altered_note(altered):
    df = pandas_log(KTH)
    missing = int(df.job.max() - df.job.nunique())
    assert _lines(altered, "kth-note") == [
        f"Note: 12 jobs removed claimed; {missing} job numbers missing up to the highest ({df.job.max()}): "
        f"{missing - 12} fewer claimed"]


def test_altered_job_numbers(altered):
    df = pandas_log(KTH)
    first_out = int(df.job.iloc[99])  # the lower of the swapped pair, now after the higher
    assert _lines(altered, "kth-order") == [
        f"job numbers: 1 to {df.job.max()}, each once, in order claimed; 14 missing in 1 gap (1-14); "
        f"1 out of order (first {first_out}): 1 out of order"]
    assert _lines(altered, "lublin-repeat") == [
        "job numbers: 1 to 10000, each once, in order claimed; 1 missing in 1 gap (5): 1 missing without a Note"]


def test_a_version_counts_its_own_dropped_jobs(altered, tmp_path):
    """A version's header is its log's, with wla's Notes of the jobs each
    step dropped: those numbers are missing too, and MaxRecords is stale."""
    recipe = f'log = "{KTH}"\nversion = "audit"\n[[step]]\nrule = "filter"\nwhere = "user=3"\nreason = "test"\n'
    with open_archive(altered, write=True) as a:
        clean(a, parse_recipe(recipe))
    df = pandas_log(KTH)
    dropped = int((df.user == 3).sum())
    assert dropped > 0
    assert _lines(altered, f"{KTH}@audit") == [
        f"MaxRecords: 28476 claimed; {len(df) - dropped} job lines: {dropped} more claimed, "
        "as many as wla's step Notes say were dropped (a version keeps its log's header)"]


def test_the_quality_command_shows_the_audit(altered):
    run = wla("quality", "kth-maxjobs", KTH, "--wide", archive=altered)  # each mismatch on one line
    assert run.status == 0, run.err
    tail = run.out.split("\n\nheader audit:\n")[1].split("\n\ndiagnosis:\n")[0].splitlines()
    assert tail == [f"{KTH}: the header agrees with the jobs (8 checks)",
                    "kth-maxjobs: 1 of 8 checks disagree", "  " + _lines(altered, "kth-maxjobs")[0]]
    rows = json.loads(wla("quality", "kth-maxjobs", "--json", archive=altered).out)
    assert rows[0]["jobs"] == 28476
    wrong = [r for r in rows[0]["header_audit"] if not r["ok"]]
    assert [(r["label"], r["line_no"], r["claim"]) for r in wrong] == [("MaxJobs", 8, "28500")]


# -- header times --------------------------------------------------------------------------


def test_header_times():
    stockholm = ZoneInfo("Europe/Stockholm")
    # 02:30 happens twice on 27 Oct 2002 in Stockholm: the abbreviation says which
    summer = datetime(2002, 10, 27, 2, 30, tzinfo=stockholm, fold=0).timestamp()
    assert read_time("Sun Oct 27 02:30:00 CEST 2002", "Europe/Stockholm").epoch == summer
    assert read_time("Sun Oct 27 02:30:00 CET 2002", "Europe/Stockholm").epoch == summer + 3600
    assert read_time("Mon Jan 5 00:00:24 GMT-6 2009", None) == (1231135224, True)
    assert read_time("Fri Apr 24 18:11:04 1998", None) == (
        datetime(1998, 4, 24, 18, 11, 4, tzinfo=timezone.utc).timestamp(), False)
    assert read_time("Feb 30 10:00:00 2001", None) is None and read_time("soon", "UTC") is None
    assert write_time(893466664, "US/Pacific") == "Fri Apr 24 18:11:04 PDT 1998"


def test_verdict_without_a_header(real_archive):
    assert verdict(header_audit(real_archive, "RICC-2010-2")) == \
        "no header claims to check; the job numbers are consecutive"
