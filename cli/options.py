"""Every option and argument of the command line, declared once.

The simulator's, the studies' and the resampling's options are built from
their settings classes (cli/settings.py), which declare each setting once.
Another option passed on to the library restates the library parameter's
default (`from_library`; tests/test_cli_options.py holds them equal); the
few defaults that belong to the command line itself (how output is shown)
are marked `shown_by_cli`.
Files and folders are checked by wla's own code, which says in one line
what is wrong (typer's `readable` check would print a usage box, status 2).
"""
from __future__ import annotations

from typing import Any

import typer
import wla
from wla.archive.context import DEFAULT_PATH, ENV_PATH
from wla.archive.kernel.names import ORIGINAL
from wla.sim.evaluate.resample.settings import ResampleSettings

from .settings import option

# (option, the library parameters it is passed to): tests compare the defaults.
LIBRARY: list[tuple[Any, tuple[str, ...]]] = []
# Options whose default is the command line's own.
CLI_ONLY: list[Any] = []

INGEST = "wla.archive.store.ingest:ingest"
CONVERT = "wla.archive.convert.records:convert"
FLURRIES = "wla.archive.analysis.flurries:flurries"
CAPACITY = "wla.archive.analysis.capacity.choice:capacity_deletions"


def from_library(default: Any, *names: str, source: str, also: tuple[str, ...] = (), **kw: Any) -> Any:
    """An option passed to the library parameter `source`
    ("module:function.parameter"), whose default it restates (a test holds
    the two equal); `also` names other parameters it feeds. The
    simulator's and the studies' options are built from their settings
    classes instead (settings.py)."""
    option = typer.Option(default, *names, **kw)
    LIBRARY.append((option, (source, *also)))
    return option


def shown_by_cli(default: Any, *names: str, **kw: Any) -> Any:
    """An option of the command line's own, never passed to the library."""
    option = typer.Option(default, *names, **kw)
    CLI_ONLY.append(option)
    return option


# The command line's own choices (a format, a metric, a rule), read in any
# case as the settings' choices are (archive/kernel/settings.py): given
# this callback, a value arrives in lower case.
def lowered(value: Any) -> Any:
    if isinstance(value, list):
        return [v.lower() if isinstance(v, str) else v for v in value]
    return value.lower() if isinstance(value, str) else value


# -- every command -------------------------------------------------------------------

Archive = typer.Option(None, "--archive", "-a", readable=False, show_default=False,
                       help=f"Archive file, before or after the command name; it wins over ${ENV_PATH} "
                            f"[default: ${ENV_PATH}, else ./{DEFAULT_PATH}]")


def _print_version(given: bool) -> None:
    if given:
        typer.echo(f"wla {wla.__version__}")
        raise typer.Exit()


ShowVersion = shown_by_cli(False, "--version", is_eager=True, callback=_print_version,
                           help="Print wla's version and exit")
Json = shown_by_cli(False, "--json", help="Print JSON instead of text")
Wide = shown_by_cli(False, "--wide", help="Print tables whole, however wide [default: fit 100 columns, long "
                                          "cells cut with …]")
Quiet = shown_by_cli(False, "--quiet", "-q",
                     help="No progress display on stderr (drawn only on a terminal); before or after "
                          "the command name")

# -- naming logs and versions -------------------------------------------------------

Log = typer.Argument(..., metavar='LOG', help="A log, or a version as LOG@VERSION", show_default=False)
OptionalLog = typer.Argument(None, metavar='LOG', help="A log, or a version as LOG@VERSION", show_default=False)
Version = typer.Option(None, "--version", "-v", show_default=False,
                       help=f"A version of the log (as LOG@VERSION does); '{ORIGINAL}': the log itself")
VersionArg = typer.Argument(None, metavar='VERSION', show_default=False,
                            help="The version, unless LOG names it as LOG@VERSION")
