"""Each report as text for the terminal, from the data its command returns
(the same data --json prints)."""
from __future__ import annotations

import json
from typing import Any

from wla.archive.kernel.clock import DAY
from wla.archive.kernel.names import for_shell
from wla.archive.kernel.units import count, human
from wla.sim.settings import SimSettings

from . import quantities
from .quantities import labelled
from .render import cell, frame_text, grid, percent_columns

# quality's counts under names that fit a terminal
SHORT = {
    "missing_submit": "no_submit", "missing_start": "no_start", "missing_run": "no_run",
    "negative_wait": "neg_wait", "negative_run": "neg_run",
    "run_over_requested": "run>req", "procs_over_requested": "procs>req",
    "mem_over_requested": "mem>req", "cpu_over_run": "cpu>run",
}


def _pct(x) -> str:
    import pandas as pd

    return "-" if x is None or pd.isna(x) else f"{x:.1%}"


def _day(value) -> str:
    import pandas as pd

    return "unknown" if value is None or pd.isna(value) else str(pd.Timestamp(value).date())


# -- the archive ---------------------------------------------------------------------------


def table(frame) -> str:
    return frame_text(frame)


def ingest(results: list, seconds: float) -> str:
    """The line that ends `wla ingest`: what went in, how fast, what did not."""
    done = [r for r in results if r.status in ("ingested", "replaced")]
    line = f"{count(len(done), 'log')}, {count(sum(r.jobs for r in done), 'job')} in {seconds:.2f} s"
    rejects = sum(r.rejects for r in done)
    if rejects:
        line += f"; {count(rejects, 'bad line')} kept in rejects"
    for status, said in (("unchanged", "unchanged"), ("failed", "failed")):
        n = sum(r.status == status for r in results)
        if n:
            line += f"; {n} {said}"
    return line


def catalog(listing) -> str:
    """The catalog as a table: each original, its versions indented beneath it
    (their names say the version); then which originals were converted
    from accounting records, and from which. Plain Python over the rows, so
    that `wla ls` needs no pandas."""
    from wla.archive.store.listing import KIND_COLUMNS  # said by the indent, not shown

    rows = listing.to_dict()
    names = [("  " if r["kind"] == "version" else "") + r["name"] for r in rows]
    width = max(map(len, [*names, "name"]))  # left-aligned, so the indent shows
    keys = [c for c in listing.columns if c not in KIND_COLUMNS and c != "name"]
    cells = [[name.ljust(width)] + [_cell(c, r[c]) for c in keys] for name, r in zip(names, rows)]
    lines = [_plain_table(["name".ljust(width)] + [_HEADS.get(c, c) for c in keys], cells)]
    converted = [r for r in rows if r["kind"] == "original" and r["converted_from"] is not None]
    if converted:
        lines.append("")
        lines += [f"{r['name']}: converted by wla convert from {r['converted_from']}" for r in converted]
    return "\n".join(lines)


# The catalog's columns as the text heads them, so that its table fits 100 columns.
_HEADS = {"first_submit_date": "first submit", "last_submit_date": "last submit", "machine_size": "procs"}


def _cell(column: str, value) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    if column == "utilization":
        return f"{value:.1%}"
    return str(value)


def _plain_table(columns: list[str], cells: list[list[str]]) -> str:
    """Columns right-aligned to their widest cell, one space apart (as
    render.frame_text writes a table), the names left-aligned."""
    return grid(columns, cells, left=(0,))


def info(data: dict) -> str:
    import pandas as pd

    row, summary, header = data["log"], data["summary"], data["header"]
    lines = [f"{row['name']}  (from {row['file_name']}, {row['file_size']:,} bytes, "
             f"sha256 {row['sha256']}, ingested {row['ingested_at']})", ""]
    lines += list(header["text"]) if not header.empty else ["(no header lines)"]
    lines.append("")
    size = row["machine_size"]
    facts = {
        "jobs": f"{row['jobs']:,}",
        "rejected lines": f"{row['rejects']:,}",
        "machine size": (f"{int(size)} ({row['machine_size_source']})" if pd.notna(size)
                         else "unknown: set it with `wla set LOG max-procs N`"),
        "time zone": row["tz"] if row["tz"] else "unknown (UTC used)",
        "first submit": _day(summary["first_submit_date"]),
        "last submit": _day(summary["last_submit_date"]),
        "months": summary["months"],
        "users": summary["users"],
        "utilization": (f"{summary['utilization']:.1%}" if pd.notna(summary["utilization"])
                        else "unknown"),
    }
    width = max(map(len, facts))
    lines += [f"{k:>{width}}: {v}" for k, v in facts.items()]
    if "known_issues" in data:
        lines += ["", *issue_lines(data["known_issues"])]
    return "\n".join(lines)


def issue_lines(issues: list[dict]) -> list[str]:
    """A log's known issues, one each (wrapped): where it comes from, its topic, what is known."""
    if not issues:
        return ["known issues: none that wla knows of (`wla note LOG \"...\"` keeps yours)"]
    lines = [f"known issues ({len(issues)}):"]
    for i in issues:
        where = f"paper §{i['section']}" if i["source"] == "paper" else f"your note of {i['noted_on']}"
        said = f"{where}, {i['topic']}: {i['text']}" if i["topic"] else f"{where}: {i['text']}"
        lines += _wrapped(f"  {said}", "    ")
    return lines


def known_issues_of(data: dict) -> str:
    """`wla note LOG`: the log's known issues, the user's notes among them."""
    return "\n".join([data["log"], *issue_lines(data["known_issues"])])


def quality(frame) -> str:
    from wla.archive.analysis.quality import COUNTS

    counts = frame[["name", "jobs", *COUNTS]].rename(columns=SHORT)
    usage = frame[["name", "first_submit_date", "last_submit_date", "users", "machine_size",
                   "utilization", "exceptions", "worst_excess", "ceiling", "ceiling_share",
                   "flurry_weeks", "large_flurry_weeks", "dominant_users"]].rename(
        columns={"flurry_weeks": "flurries", "large_flurry_weeks": "large", "dominant_users": "dominant"})
    tables = frame_text(counts) + "\n\n" + frame_text(percent_columns(usage, ["utilization", "ceiling_share"]))
    tables += "\n\n" + dependencies(frame)
    tables += "\n\n" + figure_counts(frame)
    if "header_audit" in frame:
        tables += "\n\n" + header_audits(frame)
    if "diagnosis" in frame:
        tables += "\n\n" + diagnoses(frame)
    return tables + "\n\n" + known_issues(frame) if "known_issues" in frame else tables


