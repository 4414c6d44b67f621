"""Building a cleaned version: one view per recipe step, every decision recorded.

The version is then a log like any other (a row in logs, its kept jobs in
jobs, its header lines with the notes of its steps), so every command reads
it the same way, and its views say how it was made.
"""
from __future__ import annotations

import json
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import wla
from sqlglot import exp

from ..kernel.clock import LogClock
from ..kernel.errors import InvalidName, LogExists, LogNotFound, RecipeError, WlaError
from ..kernel.names import check_log_ref, check_version_name
from ..kernel.progress import Parts, Progress, tell, within
from ..kernel.statements import create_table, create_view, delete_where, drop, insert_row, insert_select, run
from ..kernel.statements import table as named_table
from ..store.figures import keep_figures
from ..store.file import Archive, one_line, transaction
from ..swf.instants import job_problem, outside
from .bind import bind, params_text
from .computed import computed
from .recipe import Recipe, read_recipe, recipe_hash, step_params
from .rules import JOB_COLUMNS, Rule, fingerprint_v1, load_rules, record, recorded


@dataclass(frozen=True)
class StepResult:
    step: int
    rule: str
    rule_version: int
    fingerprint: str
    params: dict
    view: str
    jobs_in: int
    dropped: int
    changed: int
    note: str | None
    sets: dict = field(default_factory=dict)  # facts of the log the step sets (machine_size)


@dataclass(frozen=True)
class BuildResult:
    name: str  # LOG@VERSION
    status: str  # 'built', 'rebuilt' or 'unchanged'
    recipe_hash: str
    jobs_in: int
    jobs: int
    steps: tuple[StepResult, ...]
    seconds: float


def step_view(name: str, step: int, rule: str) -> str:
    """The view of one step: `"LOG@VERSION/2-recover"`."""
    return f"{name}/{step}-{rule}"


def _log_row(con: duckdb.DuckDBPyConnection, name: str) -> dict:
    # ingested_at stays in the database: a TIMESTAMPTZ in pandas needs pytz.
    rows = con.execute("SELECT * EXCLUDE (ingested_at) FROM logs WHERE name = ?", [name]).df()
    if rows.empty:
        raise LogNotFound(f"no log named {name!r}")
    return {k: (None if pd.isna(v) else v) for k, v in rows.iloc[0].to_dict().items()}


def _base(con: duckdb.DuckDBPyConnection, log: dict) -> dict:
    """The original log a log or version comes from."""
    if log["kind"] != "version":
        return log
    base_id = con.execute("SELECT base_log_id FROM versions WHERE log_id = ?", [log["log_id"]]).fetchall()[0][0]
    return _log_row(con, con.execute("SELECT name FROM logs WHERE log_id = ?", [base_id]).fetchall()[0][0])


def _rule_for(con, rules: dict[str, Rule], step, where: str) -> Rule:
    if step.rule not in rules:
        raise RecipeError(f"{where}: no rule named {step.rule!r} (rules: {', '.join(rules)})")
    rule = rules[step.rule]
    if step.rule_version is None or step.rule_version == rule.version:
        return rule
    old = recorded(con, step.rule, step.rule_version)
    if old is None:
        raise RecipeError(f"{where}: rule {step.rule} version {step.rule_version} is not in the "
                          f"archive (the file has version {rule.version})")
    return old


def drop_version(con: duckdb.DuckDBPyConnection, log_id: int) -> None:
    """Remove a version's rows and views (inside the caller's transaction)."""
    name = con.execute("SELECT name FROM versions WHERE log_id = ?", [log_id]).fetchall()
    if name:
        run(con, drop("VIEW", name[0][0], if_exists=True))
    for (view,) in con.execute("SELECT view_name FROM steps WHERE version_id = ? ORDER BY step DESC",
                               [log_id]).fetchall():
        run(con, drop("VIEW", view, if_exists=True))
    for table, key in (("jobs", "log_id"), ("log_figures", "log_id"), ("header_lines", "log_id"), ("logs", "log_id"),
                       ("versions", "log_id"), ("steps", "version_id"), ("decisions", "version_id"),
                       ("computed_drops", "version_id")):
        run(con, delete_where(table, key), [log_id])