Logs = typer.Argument(None, metavar='LOG', help="Logs or versions (LOG@VERSION) [default: every log]",
                      show_default=False)

# An option whose default is None is not given unless given: the library
# decides (the log's machine size, half the median week, ...).

# -- selecting jobs --------------------------------------------------------------------

Where = typer.Option(None, "--where", help="Only jobs matching this predicate, e.g. \"user=21 and job>100\"")
Exclude = typer.Option(None, "--exclude", help="Leave out jobs matching this predicate")

# -- files -------------------------------------------------------------------------------

OutputFile = typer.Option(None, "--output", "-o", readable=False, help="Write to this file [default: print]")
Plot = typer.Option(None, "--plot", readable=False, metavar="FILE",
                    help="Draw the figure to this file: .png, .svg or .pdf")
QualityPlot = typer.Option(None, "--plot-dir", readable=False, metavar="DIR",
                           help="Draw each log's figures (requests, inter-start gaps, long requests by time of "
                                "submission, size against run time) into this folder as LOG-KIND.png")
Rules = typer.Option(None, "--rules", readable=False, help="Also load the rules in this folder (repeatable)")

# -- ingest, convert, set, sql, export ------------------------------------------------------

Paths = typer.Argument(..., metavar='PATH', readable=False, help=".swf / .swf.gz files and folders")
Lenient = from_library(False, "--lenient", source=f"{INGEST}.lenient",
                       help="Keep bad lines in the rejects table instead of refusing the file")
Replace = from_library(False, "--replace", source=f"{INGEST}.replace", also=(f"{CONVERT}.replace",),
                       help="Replace a log of the same name holding a different file")
Name = typer.Option(None, "--name", help="Log name (one file only) [default: the file's name]")
Workers = from_library(2, "--workers", source=f"{INGEST}.workers", help="Files parsed at once")
Records = typer.Argument(..., metavar='FILE', readable=False,
                         help="Accounting records: a CSV with named columns, or sacct --parsable2 output")
RecordsFormat = typer.Option(..., "--format", "-f", callback=lowered, help="csv or sacct")
KeepSwf = typer.Option(None, "--out", "-o", readable=False, help="Also keep the SWF file here")
TimeZone = typer.Option(None, "--tz", help="Time zone of times written without one, e.g. Europe/Paris")
MaxProcs = typer.Option(None, "--max-procs", help="Processors of the machine (the header's MaxProcs)")
Fact = typer.Argument(..., metavar='FACT', help="max-procs, unix-start-time or time-zone-string")
Value = typer.Argument(..., metavar='VALUE')
NoteText = typer.Argument(None, metavar='TEXT', show_default=False,
                          help="What you know of the log, one line [default: list the log's notes]")
NoteDate = shown_by_cli(None, "--date", show_default=False,
                        help="The day the note is of, YYYY-MM-DD [default: today]")
Query = typer.Argument(..., metavar='QUERY', help="One read-only SQL statement")
SqlFormat = shown_by_cli("table", "--format", "-f", callback=lowered, help="table, csv, json or parquet")
SqlLimit = shown_by_cli(100, "--limit", help="Rows the table shows on the terminal, then how many more (0: all)")
SqlAll = shown_by_cli(False, "--all", help="Show every row (as --limit 0)")
ReadFiles = from_library(False, "--read-files", source="wla.archive.store.file:open.read_files",
                         help="Let the query read files (read_csv, read_parquet, ...)")
ExportTo = typer.Option(..., "--output", "-o", readable=False,
                        help="FILE.swf, FILE.swf.gz (the file as ingested), FILE.parquet or FILE.csv")
ExportQuery = typer.Option(None, "--query", help="Export this query's rows instead of a log (Parquet or CSV)")

# -- analyses -----------------------------------------------------------------------------