def dependencies(frame) -> str:
    """The jobs with a preceding job (field 17) and their think times (field
    18, in seconds: least, quartiles, 90th percentile, greatest), a table of
    the logs that have some; one line for each log that has none."""
    from wla.archive.analysis.quality import THINK

    has = frame["with_predecessor"] > 0
    lines = ["dependencies (fields 17 and 18; think times in seconds):"]
    if has.any():
        table = frame.loc[has, ["name", "with_predecessor", "predecessor_share", "predecessor_missing", *THINK]]
        table = percent_columns(table, ["predecessor_share"])
        for c in THINK:
            table[c] = [_seconds(v) for v in table[c]]
        lines.append(frame_text(table.rename(columns={
            "with_predecessor": "with_pred", "predecessor_share": "share", "predecessor_missing": "not_in_log",
            **{c: c.removeprefix("think_") for c in THINK}})))
    lines += [f"{name}: no job has a preceding job" for name in frame.loc[~has, "name"]]
    return "\n".join(lines)


def figure_counts(frame) -> str:
    """What the experience paper's figures show, per log: processors against
    the request (fewer, as requested, four times, of the jobs with both known),
    requested times of 0, Pearson's r of ln(procs) and ln(run), the jobs by
    status with the failed ones within 5 s, and the inter-start gaps on a
    batching period (starts against arrivals; batched from the ratio 2 on)."""
    import pandas as pd
    from wla.archive.analysis.quality import BATCHING_RATIO

    def share(part, whole) -> str:
        return "-" if not whole or pd.isna(whole) else f"{part:,} {part / whole:.0%}"

    requests, statuses = [], []
    for _, r in frame.iterrows():
        known, ratio = r["procs_and_request"], r["batching_ratio"]
        requests.append({
            "name": r["name"], "procs&req": f"{known:,}", "fewer": share(r["procs_under_requested"], known),
            "as_req": share(r["procs_as_requested"], known), "x4": share(r["procs_four_times"], known),
            "req_time_0": f"{r['zero_req_time']:,}",
            "r_size_run": "-" if pd.isna(r["size_run_correlation"]) else f"{r['size_run_correlation']:+.2f}"})
        statuses.append({
            "name": r["name"], "completed": share(r["completed"], r["jobs"]),
            "failed": share(r["failed"], r["jobs"]), "failed<=5s": f"{r['failed_within_5s']:,}",
            "cancelled": share(r["cancelled"], r["jobs"]), "other": f"{r['other_status']:,}",
            "period": "-" if pd.isna(r["batching_period"]) else f"{r['batching_period']:,.0f} s",
            "starts/arrivals": ("-" if pd.isna(ratio) else
                                f"{r['start_on_period']:.0%}/{r['arrival_on_period']:.0%}"
                                + (" batched" if ratio >= BATCHING_RATIO else ""))})
    return ("the paper's figures (processors against the request; r of ln(procs) and ln(run)):\n"
            + frame_text(pd.DataFrame(requests))
            + "\n\nstatus; gaps between starts and between arrivals within 1 s of a multiple of the period:\n"
            + frame_text(pd.DataFrame(statuses)))


def _seconds(value) -> str:
    import pandas as pd

    if value is None or pd.isna(value):
        return "-"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def header_audits(frame) -> str:
    """Each log's header audit: one line saying how it went, then one per mismatch."""
    from wla.archive.analysis.header_audit import mismatch_lines, verdict

    lines = ["header audit:"]
    for name, audit in zip(frame["name"], frame["header_audit"]):
        lines.append(f"{name}: {verdict(audit)}")
        lines += [part for line in mismatch_lines(audit) for part in _wrapped(f"  {line}", "    ")]
    return "\n".join(lines)


def diagnoses(frame) -> str:
    """Each log's findings, one line each (what: where; how much. what to
    do), or one line saying none of the detectors found anything."""
    from wla.archive.analysis.diagnosis.registry import DETECTORS

    lines = ["diagnosis:"]
    for name, findings in zip(frame["name"], frame["diagnosis"]):
        if not findings:
            lines.append(f"{name}: nothing found ({count(len(DETECTORS), 'detector')})")
            continue
        lines.append(f"{name}: {count(len(findings), 'finding')}")
        lines += [part for f in findings
                  for part in _wrapped(f"  - {f['what']}: {f['where']}; {f['how_much']}. {f['action']}", "    ")]
    return "\n".join(lines)


def known_issues(frame) -> str:
    """Each log's known issues (the caveats wla ships, the user's notes): one
    line saying how many, then one per issue."""
    lines = ["known issues:"]
    for name, issues in zip(frame["name"], frame["known_issues"]):
        lines.append(f"{name}: {count(len(issues), 'known issue')}" if issues else f"{name}: none known")
        lines += issue_lines(issues)[1:] if issues else []
    return "\n".join(lines)


# -- analyses ------------------------------------------------------------------------------


def flurries(report, log: str) -> str:
    import pandas as pd

    lines = [f"{log}: {count(report.jobs, 'job')} over {count(report.weeks, 'week')}; average "
             f"{report.weekly_average:,.0f} jobs a week, {report.daily_average:,.0f} a day"]
    for kind, title in (("week", "weekly candidates"), ("day", "daily candidates"),
                        ("dominance", "dominant users")):
        found = report.of_kind(kind)
        lines.append(f"\n{title}: {len(found) or 'none'}")
        if found:
            rows = pd.DataFrame([{
                "user": c.user, kind if kind != "dominance" else "": c.period if c.period is not None else "",
                "date": c.date or "", "jobs": c.jobs,
                "ratio": "" if c.ratio is None else f"{c.ratio:.1f}", "share": _pct(c.share),
                "large": "large" if c.large else "", "procs": c.median_procs, "run (s)": c.median_run,
                "p*s": _pct(c.proc_seconds_share), "predicate": c.predicate} for c in found])
            lines.append(frame_text(rows.loc[:, rows.columns != ""]))
    return "\n".join(lines)


def load(report, log: str) -> str:
    import pandas as pd

    weekly = pd.Series(report.weekly)
    lines = [f"{log}: {count(len(report.weekly), 'week')} on {report.capacity:,} processors; weekly utilization "
             f"median {_pct(report.median_weekly)}, min {_pct(weekly.min())}, max {_pct(weekly.max())}",
             report.summary()]
    if report.predicate() and not report.dip:
        when = report.to_dict()["trim"]["date"]
        lines.append(f"recipe step: rule = \"trim\", before = {report.trim_submit}"
                     + (f"   # {when}" if when else ""))
    return "\n".join(lines)