def _decisions(rule: Rule, source: exp.Expression, out: str, meta: list) -> exp.Insert | None:
    """INSERT of the step's decisions: a drop per dropped job, a change per
    field whose value differs, each with the rule's reason. `source` holds
    the step's input rows, `out` the rule's output rows."""
    fixed = [exp.Literal.number(m) if isinstance(m, int) else exp.Literal.string(m) for m in meta]
    o, i = (lambda c: exp.column(c, "o")), (lambda c: exp.column(c, "i"))

    def rows(action: str, field: exp.Expression, old: exp.Expression, new: exp.Expression,
             reason: exp.Expression, where: exp.Expression) -> exp.Select:
        return (exp.select(*[f.copy() for f in fixed], o("line_no"), i("job"), exp.Literal.string(action),
                           field, old, new, reason)
                .from_("o").join("i", using=["line_no"]).where(where))

    parts = []
    dropping = "_drop" in rule.outputs
    if dropping:
        parts.append(rows("drop", exp.null(), exp.null(), exp.null(), o("_drop"),
                          exp.not_(o("_drop").is_(exp.null()))))
    for col in rule.writes:
        why = o(f"_why_{col}") if f"_why_{col}" in rule.outputs else exp.null()
        default = exp.Literal.string(f"{col} changed by rule {rule.name}")
        differs = exp.NullSafeNEQ(this=o(col), expression=i(col))
        parts.append(rows(rule.action, exp.Literal.string(col), i(col), o(col),
                          exp.func("coalesce", why, default),
                          exp.and_(o("_drop").is_(exp.null()), differs) if dropping else differs))
    if not parts:
        return None
    query = exp.union(*parts, distinct=False) if len(parts) > 1 else parts[0]
    query = (query.with_("i", as_=exp.select("*").from_(source.copy()))
             .with_("o", as_=exp.select("*").from_(named_table(out))))
    return insert_select("decisions", query)


def _notes(name: str, base: str, version: str, rhash: str, steps: list[StepResult]) -> list[str]:
    lines = [f"; Note: Cleaned version {version} of {base} ({name}), made by wla {wla.__version__}; "
             f"recipe sha256 {rhash}"]
    for s in steps:
        params = f" with {params_text(s.params)}" if s.params else ""
        size = (f"; machine size set to {s.sets['machine_size']} (the MaxProcs line above; "
                f"{s.sets.get('was') or 'none'} before)" if "machine_size" in s.sets else "")
        lines.append(f"; Note: Step {s.step}: rule {s.rule} version {s.rule_version} "
                     f"(fingerprint {s.fingerprint}){params}: "
                     f"{s.dropped} jobs dropped, {s.changed} changed{size}")
    return [header_line(line) for line in lines]


def _sized(header: list[tuple], size: int, at: int) -> list[tuple]:
    """The version's header with its MaxProcs line saying the size a step
    set, so that the published file, ingested again, has that machine size;
    the step's Note line keeps the original's. A header without MaxProcs
    gains one where the Notes go."""
    out, done = [], False
    for seq, line_no, text, label, value in header:
        if not done and (label or "").lower() == "maxprocs":
            text, value, done = f"; MaxProcs: {size}", str(size), True
        out.append((seq, line_no, text, label, value))
    if not done:
        out.append((len(out), at, f"; MaxProcs: {size}", "MaxProcs", str(size)))
    return out


def header_line(text: str) -> str:
    """`text` if it is one header line: a name or value that would end the
    line (a line break, U+2028, any control character) is refused, however
    it got past the checks where it came in; a published file could
    otherwise carry job lines that are not the version's."""
    bad = next((c for c in text if unicodedata.category(c) in ("Cc", "Zl", "Zp")), None)
    if bad is not None or len(text.splitlines()) != 1 or not text.startswith(";"):
        what = f"U+{ord(bad):04X}" if bad is not None else "a line break"
        raise WlaError(f"a header line would hold {what}: {text[:80]!r}")
    return text