Capacity = typer.Option(None, "--capacity", help="Processors of the machine [default: the log's machine size]")
Candidate = from_library(1.0, "--candidate", source=f"{FLURRIES}.candidate",
                         help="A user-week is a candidate at this many times the average weekly total")
Large = from_library(5.0, "--large", source=f"{FLURRIES}.large", help="... and a large flurry at this many times")
Dominance = from_library(0.25, "--dominance", source=f"{FLURRIES}.dominance",
                         help="A user with more than this share of the log's jobs dominates it")
Top = from_library(3, "--top", source=f"{FLURRIES}.top", help="Top users shown per candidate week or day")
Level = typer.Option(None, "--level", help="Utilization to stay above [default: half the median week]")
Slack = from_library(0.0, "--slack", source=f"{CAPACITY}.slack",
                     also=("wla.archive.analysis.capacity.report:capacity_report.slack",),
                     help="Seconds of overlap ignored as timing slop")
Threshold = from_library(0.05, "--threshold", source=f"{CAPACITY}.threshold",
                         help="Largest share of jobs or utilization a deletion may remove")
Solve = shown_by_cli(True, "--solve/--no-solve",
                     help="Also solve the integer programs and show the deletion the rule would make")
NodeLimit = from_library(5000, "--node-limit", source=f"{CAPACITY}.node_limit",
                         help="Branch-and-bound nodes HiGHS may search per program")
SizeLimit = from_library(20000, "--size-limit", source=f"{CAPACITY}.size_limit",
                         help="Nonzeros of the largest program solved whole; larger ones are solved in windows")

# -- cleaning -------------------------------------------------------------------------------

RuleName = typer.Argument(None, metavar='NAME', help="Show this rule in full", show_default=False)
Recipe = typer.Argument(..., metavar='RECIPE', readable=False, help="Recipe (TOML): log, version, [[step]]s")
VersionOrOriginal = typer.Argument(..., metavar='VERSION', help=f"A version, or '{ORIGINAL}'")
Limit = shown_by_cli(20, "--limit", help="Rows of detail to show (0: all; --json gives every row)")
Job = typer.Argument(..., metavar='JOB', help="Job number")
PublishTo = typer.Option(..., "--output", "-o", readable=False, help="FILE.swf or FILE.swf.gz")

# -- simulation ---------------------------------------------------------------------------------

SimLog = typer.Argument(None, metavar='LOG', help="Log to replay, or LOG@VERSION (or give --query)", show_default=False)
SimQuery = typer.Option(None, "--query", help="Replay the rows of this read-only SQL query")
Save = typer.Option(None, "--save", help="Store the schedule: a table name, or FILE.parquet")
Force = from_library(False, "--force", source="wla.sim.save:check_target.force",
                     also=("wla.sim.save:save_frame.force", "wla.sim.save:save.force"),
                     help="Let --save FILE.parquet replace a file that is not a result wla saved")
BatchMeans = typer.Option(None, "--batch-means", metavar="K", show_default=False,
                          help="Also cut the measured jobs into K consecutive batches: each metric's batch means, "
                               "their 95% interval and lag-1 autocorrelation")
BatchBy = from_library("jobs", "--batch-by", source="wla.sim.evaluate.batch_means:result_batch_means.by",
                       callback=lowered, help="Batches of equal job counts (jobs) or equal spans of time (time)")
EspProcs = typer.Option(..., "--procs", help="Processors of the machine")
Mix = typer.Option(None, "--mix", readable=False, show_default=False,
                   help="Job mix CSV: type,fraction,run,count; or `published` (the 230-job ESP table) "
                        "[default: `example`, an example mix]")
FullFirst = from_library(False, "--full-first", source="wla.sim.esp:run_esp.full_first",
                         help="Full-configuration jobs first: started as soon as possible, never delayed "
                              "(ESP's priority rule; fcfs or easy)")
Boot = from_library(0.0, "--boot", source="wla.sim.esp:run_esp.boot", also=("wla.sim.esp:esp_efficiency.boot",),
                    help="Boot time (s): in ESP's score, and reported on its own")
