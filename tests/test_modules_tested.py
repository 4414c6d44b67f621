"""Every module of wla has a test that names it, and the tests mirror the
packages: a module `archive/store/ingest.py` is tested in
`tests/archive/store/`, the folder that mirrors its package.

A test file names a module when it imports it, writes its dotted name
(`wla.sim.heap`) or its path (`sim/heap.py`), or is named after it in the
mirroring folder (`tests/archive/store/test_figures.py` for
`archive/store/figures.py`). A module tested only through another (a
command, a package's face, a compiled caller) says so in WHY_NOT, naming
the tests that reach it; a reason that is no longer needed, or that names a
test file that is gone, fails too.

And the tree itself: pytest imports each test file by its bare name
(rootdir-relative, no __init__.py), so no two may share one; and the
helpers tests share are modules (real_logs.py, made_jobs.py), never
`conftest`, which names whichever conftest.py pytest loaded last."""
from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
PACKAGES = ("archive", "sim", "cli")

_COMMANDS = "tests/test_readme.py runs every command's README example and compares what it prints"

# module (path from the repository's root) -> why no test names it
WHY_NOT = {
    "archive/analysis/capacity/report.py":
        "the usage profile, the cliques and the report behind capacity_report and daily_utilization, "
        "which tests/archive/analysis/capacity/test_capacity.py imports from the package's face and "
        "checks on hand-made logs and against an independent usage sweep",
    "archive/analysis/stats/users.py":
        "user_statistics and job_ends, imported from the package's face by "
        "tests/archive/analysis/stats/test_stats.py, which works sessions out by hand",
    "archive/clean/rules/checks.py":
        "the query against the schema and its lineage: parse_rule, through the package's face, in "
        "tests/archive/clean/rules/test_rules.py (unknown tables and columns, outputs, reads and writes)",
    "archive/clean/rules/fingerprints.py":
        "rule_fingerprint and fingerprint through the package's face: "
        "tests/archive/clean/rules/test_fingerprint.py changes each part a fingerprint covers",
    "archive/clean/rules/header.py":
        "a rule file's header and query, through parse_rule in tests/archive/clean/rules/test_rules.py",
    "archive/clean/rules/registry.py":
        "load_rules, record and recorded through the package's face, in "
        "tests/archive/clean/rules/test_rules.py and tests/archive/clean/rules/test_fingerprint.py",
    "archive/clean/rules/rule.py":
        "Rule and parse_rule through the package's face, in tests/archive/clean/rules/test_rules.py",
    "archive/convert/sacct.py":
        "the sacct format, read through convert in tests/archive/convert/test_convert.py "
        "(steps folded into jobs, heterogeneous and array jobs, memory units)",
    "archive/pull/download.py":
        "one file over HTTP, through pull against tests/pull_server.py: whole, resumed with a Range, "
        "cut, refused (tests/archive/pull/test_pull.py, tests/archive/pull/test_hostile_pull.py)",
    "archive/store/derived.py":
        "a resampled workload stored as a log of its own, through store_resampled in "
        "tests/sim/evaluate/resample/test_resample.py",
    "archive/store/file.py":
        "Archive and open, which every test reaches as wla.archive.open "
        "(the lock in tests/archive/store/test_faults.py, the read-only connection in "
        "tests/archive/store/test_query_guard.py)",
    "sim/conservative.py":
        "the compiled conservative core, reached only through schedule: "
        "tests/sim/test_sim_conservative.py holds it to the reference and a naive third implementation "
        "job by job",
    "sim/evaluate/shake_plot.py": "drawn by `wla shake --plot` in tests/cli/test_shake_cli.py",
    "sim/evaluate/sweep_plot.py":
        "drawn by `wla sweep --plot` in tests/sim/evaluate/test_sweep.py (a PNG, the same bytes twice)",
    "sim/evaluate/validate_plot.py": "drawn by `wla validate --plot-dir` in tests/sim/evaluate/test_validate.py",
    "cli/analysis.py":
        "the commands quality, flurries, load and capacity: tests/cli/test_cli_analysis.py compares "
        f"what they print with their Python functions; {_COMMANDS}",
    "cli/cleaning.py":
        "the commands rules, clean, versions, recipe, diff, why, provenance and publish: "
        f"tests/cli/test_cli_context.py and tests/cli/test_cli_refusals.py run them; {_COMMANDS}",
    "cli/doctor.py": f"the command doctor: tests/test_startup.py runs it on a cold and a warm cache; {_COMMANDS}",
    "cli/evaluation.py":
        "the commands shake, sweep and compare: tests/cli/test_shake_cli.py, "
        f"tests/sim/evaluate/test_sweep.py and tests/sim/evaluate/test_compare.py run them; {_COMMANDS}",
    "cli/logs.py":
        "the commands ingest, convert, ls, info, set, sql and export: tests/archive/store/test_catalog_sql.py "
        f"and tests/cli/test_cli_context.py run them; {_COMMANDS}",
    "cli/pull.py": f"the command pull: tests/archive/pull/test_pull.py runs it; {_COMMANDS}",
    "cli/resampling.py":
        "the commands users, resample, stats and validate: tests/cli/test_resample_cli.py and "
        f"tests/sim/evaluate/test_validate.py run them; {_COMMANDS}",
    "cli/simulation.py":
        f"the commands simulate and esp: tests/cli/test_sim_cli.py runs them; {_COMMANDS}",
    "cli/text.py": f"every command's text form: {_COMMANDS}",
    "cli/website.py": f"the command site: tests/cli/site/test_site.py runs it; {_COMMANDS}",
    "cli/site/distributions_plot.py":
        "a log page's figure, drawn when tests/cli/site/test_site.py builds the site (every image drawn "
        "in a browser: tests/cli/site/test_site_browser.py)",
    "cli/site/figures.py":
        "a log's figures or why one is missing, as tests/cli/site/test_site.py finds them on the pages",
    "cli/site/folder.py":
        "the site's folder and manifest: tests/cli/site/test_hostile_site.py attacks it",
    "cli/site/log_page.py": "a log's page, read back by tests/cli/site/test_site.py",
    "cli/site/render.py": "the templates filled, every page of tests/cli/site/test_site.py",
    "cli/site/version_page.py": "a version's page and its decisions, read back by tests/cli/site/test_site.py",
}