def capacity(data: dict, log: str, dated) -> str:
    """`dated(frame, columns)` shows submit-clock seconds as the log's local time."""
    import pandas as pd

    report, choice = data["report"], data.get("rule")
    if not report.judged:
        from wla.archive.analysis.capacity import NO_STARTS

        return "\n".join(_wrapped(f"{log} on {report.capacity:,} processors: {NO_STARTS}; the capacity rule does "
                                  "not run on it", "  "))
    worst = (f" at {dated(pd.DataFrame({'t': [report.worst_at]}), ['t']).t[0]}"
             if report.worst_at is not None else "")
    lines = _notes(f"{log} on {report.capacity:,} processors: {count(report.exceptions, 'exception')} in "
                   f"{count(len(report.components), 'component')}; worst excess {report.worst_excess:,.0f} "
                   f"processors{worst}; ceiling {report.ceiling:,.0f} ({_pct(report.ceiling_share)} of the machine)")
    if len(report.components):
        lines += ["", frame_text(dated(report.components.head(20), ["first_at", "last_at", "worst_at"]))]
        if len(report.components) > 20:
            lines.append(f"... {count(len(report.components) - 20, 'more component')}")
    if choice is not None and choice.chosen is not None:
        lines.append("")
        for obj in "LS":
            sh = choice.shares
            lines += _notes(f"{obj}: {count(choice.deleted[obj], 'job')}, {100 * sh[obj + 'J']:.3g}% of jobs, "
                            f"{100 * sh[obj + 'U']:.3g}% of utilization ({choice.proof(obj)})")
    if choice is not None:
        lines += ["", *_notes(choice.message)]
    return "\n".join(lines)


# -- cleaning ------------------------------------------------------------------------------


def _value(value) -> str:
    from wla.archive.clean.bind import value_text

    return value_text(value)


def rules(found: list[dict]) -> str:
    lines = []
    width = max([10, *(len(r["name"]) for r in found)])  # names in one column
    for r in found:
        params = ", ".join(f"{p['name']}={_value(p['default']) if not p['required'] else '(required)'}"
                           for p in r["params"])
        line = f"{r['name']:{width}} v{r['version']}  {r['fingerprint'][:12]}  "
        lines.append(line + cell(params, 100 - len(line)))
    return "\n".join(lines)


def rule(r: dict) -> str:
    lines = [f"{r['name']} version {r['version']}, fingerprint {r['fingerprint']}", f"file: {r['file']}", "",
             r["rationale"], ""]
    for p in r["params"]:
        default = "required" if p["required"] else f"default {_value(p['default'])}"
        lines.append(f"  {p['name']} ({p['type']}, {default}): {p['doc']}")
    lines += ["", f"reads: {', '.join(r['reads']) or '-'}; writes: {', '.join(r['writes']) or '-'}"]
    return "\n".join(lines)


def diff(data: dict, v1: str, v2: str, limit: int) -> str:
    summary, detail = data["summary"], data["detail"]
    if detail.empty:
        return f"{v1} and {v2} hold the same jobs with the same values"
    shown = detail if limit == 0 else detail.head(limit)
    lines = [frame_text(summary), "", frame_text(shown)]
    if len(shown) < len(detail):
        lines.append(f"... {count(len(detail) - len(shown), 'more row')} (--limit 0 shows all)")
    return "\n".join(lines)


def log_diff(diff, limit: int) -> str:
    """Two logs compared (`wla diff A B`): counts, what each kind of job has in common, the rows."""
    c = diff.counts()
    lines = [f"A {diff.a}: {count(c['jobs_a'], 'job')}", f"B {diff.b}: {count(c['jobs_b'], 'job')}",
             f"{diff.matching()}: {c['matched']:,} in both ({c['changed_jobs']:,} changed), "
             f"{c['only_a']:,} only in A, {c['only_b']:,} only in B"]
    for side in ("a", "b"):
        if c[f"rejects_{side}"]:
            lines.append(f"{side.upper()} has {count(c[f'rejects_{side}'], 'line')} its lenient ingest rejected "
                         "(not compared; they are in the table rejects)")
    if diff.same:
        lines.append("A and B hold the same jobs with the same values")
        return "\n".join(lines)
    parts = (("only in A", diff.only_a, f"{count(c['only_a'], 'job')} only in A"),
             ("only in B", diff.only_b, f"{count(c['only_b'], 'job')} only in B"),
             ("changed", diff.changed, f"{count(c['changed_jobs'], 'changed job')}, "
                                       f"{count(c['changes'], 'changed field')}"))
    for group, frame, title in parts:
        if frame.empty:
            continue
        lines += ["", f"{title}:"]
        lines += [part for f in diff.findings if f.group == group or f.group.startswith(group + " ")
                  for part in _wrapped(f"  {f.text}", "    ")]
        shown = frame if limit == 0 else frame.head(limit)
        if (shown["occurrence"] == 1).all():  # no job number repeats: the job number says it all
            shown = shown.drop(columns="occurrence")
        lines += ["", frame_text(shown)]
        if len(shown) < len(frame):
            lines.append(f"... {count(len(frame) - len(shown), 'more row')} (--limit 0 shows all)")
    return "\n".join(lines)


def why(data: dict) -> str:
    job, decisions, kept = data["job"], data["decisions"], data["versions"]
    lines = [] if not kept.empty else [f"job {job} has no versions to be in"]
    for row in kept.itertuples():
        state = "kept" if row.kept else "dropped"
        mine = decisions[(decisions.version == row.version) & (decisions.line_no == row.line_no)]
        lines.append(f"{row.version}: job {job} (line {row.line_no}) {state}"
                     + ("" if len(mine) or not row.kept else ", unchanged"))
    if not decisions.empty:
        lines += ["", frame_text(decisions)]
    return "\n".join(lines)


def clean(res) -> str:
    if res.status == "unchanged":
        return f"{res.name} is published and its recipe is unchanged; nothing to do"
    lines = []
    for s in res.steps:
        lines.append(f"step {s.step}: {s.rule} v{s.rule_version} ({s.fingerprint[:12]}): "
                     f"{s.dropped:,} dropped, {s.changed:,} changed, of {count(s.jobs_in, 'job')}")
        if s.note:
            lines.append(f"        {s.note}")
    lines.append(f"{res.status} {res.name}: {res.jobs_in:,} -> {count(res.jobs, 'job')} in {res.seconds:.2f} s "
                 f"(recipe {res.recipe_hash[:12]})")
    return "\n".join(lines)