BetweenBoots = typer.Option(None, "--between-boots", show_default=False,
                            help="Mean time between boots (s): the score charges the test its share of a boot")
EspSeeds = typer.Option(None, "--seeds", show_default=False,
                        help="Run N seeds from --seed on: the scores' mean, spread and percentiles")
TwoStage = shown_by_cli(False, "--two-stage",
                        help="The critique's two-stage test: without priority, then full jobs first; "
                             "each class's waits")
FullAt = typer.Option([], "--full-at", show_default=False,
                      help="Arrival time (s) of a full-machine job; once per job")

# -- shaking -------------------------------------------------------------------------------------

SHAKE = "wla.sim.evaluate.shake:shake"
Absolute = shown_by_cli(False, "--absolute", help="Absolute shaking: up to the degree whatever the value")
ShakeWorkers = typer.Option(None, "--workers", help="Local processes [default: the cores; 1: this process]")
Dask = typer.Option(None, "--dask", metavar="ADDRESS", help="Run on this Dask scheduler, e.g. tcp://host:8786")
ShakeSave = typer.Option(None, "--save", help="Store one row per run: a table name, or FILE.parquet")
ShakePlot = typer.Option(None, "--plot", readable=False, metavar="FILE",
                         help="Draw the histogram of --metric to this file: .png, .svg or .pdf")
Metric = from_library('bounded_slowdown_mean', "--metric", source="wla.sim.evaluate.shake_plot:plot_shake.metric",
                      callback=lowered, help="The metric --plot draws (the text shows every metric)")
RunIndex = typer.Option(None, "--run", help="With --save-workload: the run whose workload is written (0: original)")
SaveWorkload = typer.Option(None, "--save-workload", readable=False,
                            help="Write run --run's workload as FILE.swf (or .swf.gz), and simulate nothing")

# -- sweeps ---------------------------------------------------------------------------------------

Grid = typer.Option([], "--grid", show_default=False, metavar="NAME=VALUES",
                    help="A parameter and its values, e.g. load=0.5:0.95:0.01, estimate=last:1..30, "
                         "policy=easy,conservative, degree=1,10,30,60,300 (load, estimate, badness, policy, "
                         "procs, overrun, rb_npw, and the shaking's degree, jobs and attribute); several multiply")
SweepConfig = typer.Option(None, "--config", readable=False, help="Read the sweep from this TOML file")
SweepSave = typer.Option(None, "--save", help="Store one row per (point, run): a table name, or FILE.parquet")
Resume = shown_by_cli(False, "--resume", help="Finish the interrupted sweep that --save names")
SweepPlot = typer.Option(None, "--plot", readable=False, metavar="FILE",
                         help="Draw --metric against the first parameter (a sweep of degree and jobs: the span, "
                              "distance and concentration maps) to this file: .png, .svg or .pdf")
SweepHistograms = typer.Option(None, "--histograms", readable=False, metavar="FILE",
                               help="Draw per point the distribution of its runs (measured jobs, measured "
                                    "utilization, the first --metric, mean wait; the resampling paper's Fig. 16) "
                                    "to this file: .png, .svg or .pdf")
SweepPlotRuns = typer.Option(None, "--plot-runs", readable=False, metavar="FILE",
                             help="Draw each point's runs of --metric relative to its single run (= 100), one "
                                  "curve per value of the last grid, to this file: .png, .svg or .pdf")
SweepMetric = shown_by_cli(["bounded_slowdown_mean"], "--metric", callback=lowered,
                           help="The metric the text shows per point and --plot draws; give it again for more "
                                "(the curves of --plot draw the first)")
Resample = shown_by_cli(False, "--resample",
                        help="Runs are resampled workloads of the log (user-level resampling), not shaken ones; "
                             "--grid load and rb_npw set the resampling")