def clean(archive: Archive, recipe: Recipe | str | Path, rules_dirs: list | None = None,
          progress: Progress | None = None) -> BuildResult:
    """Build (or rebuild) the version a recipe describes; all or nothing.
    `progress(done, total, rule)` is told as each step starts, and once at the end."""
    archive.require_writable()
    if not isinstance(recipe, Recipe):
        recipe = read_recipe(recipe)
    try:  # parse_recipe checked them; a Recipe made in Python has not been
        check_log_ref(recipe.log)
        check_version_name(recipe.version)
    except InvalidName as e:
        raise RecipeError(f"{recipe.file}: {e}") from None
    started = time.perf_counter()
    con = archive.con
    rules = load_rules(rules_dirs)
    source = _log_row(con, recipe.log)
    base = _base(con, source)
    name = f"{base['name']}@{recipe.version}"
    if source["name"] == name:
        raise RecipeError(f"{recipe.file}: version {name} cannot be built from itself")
    clock = LogClock(source["unix_start_time"], source["tz"])
    facts = dict(source)
    resolved: list[tuple[Rule, dict]] = []
    for i, step in enumerate(recipe.steps, 1):
        where = f"{recipe.file}: step {i} ({step.rule})"
        rule = _rule_for(con, rules, step, where)
        params = step_params(rule, step, where)
        try:  # the computed part's checks, predicates and dates: before anything is written
            if rule.computed:
                params = computed(rule.computed)[0](params, facts)
            bind(rule, params, clock, {"version_id": 0, "step": i}, exp.to_table("jobs"))
        except WlaError as e:
            raise RecipeError(f"{where}: {e}") from None
        resolved.append((rule, params))
    rhash = recipe_hash(recipe, resolved)
    existing = con.execute("SELECT log_id, recipe_hash, published_at IS NOT NULL FROM versions "
                           "WHERE name = ?", [name]).fetchall()
    if existing and existing[0][2]:
        # A version published before fingerprints covered parameters (schema
        # 1) has a recipe hash of SQL-only fingerprints: the same recipe with
        # the same rules and values still finds it unchanged.
        if existing[0][1] not in (rhash, recipe_hash(recipe, resolved, lambda r: fingerprint_v1(r.body))):
            raise LogExists(f"{name} is published; it cannot be rebuilt differently under the same "
                            f"name: {_difference(con, int(existing[0][0]), resolved)}")
        return BuildResult(name, "unchanged", existing[0][1], 0, 0, (), time.perf_counter() - started)
    clash = con.execute("SELECT kind FROM logs WHERE name = ?", [name]).fetchall()
    if clash and clash[0][0] != "version":
        raise LogExists(f"the archive holds an ingested log named {name!r}")
    with transaction(con):
        record(con, list(rules.values()) + [r for r, _ in resolved])
        if existing:
            vid = int(existing[0][0])
            drop_version(con, vid)
        else:
            vid = int(con.execute("SELECT coalesce(max(log_id), 0) + 1 FROM logs").fetchall()[0][0])
        steps, rows = _build_steps(con, name, vid, source, resolved, clock, facts, recipe.file, progress)
        jobs = _store(con, recipe, name, vid, source, base, rhash, steps, rows,
                      time.perf_counter() - started)
    return BuildResult(name, "rebuilt" if existing else "built", rhash, steps[0].jobs_in,
                       jobs, tuple(steps), time.perf_counter() - started)


def _difference(con, vid: int, resolved: list[tuple[Rule, dict]]) -> str:
    """How a recipe differs from the published version of its name."""
    rows = con.execute("SELECT rule, rule_version, fingerprint, params FROM steps WHERE version_id = ? "
                       "ORDER BY step", [vid]).fetchall()
    new_version = "give the recipe a new version"
    if len(rows) != len(resolved):
        return f"it has {len(resolved)} steps, the published version {len(rows)} ({new_version})"
    for n, ((rule, version, fp, params), (r, values)) in enumerate(zip(rows, resolved), 1):
        if rule != r.name:
            return f"step {n} is rule {r.name}, published as rule {rule} ({new_version})"
        if version != r.version:
            return (f"step {n} uses rule {rule} version {r.version}, published with version {version} "
                    f"(pin rule_version = {version} in that step to keep it, or {new_version})")
        if json.loads(params) != json.loads(json.dumps(values)):
            return f"step {n} ({rule}) has other parameter values ({new_version})"
        if fp not in (r.fingerprint, fingerprint_v1(r.body)):
            return f"step {n}: rule {rule} version {version} is not the one published ({new_version})"
    return f"its log differs ({new_version})"


