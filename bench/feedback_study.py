"""Feedback study: do resampled workloads bracket their log once users wait
for their jobs?

    python bench/feedback_study.py [--runs 1000] [--workers 2] [--data DIR] [--docs]

For each of SDSC-SP2, CTC-SP2 and KTH-SP2 (the archive's cleaned versions):
its version with dependencies under the dependencies rule's defaults and
under each documented alternative (`MODELS`); the log itself replayed with
EASY without and with feedback; and N workloads resampled from it (wla's
resampling defaults; run i seeded by run_seed(0, i), so a run is the same
workload under every model but for its fields 17/18), each simulated with
EASY without feedback and with it. Long-term users start in a random week
of their activity (the paper's start, wla's default) and, for the rule's
defaults, also in a random week of their cycle (stationary start).

For each configuration: the resampled workloads' mean wait and mean
bounded slowdown (median, 5th and 95th percentiles), where the log's own
value falls among them (the share of workloads below it), the median over
the log's value, and utilization and throughput; as `wla validate` does,
saturated workloads are counted and left out. Writes bench/figures/feedback-study.json and one figure
per log, bench/figures/feedback-LOG.png; --docs writes the table into
docs/pages/feedback.md between its markers.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
DEFAULT_DATA = os.environ.get("WLA_DATA") or str(ROOT.parent / "shared" / "data" / "swf")
OUT = ROOT / "bench" / "figures"
LOGS = ("SDSC-SP2-1998-4.2-cln", "CTC-SP2-1996-3.1-cln", "KTH-SP2-1996-2.1-cln")
# the rule's defaults, and each documented alternative (parameters of the dependencies rule)
MODELS = {
    "defaults": {},
    "across sessions": {"across_sessions": True},
    "batches independent": {"inherit_batches": False},
    "gap 1 h": {"session_gap": 3600},
}
# where long-term users start, per model: the paper's start, and the stationary one; a model not named: activity
PHASES = {"defaults": ("activity", "cycle"), "across sessions": ("activity", "cycle")}
METRICS = ("wait", "bounded_slowdown")
KEPT = ("wait", "bounded_slowdown", "utilization", "throughput_per_hour", "saturated")
SLOWER = 0.75  # the slower machine: this share of the log's processors


def _metrics(result) -> tuple:
    m = result.metrics
    return (m["wait"]["mean"], m["bounded_slowdown"]["mean"], m["utilization"], m["throughput_per_hour"],
            float(m["saturation"]["saturated"]))


def balance(jobs) -> dict:
    """How the log's users offset each other's weekly work (`wla stats`'s
    weekly_offset)."""
    from wla.archive.analysis.stats.collect import column
    from wla.archive.analysis.stats.offset import weekly_offset
    from wla.archive.kernel.processors import processors

    procs = processors(column(jobs, "procs"), column(jobs, "req_procs"))
    return weekly_offset(column(jobs, "submit"), column(jobs, "run"), procs, column(jobs, "user_id"))


def _run(shared, item) -> tuple:
    """One resampled workload simulated: under one model and phase with
    feedback, or (model None) without it."""
    from wla.sim import simulate

    resamplings, plain, fed = shared
    model, phase, run = item
    w = resamplings[(model or "defaults", phase)].workload(run)
    return _metrics(simulate(w, fed if model else plain))


def _shown_order(item) -> tuple:
    """Without feedback then with it (the defaults), at each start; then the alternatives."""
    (m, ph), _ = item
    if m in ("plain", "defaults"):
        return 0, ph, m != "plain"
    return 1 + list(MODELS).index(m), ph, False


def study(runs: int, workers: int, data: str) -> dict:
    from bench_resample import deps_version
    from wla.archive import open as open_archive
    from wla.archive.store.ingest import ingest
    from wla.sim import from_archive, simulate
    from wla.sim.evaluate.executors import executor
    from wla.sim.evaluate.resample.settings import ResampleSettings
    from wla.sim.evaluate.resample.study import Resampling
    from wla.sim.evaluate.resample.workload import read_source
    from wla.sim.evaluate.validate import distribution
    from wla.sim.settings import SimSettings

    plain, fed = SimSettings(), SimSettings(feedback=True)
    out: dict = {"runs": runs, "settings": {"simulate": plain.as_dict(), "resample": ResampleSettings().as_dict(),
                                            "models": MODELS}, "logs": {}}
    for log in LOGS:
        t = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "study.duckdb"
            with open_archive(path, write=True) as a:
                ingest(a, [Path(data) / f"{log}.swf.gz"])
                names = {m: deps_version(a, log, "deps" if m == "defaults" else f"deps{i}", **p)
                         for i, (m, p) in enumerate(MODELS.items())}
            with open_archive(path) as a:
                sources = {m: read_source(a, name) for m, name in names.items()}
                own = {m: from_archive(a, name) for m, name in names.items()}
            with open_archive(path) as a:  # the log on a slower machine: three quarters of its processors
                slow = from_archive(a, names["defaults"], procs=int(SLOWER * own["defaults"].P))
        entry: dict = {"log": {"plain": dict(zip(KEPT, _metrics(simulate(own["defaults"], plain))))},
                       "balance": balance(sources["defaults"].jobs)}
        for m, w in own.items():
            r = simulate(w, fed)
            entry["log"][m] = dict(zip(KEPT, _metrics(r)))
            entry["log"][m]["with_predecessor"] = int((w.prev >= 0).sum())
            entry["log"][m]["arrived_late"] = r.counts["arrived_late"]
            entry["log"][m]["jobs"] = len(w)
        slow_fed = simulate(slow, fed)
        entry["slower"] = {"procs": slow.P, "jobs": len(slow),
                           "plain": dict(zip(KEPT, _metrics(simulate(slow, plain)))),
                           "defaults": dict(zip(KEPT, _metrics(slow_fed)),
                                            arrived_late=slow_fed.counts["arrived_late"])}
        resamplings = {(m, ph): Resampling(sources[m], ResampleSettings(phase=ph))
                       for m in MODELS for ph in PHASES.get(m, ("activity",))}
        items = [(None, ph, r) for ph in PHASES["defaults"] for r in range(1, runs + 1)]
        items += [(m, ph, r) for (m, ph) in resamplings for r in range(1, runs + 1)]
        values: dict = {}
        with executor(workers) as ex:
            for (m, ph, r), row in ex.results(_run, (resamplings, plain, fed), items):
                values.setdefault((m or "plain", ph), {})[r] = row
        entry["resampled"] = {}
        for (m, ph), rows in sorted(values.items(), key=_shown_order):
            table = np.array([rows[r] for r in range(1, runs + 1)])
            log_value = entry["log"]["plain" if m == "plain" else m]
            saturated = table[:, KEPT.index("saturated")] == 1
            summary = {"saturated": int(saturated.sum())}
            for i, name in enumerate(KEPT[:-1]):
                col = table[~saturated, i]  # as wla validate: saturated workloads left out
                s = {"median": float(np.median(col)), "values": col.tolist()}
                if name in METRICS:
                    d = distribution(col, log_value[name])
                    s |= {"p5": d["p5"], "p95": d["p95"], "log_at": d["percentile"] / 100,
                          "median_over_log": s["median"] / log_value[name],
                          "within": bool(d["p5"] <= log_value[name] <= d["p95"])}
                summary[name] = s
            entry["resampled"][f"{m}, {ph}"] = summary
        out["logs"][log] = entry
        print(f"{log}: {len(items)} simulations in {time.perf_counter() - t:.0f} s", flush=True)
        for key, s in entry["resampled"].items():
            print(f"  {key:32} wait median {s['wait']['median_over_log']:5.2f}x the log, log at "
                  f"p{100 * s['wait']['log_at']:.0f}; bsld {s['bounded_slowdown']['median_over_log']:5.2f}x, "
                  f"log at p{100 * s['bounded_slowdown']['log_at']:.0f}; saturated {s['saturated']}", flush=True)
    return out


def figure(log: str, entry: dict, path: Path) -> None:
    """Per metric, the resampled workloads' means without and with feedback
    (the rule's defaults, the paper's start; and across sessions with the
    stationary start, the model closest to the log), the log's own values
    marked."""
    from matplotlib.figure import Figure
    from wla.archive.kernel.plot import count_axis, save

    fig = Figure(figsize=(11, 4.0), dpi=100)
    axes = fig.subplots(1, 2, gridspec_kw={"left": 0.07, "right": 0.98, "bottom": 0.14, "top": 0.72, "wspace": 0.22})
    shown = (("plain, activity", "plain", "without feedback", "0.55"),
             ("defaults, activity", "defaults", "with feedback", "tab:blue"),
             ("across sessions, cycle", "across sessions", "feedback across sessions, stationary start",
              "tab:orange"))
    for ax, metric, label in zip(axes, METRICS, ("mean wait (s)", "mean bounded slowdown")):
        every = [v for key, _, _, _ in shown for v in entry["resampled"][key][metric]["values"]]
        every += [entry["log"][own][metric] for _, own, _, _ in shown]
        bins = np.geomspace(min(every) / 1.1, max(every) * 1.1, 40)
        for key, own, name, colour in shown:
            ax.hist(entry["resampled"][key][metric]["values"], bins=bins, color=colour, alpha=0.5,
                    label=f"resampled, {name}")
            ax.axvline(entry["log"][own][metric], color=colour, linestyle="--", linewidth=2,
                       label=f"the log, {name}")
        ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("resampled workloads")
        count_axis(ax.yaxis)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(0.06, 0.92), ncol=3, frameon=False)
    fig.suptitle(f"{log}: EASY, {len(entry['resampled']['plain, activity']['wait']['values'])} resampled workloads",
                 x=0.07, y=0.98, ha="left", fontsize=10)
    save(fig, path)


BEGIN, END = "<!-- feedback-study: begin -->", "<!-- feedback-study: end -->"


def _value(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def _own(values: dict) -> list[str]:
    return [_value(values["wait"]), _value(values["bounded_slowdown"]), f"{100 * values['utilization']:.1f}%",
            f"{values['throughput_per_hour']:.3f}"]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def markdown(result: dict) -> str:
    """The docs page's tables: each log's own replay, without feedback and
    with it under each model, also on a slower machine; then one row per log
    and configuration of the resampled workloads."""
    rows = [BEGIN, "", "How each log's users offset each other's weekly work (1: as if independent):", "",
            "| log | variance of the weekly work over the sum of the users' | largest user | its share of the work "
            "| its correlation with the others |", "|---|--:|--:|--:|--:|"]
    rows += [_row([log, f"{b['variance_ratio']:.2f}", str(b["top_user"]), f"{100 * b['top_share']:.1f}%",
                   f"{b['top_correlation']:+.2f}"])
             for log, b in ((log, entry["balance"]) for log, entry in result["logs"].items())]
    rows += ["", "Each log replayed with EASY (means over the measured jobs; throughput in jobs an hour), "
            f"on its machine and on {SLOWER:.0%} of its processors:", "",
            "| log | replay | jobs arriving late | mean wait (s) | mean bsld | utilization | throughput |",
            "|---|---|--:|--:|--:|--:|--:|"]
    for log, entry in result["logs"].items():
        own, slow = entry["log"], entry["slower"]
        rows.append(_row([log, "without feedback", "-"] + _own(own["plain"])))
        rows += [_row([log, f"feedback, {m}", f"{own[m]['arrived_late']:,}"] + _own(own[m])) for m in MODELS]
        rows.append(_row([log, f"without feedback, {slow['procs']} processors", "-"] + _own(slow["plain"])))
        rows.append(_row([log, f"feedback, defaults, {slow['procs']} processors",
                          f"{slow['defaults']['arrived_late']:,}"] + _own(slow["defaults"])))
    rows += ["", f"{result['runs']:,} resampled workloads per row; EASY; wait and bounded slowdown are means "
             "over the measured jobs of each workload; *log at*: the share of the workloads below the log's own "
             "value (the log replayed the same way, ties counting half); throughput: the workloads' median. As "
             "`wla validate` does, the workloads that saturated (counted in the last column) are left out.", "",
            "| log | dependencies | start | feedback | log's wait (s) | resampled median (p5 to p95) | log at "
            "| log's bsld | resampled median (p5 to p95) | log at | throughput | saturated |",
            "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for log, entry in result["logs"].items():
        for key, s in entry["resampled"].items():
            model, phase = key.split(", ")
            own = entry["log"]["plain" if model == "plain" else model]
            cells = [log, "-" if model == "plain" else model, phase, "no" if model == "plain" else "yes"]
            for metric in METRICS:
                m = s[metric]
                cells += [_value(own[metric]),
                          f"{_value(m['median'])} ({_value(m['p5'])} to {_value(m['p95'])})",
                          f"p{100 * m['log_at']:.0f}"]
            cells += [f"{s['throughput_per_hour']['median']:.3f}", str(s["saturated"])]
            rows.append("| " + " | ".join(cells) + " |")
    rows += ["", END]
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--docs", action="store_true", help="write the table into docs/pages/feedback.md")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--docs-from", type=Path, default=None,
                    help="write the docs' tables from this saved study (adding what it lacks), without running it")
    args = ap.parse_args()
    if args.docs_from is not None:
        result = json.loads(args.docs_from.read_text(encoding="utf-8"))
        for log, entry in result["logs"].items():
            if "balance" not in entry:
                entry["balance"] = _log_balance(log, args.data)
        args.docs_from.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        _write_docs(result)
        return
    from wla.sim.warm import warm

    warm()
    result = study(args.runs, args.workers, args.data)
    args.out.mkdir(parents=True, exist_ok=True)
    for log, entry in result["logs"].items():
        figure(log, entry, args.out / f"feedback-{log}.png")
    for entry in result["logs"].values():  # the figures hold the runs; the file, their summaries
        for s in entry["resampled"].values():
            for m in s.values():
                if isinstance(m, dict):
                    m.pop("values")
    (args.out / "feedback-study.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if args.docs:
        _write_docs(result)
    print(markdown(result))


def _log_balance(log: str, data: str) -> dict:
    from wla.archive import open as open_archive
    from wla.archive.store.ingest import ingest
    from wla.archive.store.select import log_query

    with tempfile.TemporaryDirectory() as tmp:
        with open_archive(Path(tmp) / "a.duckdb", write=True) as a:
            ingest(a, [Path(data) / f"{log}.swf.gz"])
            return balance(a.df(log_query(a, log)))


def _write_docs(result: dict) -> None:
    page = ROOT / "docs" / "pages" / "feedback.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text[:text.index(BEGIN)] + markdown(result) + text[text.index(END) + len(END):], encoding="utf-8")


if __name__ == "__main__":
    main()