# -- comparisons ----------------------------------------------------------------------------------

_SIDE = ("What sets {} apart, KEY=VALUE (repeatable): version, exclude, procs, policy, estimate, overrun, "
         "load, tau, warmup, ties, passes, feedback (true or false)")
SideA = typer.Option([], "--a", show_default=False, metavar="KEY=VALUE", help=_SIDE.format("A"))
SideB = typer.Option([], "--b", show_default=False, metavar="KEY=VALUE", help=_SIDE.format("B"))
Degrees = typer.Option(None, "--degrees", metavar="LIST",
                       help="Compare at each of these shaking degrees, e.g. 60,300,900: one table of --metric, "
                            "the single runs then one column per degree (the shaking paper's Table II); "
                            "it takes the place of --degree")
DegreesMetric = from_library('bounded_slowdown_mean', "--metric",
                             source="wla.sim.evaluate.compare_degrees:compare_degrees.metric", callback=lowered,
                             help="With --degrees: the metric of the table")

CompareResample = shown_by_cli(False, "--resample",
                               help="A and B run on the same resampled workloads of the log (user-level "
                                    "resampling, --runs of them), not on shaken ones; --load, --rb-npw, --weeks, "
                                    "--phase, --rb and --rb-from-flurries shape the workloads as in `wla resample`")

# -- users and resampling -------------------------------------------------------------------------

POOLS = "wla.sim.evaluate.resample.workload:read_source"
RESAMPLE = "wla.sim.evaluate.resample.workload:resample"
LongTermWeeks = from_library(12.0, "--long-term-weeks", source=f"{POOLS}.long_term_weeks",
                             help="A user is long-term when its first to last submit spans this many weeks")
EdgeWeeks = from_library(4.0, "--edge-weeks", source=f"{POOLS}.edge_weeks",
                         help="A temporary user wholly within this many weeks of the log's start or end is discarded")
RareBehavior = typer.Option([], "--rb", show_default=False, metavar="USER:BEGIN:END",
                            help="Move USER's jobs submitted in [BEGIN, END] (seconds or dates, e.g. "
                                 "42:1998-05-01:1998-05-07) to the rare-behavior pool (repeatable)")
RareFromFlurries = from_library(False, "--rb-from-flurries", source=f"{RESAMPLE}.rb_from_flurries",
                                help="Take the rare-behavior triples from the candidates of `wla flurries`")
Weeks = option(ResampleSettings, "weeks")
RbNpw = option(ResampleSettings, "rb_npw")
ResampleLoad = option(ResampleSettings, "load")
Phase = option(ResampleSettings, "phase")
ResampleMix = typer.Option([], "--mix", show_default=False, metavar="LOG",
                           help="Mix the users of another log (or LOG@VERSION) in, on the machine --procs "
                                "(repeatable; reproductions: Baselines)")
MixProcs = from_library(None, "--procs", source="wla.sim.evaluate.resample.store:resample_log.procs",
                        show_default=False, help="Processors of the mixed workload's machine (with --mix)")
ResampleName = typer.Option(None, "--name", show_default=False,
                            help="Store the workload in the archive as this log [default: LOG-rSEED]")

# -- statistics and validation --------------------------------------------------------------------

StackMatch = from_library('stack', "--stack-match", source="wla.sim.evaluate.validate:log_statistics.match",
                          also=("wla.sim.evaluate.validate:validate.match",
                                "wla.archive.analysis.stats.collect:workload_statistics.match",
                                "wla.archive.analysis.stats.locality:stack_depth.match"),
                          metavar="RULE", callback=lowered,
                          help="When a run or requested time matches one on the locality stack: stack (within 5% "
                               "of the stacked value, the resampling paper's reading) or ratio (the smaller over "
                               "the larger at least 0.95)")