def _build_steps(con, name: str, vid: int, source: dict, resolved, clock: LogClock,
                 facts: dict, file: str, progress: Progress | None = None) -> tuple[list[StepResult], str]:
    """Each step twice: as the view the archive keeps, reading the view of
    the step before, and evaluated once into a temporary table of its rows,
    which the decisions, the counts and the next step read. Reading the views
    instead would evaluate the whole chain again at every step (time growing
    with the square of the steps). Returns the steps and the table of the
    last step's kept rows. An error names the recipe and the step."""
    log_rows = (exp.select(*JOB_COLUMNS).from_("jobs")
                .where(exp.column("log_id").eq(int(source["log_id"]))).subquery())
    before = _Before(log_rows, log_rows.copy(), None)
    results = []
    for n, (rule, params) in enumerate(resolved, 1):
        tell(progress, n - 1, len(resolved), rule.name)
        try:
            result, before = _build_step(con, name, vid, n, rule, params, clock, facts, before,
                                         within(progress, n - 1, len(resolved), rule.name))
        except (WlaError, duckdb.Error) as e:
            raise RecipeError(f"{file}: step {n} ({rule.name}): {one_line(e)}") from None
        results.append(result)
    tell(progress, len(resolved), len(resolved))
    return results, before.table


@dataclass(frozen=True)
class _Before:
    """What a step reads: the view of the step before (for its own view), and
    the same rows kept in a temporary table (for everything else)."""

    view: exp.Expression
    rows: exp.Expression
    table: str | None  # the temporary table `rows` reads; None: the log's own jobs


def _build_step(con, name: str, vid: int, n: int, rule: Rule, params: dict, clock: LogClock,
                facts: dict, before: _Before, parts: Parts | None = None) -> tuple[StepResult, _Before]:
    note, sets = None, {}
    builtins = {"version_id": vid, "step": n}
    if rule.computed:
        jobs = run(con, exp.select("*").from_(before.rows.copy()).order_by("line_no")).df()
        drops, note, sets = computed(rule.computed)[1](jobs, params, facts, progress=parts)
        was = facts.get("machine_size")
        facts.update(sets)  # the version's, and what later steps read
        if "machine_size" in sets:
            sets = {**sets, "was": was}  # for the step's Note line
        if len(drops):
            frame = pd.DataFrame({"version_id": vid, "step": n,
                                  "line_no": drops["line_no"].astype("int32"),
                                  "reason": drops["reason"].astype(str)})
            con.register("_drops", frame)
            con.execute("INSERT INTO computed_drops SELECT version_id, step, line_no, reason FROM _drops")
            con.unregister("_drops")
    view = step_view(name, n, rule.name)

    def kept_rows(relation: exp.Expression) -> exp.Select:
        query = exp.select(*[exp.column(c, "r") for c in JOB_COLUMNS]).from_(relation)
        return query.where(exp.column("_drop", "r").is_(exp.null())) if "_drop" in rule.outputs else query

    # Bound when queried: binding it now would bind the whole chain again.
    on_view = bind(rule, params, clock, builtins, before.view)
    run(con, create_view(view, kept_rows(on_view.subquery("r")), defer_binding=True))
    out, kept = _temp(n, "out"), _temp(n, "rows")
    on_rows = bind(rule, params, clock, builtins, before.rows)
    run(con, create_table(out, on_rows, temporary=True, replace=True))
    insert = _decisions(rule, before.rows, out, [vid, name, n, rule.name, rule.version, rule.fingerprint])
    if insert is not None:
        run(con, insert)
    jobs_in = run(con, exp.select("count(*)").from_(before.rows.copy())).fetchall()[0][0]
    dropped, changed = con.execute(
        "SELECT count(*) FILTER (WHERE action = 'drop'), "
        "count(DISTINCT line_no) FILTER (WHERE action <> 'drop') "
        "FROM decisions WHERE version_id = ? AND step = ?", [vid, n]).fetchall()[0]
    run(con, create_table(kept, kept_rows(named_table(out).as_("r")), temporary=True, replace=True))
    run(con, drop("TABLE", out))
    if set(rule.writes) & {"submit", "wait", "run"}:
        _check_dated(con, kept, facts.get("unix_start_time"))
    if before.table is not None:
        run(con, drop("TABLE", before.table))
    result = StepResult(n, rule.name, rule.version, rule.fingerprint, params, view,
                        int(jobs_in), int(dropped), int(changed), note, dict(sets))
    return result, _Before(named_table(view), named_table(kept), kept)