# -- simulation ----------------------------------------------------------------------------


def _number(x, unit: str = "") -> str:
    if x is None:
        return "-"
    return f"{x:,.0f}{unit}" if abs(x) >= 100 else f"{x:,.2f}{unit}"


def simulation(summary: dict) -> str:
    """What ran, on what, and the metrics (`SimResult.summary()`)."""
    s, c, m, source = summary["settings"], summary["counts"], summary["metrics"], summary["source"]
    procs_from = source.get("procs_from")
    lines = [f"{source.get('log') or 'query'}: {s['policy'].upper()} on {s['procs']:,} processors"
             + (f" ({procs_from})" if procs_from else "")
             + f"; estimates {s['estimate']}, overrun {s['overrun']}"]
    left = ", ".join(f"{n:,} {r}" for r, n in c["not_simulated"].items() if n)
    lines.append(f"jobs {c['jobs']:,}: simulated {c['simulated']:,}" + (f"; not simulated: {left}" if left else ""))
    out = ", ".join(f"{n:,} {r}" for r, n in c["not_measured"].items() if n)
    lines.append(f"measured {c['measured']:,}" + (f" (not measured: {out})" if out else ""))
    if c.get("reservations_delayed") is not None:
        lines.append(f"reservations moved later: {c['reservations_delayed']:,} (only when an estimate grows)")
    lines += [part for line in feedback_lines(s.get("feedback"), c) for part in _wrapped(line, "          ")]
    lines += scaling_lines(s, c, m)
    lines.append("")
    lines.append(f"{'':18}{'mean':>12}{'median':>12}{'p95':>12}")
    for key, label in (("wait", "wait (s)"), ("response", "response (s)"),
                       ("bounded_slowdown", "bounded slowdown")):
        stats = m[key]
        lines.append(f"{label:18}" + "".join(f"{_number(stats[k]):>12}" for k in ("mean", "median", "p95")))
    lines.append("")
    util, used = (quantities.said("utilization", m[k]) for k in ("utilization", "utilization_measured"))
    lines.append(f"utilization {util} of the machine, {used} by the jobs not excluded")
    lines.append(f"throughput {_number(m['throughput_per_hour'])} jobs/h (not excluded)   "
                 f"makespan {quantities.said('makespan', m['makespan'])}")
    lines.append(saturation_line(m["saturation"]))
    settings = "settings: " + " ".join(f"{k}={json.dumps(s[k])}" for k in SimSettings.names()
                                       if k not in _SAID_ELSEWHERE)
    lines += _wrapped(settings, "          ")
    if summary.get("batch_means"):
        lines += [""] + batch_means_lines(summary["batch_means"])
    return "\n".join(lines)


def batch_means_lines(rows: list[dict]) -> list[str]:
    """Each metric's batch means: their mean, 95% interval, lag-1 autocorrelation."""
    first = rows[0]
    low, high = first["batch_jobs"]
    jobs = f"{low:,} jobs each" if low == high else f"{low:,} to {high:,} jobs"
    left = f", the first {first['left_out']:,} measured jobs left out" if first["left_out"] else ""
    out = [f"batch means: {first['batches']:,} batches by {first['by']} ({jobs}{left})",
           f"{'':18}{'mean':>12}{'95% low':>12}{'95% high':>12}{'lag-1 r':>10}"]
    for r in rows:
        lag = "-" if r["lag1"] is None else f"{r['lag1']:.2f}"
        out.append(f"{r['metric'].replace('_', ' '):18}" + "".join(f"{_number(r[k]):>12}" for k in
                                                                   ("mean", "ci_low", "ci_high")) + f"{lag:>10}")
    bound = first["lag1_bound"]
    loose = [r["metric"].replace("_", " ") for r in rows if r["independent"] is False]
    if loose:
        out += _wrapped(f"batch means correlated (lag-1 r beyond +-{bound:.2f}, 1.96/sqrt(K)) for "
                        f"{', '.join(loose)}: the interval is too narrow there; give fewer, longer batches", "  ")
    else:
        out.append(f"lag-1 r within +-{bound:.2f} (1.96/sqrt(K)) for every metric: batch means nearly independent")
    return out


def scaling_lines(s: dict, c: dict, m: dict) -> list[str]:
    """The load manipulations applied (load factor, sim/scaling.py) and the
    offered load they give; nothing when the trace is replayed as logged."""
    runtime, size, arrivals = s.get("runtime_scale", 1.0), s.get("size_scale", 1.0), s.get("load_factor", 1.0)
    if runtime == 1.0 and size == 1.0 and arrivals == 1.0:
        return []
    held = c.get("sizes_held") or {}
    parts = [f"interarrival times /{arrivals:g}"] if arrivals != 1.0 else []
    if runtime != 1.0:
        parts.append(f"run and requested times x{runtime:g}")
    if size != 1.0:
        kept = ", ".join(f"{n:,} {r}" for r, n in held.items() if n)
        parts.append(f"sizes x{size:g}" + (f" ({kept})" if kept else ""))
    load = m.get("offered_load")
    return [f"load: {'; '.join(parts)}" + ("" if load is None else f"; offered load {100 * load:.1f}%")]


def feedback_lines(feedback: bool | None, c: dict) -> list[str]:
    """What feedback did, or that the workload could have used it: silent
    on a workload whose fields 17/18 are empty, simulated without it."""
    deps = c.get("dependencies") or {}
    linked, lost = deps.get("with a preceding job", 0), deps.get("preceding job not simulated", 0)
    if not feedback:
        return [f"dependencies: {count(linked, 'job')} wait for another (fields 17/18), not used "
                "(--feedback uses them)"] if linked else []
    if not linked:
        return ["feedback: no job waits for another (fields 17/18 are empty: the dependencies rule fills them)"]
    late = c.get("arrived_late", 0)
    return [f"feedback: {count(linked, 'job')} wait for another (fields 17/18)"
            + (f", {lost:,} more for a job not simulated (they do not wait)" if lost else "")
            + f"; {count(late, 'job')} arrived after {'its' if late == 1 else 'their'} submit time"]


def _wrapped(line: str, indent: str) -> list[str]:
    """A long line of words on lines of 100 columns (whole with --wide)."""
    import textwrap

    from .render import WIDTH, is_wide

    if is_wide() or len(line) <= WIDTH:
        return [line]
    return textwrap.wrap(line, WIDTH, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)


# Settings the simulation's text shows elsewhere: in its first lines, on
# stderr (--check), in the saturation line (what the backlog counts).
_SAID_ELSEWHERE = ("policy", "estimate", "overrun", "procs", "check", "backlog", "feedback", "runtime_scale",
                   "size_scale")