HurstFit = from_library('points', "--hurst-fit", source="wla.sim.evaluate.validate:log_statistics.hurst_fit",
                        also=("wla.sim.evaluate.validate:validate.hurst_fit",
                              "wla.archive.analysis.stats.collect:workload_statistics.hurst_fit",
                              "wla.archive.analysis.stats.hurst:hurst_rs.fit"), metavar="FIT", callback=lowered,
                        help="The line through the pox plot: points (through every block's R/S) or means "
                             "(through each block size's mean log R/S, every time scale weighing the same)")
StatsPlot = typer.Option(None, "--plot-dir", readable=False, metavar="DIR",
                         help="Draw the figures (pox plot, bins, per-user distributions, cycles) into this folder")
StatsFrom = from_library(None, "--from", source="wla.sim.evaluate.validate:log_statistics.start",
                         metavar="WHEN", show_default=False,
                         help="Only the jobs submitted from WHEN on: a date YYYY-MM-DD or 'YYYY-MM-DD HH:MM[:SS]' "
                              "(the log's local time) or seconds on the log's clock")
StatsTo = from_library(None, "--to", source="wla.sim.evaluate.validate:log_statistics.end",
                       metavar="WHEN", show_default=False,
                       help="Only the jobs submitted before WHEN (a date or seconds, as --from)")
StatsYears = from_library(None, "--years", source="wla.sim.evaluate.validate:log_statistics.years",
                          metavar="A[:B]", show_default=False,
                          help="Only the jobs submitted in year A (to B) of the workload, counted in 365-day "
                               "years from its first submit")
ValidateRuns = from_library(1000, "--runs", source="wla.sim.evaluate.validate:validate.runs",
                            help="Resampled workloads (the log itself is measured too)")
ValidateSeed = from_library(0, "--seed", source="wla.sim.evaluate.validate:validate.seed",
                            help="Seed: workload i is resampled with a seed drawn from (seed, i) alone")
ValidatePlot = typer.Option(None, "--plot-dir", readable=False, metavar="DIR",
                            help="Draw histograms.png (the log marked), pox.png and the overlays of the log and its "
                                 "first workloads (overlay-users.png, overlay-bins.png) into this folder")
OverlayVary = typer.Option(None, "--overlay", metavar="NAME=VALUES",
                           help="Overlay workloads at each value of a resampling setting (load or rb_npw, "
                                "e.g. rb_npw=0,0.125,0.25) instead of the settings given; drawn with --plot-dir")
OverlayRuns = from_library(8, "--overlay-runs", source="wla.sim.evaluate.overlay:overlay.runs",
                           help="Resampled workloads drawn over the log in the overlay figures (each value of "
                                "--overlay: as many)")
NormalizeUsers = from_library(False, "--normalize-users",
                              source="wla.sim.evaluate.overlay_plot:plot_overlay.normalized",
                              help="Draw the ranked users of the overlay over 0..1, so workloads with more users "
                                   "than the log compare with it")
ValidateSave = typer.Option(None, "--save", help="Store one row per workload: a table name, or FILE.parquet")

# -- session similarity ---------------------------------------------------------------------------

SESSIONS = "wla.archive.analysis.stats.sessions:session_report"
SessionAttributes = typer.Option(None, "--attribute", metavar="ATTRIBUTE", callback=lowered,
                                 help="procs, req_time or run (repeatable) [default: all three, the paper's "
                                      "Tables II, III and IV]")
SessionDistances = from_library(10, "--distances", source=f"{SESSIONS}.distances", metavar="D",
                                help="The curves' distances: 0 to D sessions apart (at least 2, which the "
                                     "tables compare)")
SessionStatistic = from_library("mean", "--statistic", source=f"{SESSIONS}.statistic", callback=lowered,
                                metavar="STATISTIC",
                                help="Two sessions' similarity over their job pairs: mean (of min/max) or "
                                     "identical (the share of pairs of equal values)")