def _check_dated(con, rows: str, start: int | None) -> None:
    """A rule that changes times (recover takes a run time from the CPU time)
    must leave every job in the calendar range ingest holds logs to
    (instants.py), or the version would break every report that dates it."""
    t = run(con, exp.select("line_no", "job", "submit", "wait", "run").from_(named_table(rows))
            .order_by("line_no")).fetchnumpy()
    bad = np.flatnonzero(outside(t["submit"], t["wait"], t["run"], start))
    if len(bad):
        i = int(bad[0])
        problem = job_problem(float(t["submit"][i]), float(t["wait"][i]), float(t["run"][i]), start)
        more = f"; {len(bad):,} jobs in all" if len(bad) > 1 else ""
        raise WlaError(f"job {int(t['job'][i])} (line {int(t['line_no'][i])}): {problem}{more}")


def _temp(step: int, what: str) -> str:
    """A temporary table of the build; a failed build's rollback drops it."""
    return f"_wla_build_{step}_{what}"


def _store(con, recipe: Recipe, name: str, vid: int, source: dict, base: dict, rhash: str,
           steps: list[StepResult], rows: str, seconds: float) -> int:
    """The version as a log: its row, its jobs (from `rows`, the last step's
    kept rows, equal to its view), its header lines and notes."""
    # Bound now, and with it the whole chain once: a view that cannot be read stops the build.
    run(con, create_view(name, exp.select("*").from_(named_table(steps[-1].view))))
    run(con, insert_select("jobs", exp.select(exp.Literal.number(vid), *JOB_COLUMNS)
                           .from_(named_table(rows)).order_by("line_no"), ["log_id", *JOB_COLUMNS]))
    run(con, drop("TABLE", rows))
    keep_figures(con, vid)
    jobs = int(con.execute("SELECT count(*) FROM jobs WHERE log_id = ?", [vid]).fetchall()[0][0])
    header = con.execute("SELECT seq, line_no, text, label, value FROM header_lines WHERE log_id = ? "
                         "ORDER BY seq", [source["log_id"]]).fetchall()
    first_job = con.execute("SELECT min(line_no) FROM jobs WHERE log_id = ?", [source["log_id"]]).fetchall()[0][0]
    leading = [h for h in header if first_job is None or h[1] < first_job]
    at = leading[-1][1] if leading else 0
    notes = _notes(name, base["name"], recipe.version, rhash, steps)
    sizes = [s.sets["machine_size"] for s in steps if "machine_size" in s.sets]
    if sizes:
        header = _sized(header, sizes[-1], at)
    rows = [(vid, seq, line_no, text, label, value) for seq, line_no, text, label, value in header]
    rows += [(vid, len(header) + k, at, text, "Note", text.split(":", 1)[1].strip())
             for k, text in enumerate(notes)]
    con.executemany("INSERT INTO header_lines VALUES (?, ?, ?, ?, ?, ?)", rows)
    row = dict(source)
    row.update(log_id=vid, name=name, file_name=recipe.file, file_size=len(recipe.text.encode()),
               data_size=0, sha256=rhash, lenient=False, lines=jobs + len(rows), header_lines=len(rows),
               blank_lines=0, jobs=jobs, rejects=0, kind="version", source_log_id=source["log_id"])
    if sizes:  # a step set the machine size (the regime rule): simulate reads it from here
        row.update(machine_size=sizes[-1], machine_size_source="recipe", max_procs=sizes[-1])
    run(con, insert_row("logs", list(row), now=["ingested_at"]), list(row.values()))
    con.execute(
        "INSERT INTO versions VALUES (?, ?, ?, ?, ?, ?, ?, ?, now(), ?, NULL, NULL)",
        [vid, name, recipe.version, base["log_id"], source["log_id"], recipe.text, rhash,
         wla.__version__, seconds])
    con.executemany("INSERT INTO steps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
        (vid, s.step, s.rule, s.rule_version, s.fingerprint, json.dumps(s.params, sort_keys=True),
         s.view, s.jobs_in, s.dropped, s.changed, s.note) for s in steps])
    return jobs