def saturation_line(sat: dict) -> str:
    if sat["slope"] is None:
        return f"saturated: no (too short to tell: {count(sat['weeks'], 'week')} to fit)"
    return (f"saturated: {'YES' if sat['saturated'] else 'no'} (backlog slope {sat['slope']:.2f} jobs/week "
            f"over {count(sat['weeks'], 'week')})")


def _g(x: float | None) -> str:
    """A figure of any size with four significant digits (whole above 100)."""
    return quantities.number(x)


def _pct_text(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{100 * value:+.1f}%" if signed else f"{100 * value:.1f}%"


CUT_NOTE = ("*: the interval reached the metric's range (wait, response, throughput >= 0; bounded "
            "slowdown >= 1; utilization 0 to 100%) and is cut there; too few runs to bound the mean on that side")


def _interval(m: dict, name: str = "") -> str:
    """A summary's interval, a star beside a side cut at the metric's range."""
    if m["ci_low"] is None:
        return "-"
    cut = m.get("ci_cut") or ""
    low = quantities.cell(name, m["ci_low"]) + ("*" if cut in ("low", "both") else "")
    high = quantities.cell(name, m["ci_high"]) + ("*" if cut in ("high", "both") else "")
    return f"{low} to {high}"


def _any_cut(ms) -> list[str]:
    return _wrapped(CUT_NOTE, "   ") if any(m.get("ci_cut") for m in ms) else []


def _notes(*lines: str) -> list[str]:
    return [part for line in lines for part in _wrapped(line, "  ")]


def shaking(summary: dict) -> str:
    """What ran, how it was shaken, and per metric the original against the shaken runs."""
    s, source, sh = summary["settings"], summary["source"], summary["settings"]["shaking"]
    mode = "absolute" if sh["relative_pct"] is None else f"relative, at most {sh['relative_pct']:g}% of the value"
    lines = [f"{source.get('log') or 'query'}: {s['policy'].upper()} on {s['procs']:,} processors; "
             f"estimates {s['estimate']}, overrun {s['overrun']}",
             *_notes(f"shaken: {sh['attribute']} by up to {sh['degree']:g} ({mode}) on {sh['jobs_pct']:g}% of jobs"),
             f"{count(s['runs'], 'run')}, seed {sh['seed']}", ""]
    rows = []
    for name, m in summary["summaries"].items():
        span = "-" if m["span_low"] is None else \
            f"{_pct_text(m['span_low'])} to {_pct_text(m['span_high'])}"
        near = "-" if m["concentration"] is None else f"{m['concentration']:.0%}"
        rows.append([labelled(name), quantities.cell(name, m["original"]), quantities.cell(name, m["mean"]),
                     quantities.cell(name, m["std"]), _interval(m, name), span,
                     _pct_text(m["distance"], True), near])
    lines.append(grid(["metric", "original", "shaken mean", "std", "95% CI of the mean", "span p5-p95 (% of O)",
                       "distance", "within 1%"], rows, gap=2))
    lines.append("")
    if summary["saturated"]["original"]:
        lines.append("the original run saturated: its metrics describe the log's length, not the policy")
    lines += _notes("distance: (shaken mean - original) / original; within 1%: share of runs within 1% of the "
                    "original")
    lines += _any_cut(summary["summaries"].values())
    return "\n".join(lines)


_AS_LOGGED = ("runtime_scale", "size_scale")  # at 1, the trace's own run times and sizes: not worth a word


def sweep(summary: dict, metric: str | list[str]) -> str:
    """Per point, each metric asked for: the single run against the shaken runs."""
    s, source = summary["settings"], summary["source"]
    sh, sim, rs = s["shaking"], s["simulate"], s.get("resampling")
    names = list(s["grids"])
    metrics = [metric] if isinstance(metric, str) else list(metric)
    fixed = ", ".join(f"{k} {v}" for k, v in sim.items() if k != "seed" and k not in names
                      and not (k in _AS_LOGGED and v == 1.0))
    settings_swept = rs is None and any(n in SHAKE_GRIDS for n in names)
    if rs is None:
        mode = "absolute" if sh["relative_pct"] is None else f"at most {sh['relative_pct']:g}%"
        what = "each point's attribute" if sh["attribute"] is None else sh["attribute"]
        degree = "each point's degree" if sh["degree"] is None else f"{sh['degree']:g}"
        share = "each point's share" if sh["jobs_pct"] is None else f"{sh['jobs_pct']:g}%"
        how = [f"{count(s['runs'], 'shaken run')} each, seed {sh['seed']}",
               f"shaken: {what} by up to {degree} ({mode}) on {share} of jobs"]
    else:
        how = [f"{count(s['runs'], 'resampled workload')} each, seed {rs['seed']}",
               f"resampled: the log's users over {count(rs['weeks'], 'week') if rs['weeks'] else 'its weeks'}; "
               "load: the resampling's factor; single: the log itself"]
    lines = [*_notes(f"{source.get('log') or 'query'}: {count(s['points'], 'point')} ({' x '.join(names)}), "
                     + how[0], how[1]), *(_notes(f"fixed: {fixed}") if fixed else [])]
    for k, name in enumerate(metrics):
        lines += ([""] if k else []) + [f"{labelled(name)}:", "", _sweep_table(summary, name, settings_swept)]
    if rs is not None:
        lines += [""] + _notes("saturated: the share of runs whose machine saturated, left out of the mean; "
                               "utilization: mean of the others")
    if settings_swept:
        lines += [""] + _notes("distance: (shaken mean - single) / single; span: the 5th to 95th percentile of the "
                               "shaken runs; within 1%: share of runs within 1% of the single run")
    cut = _any_cut(pt["metrics"][name] for pt in summary["points"] for name in metrics)
    lines += ([""] if cut and rs is None else []) + cut
    return "\n".join(lines)


def _sweep_table(summary: dict, metric: str, settings_swept: bool) -> str:
    """One metric's table of a sweep: a row per point."""
    s = summary["settings"]
    rs = s.get("resampling")
    names = list(s["grids"])
    mean = "shaken mean" if rs is None else "mean"
    columns = [SHAKE_GRIDS.get(n, n) for n in names] + ["single", mean, "95% CI of the mean", "distance"] + \
        ([] if rs is None else ["saturated", "utilization"]) + \
        (["span p5-p95 (% of O)", "within 1%"] if settings_swept else [])
    rows = []
    for pt in summary["points"]:
        m = pt["metrics"][metric]
        row = [_grid_value(n, pt[n]) for n in names] + \
            [quantities.cell(metric, m["original"]), quantities.cell(metric, m["mean"]),
             _interval(m, metric), _pct_text(m["distance"], True)]
        if settings_swept:
            row += ["-" if m["span_low"] is None else f"{_pct_text(m['span_low'])} to {_pct_text(m['span_high'])}",
                    "-" if m["concentration"] is None else f"{m['concentration']:.0%}"]
        if rs is not None:
            util = pt["metrics"]["utilization"]["mean"]
            row += [f"{pt['saturated']['runs'] / max(s['runs'], 1):.0%}", quantities.cell("utilization", util)]
        rows.append(row)
    return grid(columns, rows, left=tuple(range(len(names))), gap=2)


# The shaking's settings as a sweep's columns name them (grid.py SHAKE_PARAMETERS).
SHAKE_GRIDS = {"degree": "degree", "jobs": "jobs %", "attribute": "attribute"}


def _grid_value(name: str, value: object) -> str:
    """A point's value; a degree or share as --grid writes it: 10, not 10.0."""
    return f"{value:g}" if name in SHAKE_GRIDS and isinstance(value, float) else str(value)


def comparison(summary: dict) -> str:
    """Per metric: A and B alone and shaken (or resampled), their paired difference, and the verdict."""
    s, (a, b) = summary["settings"], summary["configurations"]
    rs = s.get("resampling")
    lines = [f"A: {a['name']} ({a['source'].get('log') or 'query'}, {a['options']['policy'].upper()}, "
             f"estimates {a['options']['estimate']})",
             f"B: {b['name']} ({b['source'].get('log') or 'query'}, {b['options']['policy'].upper()}, "
             f"estimates {b['options']['estimate']})"]
    if rs is None:
        sh = s["shaking"]
        mode = "absolute" if sh["relative_pct"] is None else f"at most {sh['relative_pct']:g}%"
        lines += _notes(f"on the same {count(s['runs'], 'shaken workload')}: {sh['attribute']} by up to "
                        f"{sh['degree']:g} ({mode}) on {sh['jobs_pct']:g}% of jobs, seed {sh['seed']}")
        kind, single = "shaken", "single"
    else:
        sat = summary["saturated"]
        lines += _notes(f"on the same {count(s['runs'], 'resampled workload')} of {rs['log']}: its users over "
                        f"{count(rs['weeks'], 'week') if rs['weeks'] else 'its weeks'}, load {rs['load']:g}, "
                        f"RB_NPW {rs['rb_npw']:g}, phase {rs['phase']}, seed {rs['seed']}",
                        f"paired: {sat['kept']:,} of {s['runs']:,} workloads, unsaturated under both "
                        f"({sat['resampled_pairs']:,} left out: {sat['a']:,} saturated under A, {sat['b']:,} under B)")
        kind, single = "resampled", "log"
    lines.append("")
    rows = []
    for name, m in summary["metrics"].items():
        d = m["difference"]
        ci = "-" if d["ci_low"] is None else f"{quantities.cell(name, d['mean'])} ({_interval(d, name)})"
        wrong = "-" if d["wrong_conclusion"] is None else f"{d['wrong_conclusion']:.0%}"
        short = "survives" if d["survives"] else d["verdict"].split(":")[0]
        rows.append([labelled(name)] + [quantities.cell(name, m[side][k]) for k in ("original", "mean")
                                        for side in ("a", "b")] + [ci, wrong, short])
    lines.append(grid(["metric", f"A {single}", f"B {single}", f"A {kind}", f"B {kind}", "B - A (95% CI)", "wrong",
                       "verdict"], rows, left=(0, 7), gap=2))
    if rs is None:
        lines += [""] + _notes("B - A: the mean paired difference over the shaken runs; wrong: the share of shaken "
                               "runs whose difference has the other sign",
                               "survives: the interval excludes 0 and has the single runs' sign")
    else:
        lines += [""] + _notes("A log, B log: the log itself; A resampled, B resampled: means over the workloads "
                               "paired; B - A: the mean paired difference; wrong: the share of paired workloads "
                               "whose difference has the other sign",
                               "survives: the interval excludes 0 and has the log's sign")
    lines += _any_cut(m["difference"] for m in summary["metrics"].values())
    return "\n".join(lines)


def comparison_degrees(summary: dict) -> str:
    """One metric of A and B: the single runs, then the shaken means per degree (the shaking paper's Table II)."""
    s, (a, b), name = summary["settings"], summary["configurations"], summary["metric"]
    sh = s["shaking"]
    mode = "absolute" if sh["relative_pct"] is None else f"at most {sh['relative_pct']:g}%"

    def side(label: str, c: dict) -> str:
        o = c["options"]
        return (f"{label}: {c['name']} ({c['source'].get('log') or 'query'}, {o['policy'].upper()}, "
                f"estimates {o['estimate']}, overrun {o['overrun']})")

    def value(x: float | None) -> str:  # two decimals: Table II's differences are in the second
        if x is None or x != x or quantities.unit(name) == quantities.PERCENT:
            return quantities.cell(name, x)
        return f"{x:,.2f}"

    columns = summary["columns"]
    head = [labelled(name), "single"] + [f"degree {c['degree']:g}" for c in columns[1:]]
    gap = ["-" if c["gap_pct"] is None else f"{c['gap_pct']:.2f}%" for c in columns]
    diffs = [c["difference"] for c in columns[1:]]
    rows = [["A"] + [value(c["a"]) for c in columns],
            ["B"] + [value(c["b"]) for c in columns],
            ["|B - A| / A"] + gap,
            ["B - A (95% CI)", "-"] + [f"{quantities.cell(name, d['mean'])} ({_interval(d, name)})"
                                       if d["ci_low"] is not None else "-" for d in diffs],
            ["verdict", "-"] + ["survives" if d["survives"] else d["verdict"].split(":")[0] for d in diffs]]
    lines = [side("A", a), side("B", b),
             *_notes(f"single: unshaken; degree D: the means of the same {count(s['runs'], 'shaken workload')} "
                     f"for A and B, {sh['attribute']} shaken by up to D ({mode}) on {sh['jobs_pct']:g}% of jobs, "
                     f"seed {sh['seed']}"), "",
             grid(head, rows, left=(0,), gap=2), ""]
    lines += _notes("B - A: the mean paired difference over the shaken runs; survives: the interval excludes 0 "
                    "and has the single runs' sign")
    lines += _any_cut(d for d in diffs)
    return "\n".join(lines)

def esp(data: dict[str, Any], mix: str) -> str:
    s, score = data["settings"], data["esp"]
    return "\n".join([
        f"ESP mix {mix}: {count(data['counts']['simulated'], 'job')}, {s['policy'].upper()} on {s['procs']:,} "
        f"processors, seed {s['seed']}" + ("; full-configuration jobs first" if s.get("priority") else ""),
        f"elapsed {quantities.said('makespan', score['elapsed'])}, work {score['work']:,.0f} processor-seconds",
        f"efficiency            {100 * score['efficiency']:.2f}%",
        f"efficiency (MWF IAE)  {100 * score['corrected']:.2f}%   idle-at-end {score['idle_at_end']:,.0f} "
        f"processor-seconds, MWF makespan {quantities.said('makespan', score['mwf_makespan'])}",
        f"efficiency (sum T_pi) {100 * score['by_processor']:.2f}%   processors' spans {score['busy_span']:,.0f} "
        "processor-seconds (rewards leaving processors idle for good: see the definitions)",
        *_esp_boot(score),
        *([] if score["second_full_end"] is None else [
            f"second full job ends  {score['second_full_end']:,.0f} s after the start: "
            f"{'within' if score['second_full_in_time'] else 'NOT within'} 90% of the test "
            f"({score['second_full_limit']:,.0f} s), as ESP requires"]),
    ])


_ESP_SCORES = {"efficiency": "P x T", "corrected": "P x T - IAE", "by_processor": "sum T_pi",
               "official": "with the boot", "amortized": "boot amortized"}


def esp_seeds(data: dict[str, Any]) -> str:
    """The scores' distribution over seeds, one row per score."""
    first, last = data["seeds"]
    head = (f"ESP mix {data['mix']}: {data['policy'].upper()} on {data['procs']:,} processors"
            f"{', full-configuration jobs first' if data['full_first'] else ''}; seeds {first} to {last} "
            f"({count(last - first + 1, 'run')})")
    rows = [[_ESP_SCORES[name], *(f"{100 * d[k]:.2f}" for k in ("mean", "std", "min", "p5", "p50", "p95", "max"))]
            for name, d in data["distribution"].items() if name != "official" or data["runs"][0]["boot"]]
    return head + "\n" + grid(["score (%)", "mean", "std", "min", "p5", "median", "p95", "max"], rows, left=(0,), gap=2)


def esp_two_stage(data: dict[str, Any]) -> str:
    """Each stage's scores and the waits of each class."""
    lines = [f"ESP mix {data['mix']}: {data['policy'].upper()} on {data['procs']:,} processors, seed {data['seed']}"]
    rows = []
    for name, title in (("without_priority", "1: no priority"), ("full_first", "2: full jobs first")):
        stage = data[name]
        s, w = stage["score"], stage["waits"]
        rows.append([title, f"{100 * s['efficiency']:.2f}%", f"{100 * s['corrected']:.2f}%",
                     f"{w['full']['mean']:,.0f}", f"{w['full']['max']:,.0f}", f"{w['other']['mean']:,.0f}",
                     "yes" if s["second_full_in_time"] else "no" if s["second_full_in_time"] is False else "-"])
    lines.append(grid(["stage", "P x T", "- IAE", "full wait", "full max", "other wait", "2nd full <= 0.9 T"],
                      rows, left=(0,), gap=2))
    lines.append("waits in seconds: the mean over each class, and the full jobs' longest")
    return "\n".join(lines)


def _esp_boot(score: dict[str, Any]) -> list[str]:
    """ESP's score with the boot in, whole and amortized, and the boot alone."""
    if not score["boot"] and score["between_boots"] is None:
        return []
    lines = [f"with the boot         {100 * score['official']:.2f}%   (ESP's score: T + boot; "
             f"boot time {score['boot']:,.0f} s, a metric of its own)"]
    if score["amortized"] is not None:
        lines.append(f"boot amortized        {100 * score['amortized']:.2f}%   (a boot every "
                     f"{quantities.said('makespan', score['between_boots'])})")
    return lines


def doctor(data: dict[str, Any]) -> str:
    """Versions, the archive, and each compiled part: warm (loaded from the
    cache) or cold (compiled by the first run that needs it)."""
    libraries = ", ".join(f"{name} {version or 'missing'}" for name, version in data["libraries"].items())
    where = data["archive"]
    lines = [f"wla {data['wla']} on Python {data['python']}", *_notes(libraries),
             f"archive: {where['path']}" + ("" if where["exists"] else " (none yet: `wla ingest` makes it)")]
    if data["cache_folder"]:
        lines.append(f"numba cache: {data['cache_folder']} (NUMBA_CACHE_DIR)")
    lines.append(grid(["part", "state", "folder"],
                      [[c["part"], c["state"], c["folder"] or "(not kept)"] for c in data["compiled"]],
                      left=(0, 1, 2), gap=2).split("\n", 1)[1])
    if any(c["state"] != "warm" for c in data["compiled"]):
        lines += _notes("a cold part is compiled by its first run (seconds to a minute); `wla doctor --warm` does "
                        "it now")
    return "\n".join(lines)


def users(summary: dict, log: str) -> str:
    """Users and jobs per class, and the figures a resampled workload starts from."""
    th = summary["thresholds"]
    lines = [*_notes(f"{log}: {count(summary['jobs'], 'job')} over {count(summary['weeks'], 'week')}; long-term "
                     f"from {th['long_term_weeks']:g} weeks of activity, discarded within {th['edge_weeks']:g} "
                     "weeks of the start or end"), "", f"{'class':16}{'users':>8}{'jobs':>10}"]
    for name, c in summary["classes"].items():
        lines.append(f"{name:16}{c['users']:>8,}{c['jobs']:>10,}")
    if summary["unknown_user_jobs"] or summary["unknown_submit_jobs"]:
        lines.append(f"not in any pool: {count(summary['unknown_user_jobs'], 'job')} of unknown users, "
                     f"{summary['unknown_submit_jobs']:,} of unknown submit time")
    lines += ["", f"temporary users active per week: {summary['temporary_active_per_week']:.2f} on average",
              f"new temporary users per week: {summary['temporary_arrivals_per_week']:.2f} on average"]
    if summary["rare_behavior"]:
        lines.append(f"rare-behavior triples: {len(summary['rare_behavior'])}")
    return "\n".join(lines)


def _sources(data: dict) -> str:
    """The log resampled, or the logs mixed and their machine."""
    mix = data.get("mix")
    if not mix:
        return data["source"]
    kept = "" if mix["weekday_kept"] else "; weekdays not aligned (a log has no UnixStartTime)"
    return " + ".join(m["log"] for m in mix["logs"]) + f" on {mix['machine_size']:,} processors{kept}"


def _favor(favor: dict | None) -> list[str]:
    """The favored class, and how much of the workload it came to hold."""
    if not favor:
        return []
    t = favor["threshold"]
    shown = "-" if t is None else f"{t:,.0f}" if t >= 1000 else f"{t:.4g}"
    return [f"favored: the top {favor['top']:.0%} by {favor['figure']} ({favor['users']} users, from "
            f"{shown}), weight {favor['weight']:g}: {count(favor['jobs'], 'job')} of "
            f"{count(favor['instances'], 'user instance')}"]


def _drawn(f: dict) -> str:
    """What a resampled workload drew: users by class, or single sessions or jobs."""
    if "units_drawn" in f:
        return (f"{count(f['units_drawn'], f['unit'])} drawn of the log's {f['units_in_log']:,} "
                f"({f['units_per_week']:.3g} a week), each moved to a random week")
    return (f"long-term users {f['long_term_users']} ({f['distinct_long_term_users']} distinct), initial temporary "
            f"{f['initial_temporary_users']}, arrivals {f['arrival_rate']:.3g} a week ({f['temporary_arrivals']} "
            "in all" + (f", {f['rare_behavior_arrivals']} rare-behavior" if f["rare_behavior_arrivals"] else "") + ")")


def resampled(data: dict) -> str:
    s, f = data["settings"], data["figures"]
    return "\n".join([
        f"stored {data['name']}: a resampled workload of {_sources(data)}, seed {s['seed']}",
        f"{count(data['jobs'], 'job')} of {count(data['users'], 'user instance')} over {count(f['weeks'], 'week')}"
        + (f"; {count(data['rare_behavior_jobs'], 'rare-behavior job')} (not measured)"
           if data["rare_behavior_jobs"] else ""),
        _drawn(f),
        *_favor(data.get("favor")),
        f"load {s['load']:g}: simulate it with `wla simulate {for_shell(data['name'])}`, export it with "
        f"`wla export {for_shell(data['name'])} -o FILE.swf`",
    ])


def statistics(data: dict) -> str:
    """A log's statistics: its named numbers with their units, and its arrival cycles."""
    st = data["statistics"]
    match = st["parameters"].get("stack_match", "stack")
    fit = st["parameters"].get("hurst_fit", "points")
    lines = [f"{data['log']}: {count(st['jobs'], 'job')}" + (f" on {st['P']:,} processors" if st["P"] else "")
             + (f"; stack depths matched by {match}" if match != "stack" else "")
             + (f"; Hurst line through the block sizes' {fit}" if fit != "points" else ""), ""]
    if data.get("window"):
        lines[-1:-1] = _notes(_window(data["window"]))
    width = max(len(k) for k in data["scalars"]) + 2
    for name, value in data["scalars"].items():
        lines.append(f"{name:<{width}}{quantities.said(name, value)}")
    c = st["cycles"]
    days = " ".join(f"{d}:{n:,}" for d, n in zip(("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"), c["day_of_week"]))
    lines += [""] + _notes("arrivals (jobs) by day of week" + (" (from the log's start)" if c["relative"] else "")
                           + ": " + days,
                           "arrivals (jobs) by hour: " + " ".join(f"{h}:{n:,}" for h, n in enumerate(c["hour_of_day"])))
    return "\n".join(lines)


def _window(w: dict) -> str:
    """Which jobs a windowed `wla stats` measured, and the rates its span gives."""
    where = (f"{w['start_date']} to {w['end_date']}" if w["start_date"] else
             f"{w['start']:,.0f} s to {w['end']:,.0f} s")
    rate = "-" if w["arrival_rate"] is None else f"{w['arrival_rate']:,.1f}"
    load = "" if w["load"] is None else f", offered load {100 * w['load']:.1f}%"
    return (f"window: {w['label']}, {where} ({human(w['span'])}): {w['jobs']:,} of {w['workload_jobs']:,} jobs, "
            f"{rate} a day{load}; times counted from the window's start")


def validation(summary: dict) -> str:
    """Per statistic: the log's value, the resampled mean, p5 and p95, and where the log falls."""
    s = summary["settings"]
    rs = s["resampling"]
    unit = rs.get("unit", "user")
    how = f"phase {rs['phase']}" if unit == "user" else f"single {unit}s"
    if rs.get("favor"):
        how += f", the top {rs['favor_top']:g} by {rs['favor']} weighing {rs['favor_weight']:g}"
    lines = [*_notes(f"{s['log']}: {count(s['runs'], 'resampled workload')} (seed {rs['seed']}, load {rs['load']:g}, "
                     f"{how}), each simulated with {s['simulate']['policy'].upper()}"), ""]
    rows = []
    for name, d in summary["statistics"].items():
        at = "-" if d["percentile"] is None else f"p{d['percentile']:.0f}"
        rows.append([labelled(name)] + [quantities.cell(name, d[k]) for k in ("original", "mean", "p5", "p95")] + [at])
    lines.append(grid(["statistic", "log", "resampled mean", "p5", "p95", "log at"], rows, gap=2))
    lines += [""] + _notes("log at: the share of resampled workloads below the log's value (p50: in the middle; "
                           "p0 or p100: outside them all)")
    if "overlay" in summary:
        lines += ["", *overlay(summary["overlay"])]
    return "\n".join(lines)


def overlay(groups: dict) -> list[str]:
    """The overlay figures' workloads in numbers: per group, the medians over its workloads of each one's median."""
    rows = []
    for label, g in groups.items():
        users = f"{g['users_min']}" if g["users_min"] == g["users_max"] else f"{g['users_min']}-{g['users_max']}"
        rows.append([label, str(g["workloads"]), users, *(quantities.number(x) for x in (
                     g["median_jobs"], g["most_jobs"], g["median_sessions"], g["median_session_length"] / 3600,
                     g["median_activity_period"] / DAY)),
                     *("-" if g[f"bins_median_{a}"] is None else quantities.percent(g[f"bins_median_{a}"])
                       for a in ("run", "req_time", "procs"))])
    head = ["overlaid", "runs", "users", "jobs/user", "most jobs", "sessions", "session h", "active d", "run bin",
            "req bin", "procs bin"]
    return [grid(head, rows, gap=1), "",
            *_notes("per-user figures: the median user's, and the jobs of the user with most; bins: the median "
                    "day's share in its top bin; for a group, the median over its workloads")]