SessionWeigh = from_library("pairs", "--weigh", source=f"{SESSIONS}.weigh", callback=lowered, metavar="PAIRS",
                            help="A user's similarity at a distance: the mean over all its job pairs (pairs, large "
                                 "sessions weighing more) or over its session pairs (sessions)")
SessionShuffle = from_library("jobs", "--shuffle", source=f"{SESSIONS}.shuffle", callback=lowered, metavar="WHAT",
                              help="The null model beside the log: jobs (each user's jobs mixed among its "
                                   "sessions, the paper's) or sessions (each user's sessions in a random order)")
SessionRepeats = from_library(1000, "--repeats", source=f"{SESSIONS}.repeats",
                              help="Job shuffles for the distance-0 null distribution (Fig. 2); 0: none")
SessionSeed = from_library(0, "--seed", source=f"{SESSIONS}.seed",
                           help="Seed of the shuffles: the same seed gives the same numbers")
SessionGap = from_library(1200.0, "--session-gap", source=f"{SESSIONS}.gap", metavar="SECONDS",
                          help="A job opens a new session when it comes more than this after the latest end of "
                               "the user's earlier jobs")

# -- doctor ---------------------------------------------------------------------------------------

Warm = from_library(False, "--warm", source="wla.sim.doctor:doctor.warm",
                    help="Compile what numba's cache lacks now, rather than on its first use")

# -- pull -----------------------------------------------------------------------------------------

PULL = "wla.archive.pull.pull:pull"
PullNames = typer.Argument(None, metavar="NAME", show_default=False,
                           help="Logs of the catalog, e.g. KTH-SP2-1996-2.1-cln (or NAME.swf.gz)")
PullAll = from_library(False, "--all", source=f"{PULL}.all", help="Every log of the catalog")
PullUrl = typer.Option(None, "--url", metavar="URL", show_default=False,
                       help="Base URL the catalog's paths are below [default: $WLA_PULL_URL, else the "
                            "Parallel Workloads Archive's site]")
PullDir = typer.Option(None, "--dir", readable=False, metavar="DIR", show_default=False,
                       help="Folder the .gz files are downloaded to and kept in [default: pwa beside the archive]")
PullDeadline = from_library(600, "--deadline", source=f"{PULL}.deadline", metavar="SECONDS",
                            help="Seconds one file may take, every attempt and wait included; then it is given up")
PullMinRate = from_library(1024, "--min-rate", source=f"{PULL}.min_rate", metavar="BYTES",
                           help="An attempt averaging fewer bytes a second over --rate-window is ended (0: no minimum)")
PullRateWindow = from_library(30, "--rate-window", source=f"{PULL}.rate_window", metavar="SECONDS",
                              help="Seconds --min-rate is averaged over")
PullReadTimeout = from_library(30, "--read-timeout", source=f"{PULL}.read_timeout", metavar="SECONDS",
                               help="Seconds one read may wait for a byte before the attempt fails")
PullMaxSize = from_library(1073741824, "--max-size", source=f"{PULL}.max_size", metavar="BYTES",
                           help="Largest file taken for a log the catalog gives no size for (1 GiB)")

# -- diff of any two logs -------------------------------------------------------------------------

DiffA = typer.Argument(..., metavar='A', show_default=False,
                       help="A log or version (LOG, LOG@VERSION); with V2 given, the log whose versions are compared")
DiffB = typer.Argument(..., metavar='B', show_default=False,
                       help=f"Another log or version; with V2 given, a version of A, or '{ORIGINAL}'")
DiffV2 = typer.Argument(None, metavar='V2', show_default=False,
                        help=f"Compare two versions of the log A by line and rule: B and V2 (a version, or "
                             f"'{ORIGINAL}')")

# -- site -----------------------------------------------------------------------------------------

SiteTo = typer.Option(..., "--output", "-o", readable=False, metavar="DIR",
                      help="The folder to write the site into: new, empty, or a site wla wrote before")