_TEST_PATH = re.compile(r"tests/[\w/]+\.py")


def modules() -> list[Path]:
    """Every module of wla's Python packages, from the repository's root."""
    return sorted(p.relative_to(ROOT) for top in PACKAGES for p in (ROOT / top).rglob("*.py")
                  if p.name != "__init__.py")


def _test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if p.resolve() != Path(__file__).resolve())


def _dotted(module: Path) -> str:
    return "wla." + ".".join(module.with_suffix("").parts)


def _imported(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


@cache
def named() -> frozenset[Path]:
    """The modules some test file names."""
    texts, imported = [], set()
    for path in _test_files():
        text = path.read_text(encoding="utf-8")
        texts.append(text)
        imported |= _imported(ast.parse(text))
    everything = "\n".join(texts)
    out = set()
    for module in modules():
        dotted = _dotted(module)
        mirrored = TESTS / module.parent / f"test_{module.stem}.py"
        if (dotted in imported or re.search(re.escape(dotted) + r"\b", everything)
                or str(module) in everything or mirrored.is_file()):
            out.add(module)
    return frozenset(out)


def test_every_module_is_named_by_a_test_or_says_why():
    untested = [m for m in modules() if m not in named() and str(m) not in WHY_NOT]
    assert not untested, "modules no test names: add a test in the folder that mirrors the package, " \
        "or a reason in WHY_NOT\n" + "\n".join(f"{m}: tests/{m.parent}/test_{m.stem}.py" for m in untested)


def test_every_reason_is_about_a_module_still_untested():
    known = {str(m) for m in modules()}
    gone = [m for m in WHY_NOT if m not in known]
    assert not gone, f"WHY_NOT names modules that are gone: {gone}"
    tested = sorted(str(m) for m in named() if str(m) in WHY_NOT)
    assert not tested, f"a test names these now; take them out of WHY_NOT: {tested}"


def test_the_tests_a_reason_names_exist():
    missing = [f"{m}: {t}" for m, why in WHY_NOT.items() for t in _TEST_PATH.findall(why)
               if not (ROOT / t).is_file()]
    assert not missing, "\n".join(missing)


def test_the_test_folders_mirror_the_packages():
    folders = {p.parent.relative_to(TESTS) for p in _test_files() if p.parent != TESTS}
    packages = {p.parent.relative_to(ROOT) for top in PACKAGES for p in (ROOT / top).rglob("__init__.py")}
    assert folders <= packages, f"test folders that are no package: {sorted(map(str, folders - packages))}"


def test_no_two_test_files_share_a_name():
    seen: dict[str, list[str]] = {}
    for path in TESTS.rglob("*.py"):
        if path.name != "conftest.py" and "fixtures" not in path.relative_to(TESTS).parts:
            seen.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert not {n: ps for n, ps in seen.items() if len(ps) > 1}


def test_no_test_imports_conftest():
    wrong = [str(p.relative_to(ROOT)) for p in TESTS.rglob("*.py")
             if any(n == "conftest" or n.startswith("conftest.") for n in _imported(ast.parse(p.read_text())))]
    assert not wrong, f"import real_logs or made_jobs instead of conftest: {wrong}"
