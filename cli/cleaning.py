"""Commands of cleaning: rules, clean, versions, recipe, diff, why, provenance, publish."""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import List, Optional

import typer

from . import options, progress, text
from .app import app, context
from .present import show


@app.command("rules")
def rules_cmd(
    name: Optional[str] = options.RuleName,
    rules: Optional[List[Path]] = options.Rules,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    archive: Optional[Path] = options.Archive,
) -> None:
    """List the cleaning rules (name, version, fingerprint, parameters)."""
    from wla.archive import UsageError
    from wla.archive.clean import rules as library

    found = library.load_rules(rules)
    if name is None:
        show([r.as_dict() for r in found.values()], as_json, text.rules, wide=wide)
        return
    if name not in found:
        raise UsageError(f"no rule {name!r} (rules: {', '.join(found)})")
    show(found[name].as_dict(), as_json, text.rule, wide=wide)


@app.command("clean")
def clean_cmd(
    recipe: Path = options.Recipe,
    rules: Optional[List[Path]] = options.Rules,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Build a cleaned version from a recipe: one view per step, every decision recorded."""
    from wla.archive.clean.build import clean
    from wla.archive.clean.recipe import read_recipe
    from wla.archive.clean.rules import rule_files

    rule_files(rules)  # a --rules folder that cannot be used is said first
    written = read_recipe(recipe)  # a recipe that cannot be read is said so, archive or not
    with context(archive).writing() as a, progress.display("clean", "steps") as shown:
        res = clean(a, written, rules, progress=shown)
    typer.echo(text.clean(res))


@app.command("versions")
def versions_cmd(
    log: Optional[str] = options.OptionalLog,
    version: Optional[str] = options.Version,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    archive: Optional[Path] = options.Archive,
) -> None:
    """List cleaned versions (of a log); with a version (LOG@VERSION), its steps."""
    from wla.archive import UsageError
    from wla.archive.clean.versions import steps, versions
    from wla.archive.resolve import resolve

    if log is None and version is not None:
        raise UsageError("--version needs the log it is a version of")
    with context(archive).reading() as a:
        named = resolve(a, log, version) if log is not None else None
        if named is not None and named.version is not None:
            frame = steps(a, named.name)
        else:
            frame = versions(a, named.log if named else None)
    show(frame, as_json, text.table, wide=wide)


@app.command("recipe")
def recipe_cmd(
    log: str = options.Log,
    version: Optional[str] = options.VersionArg,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Print the recipe a version was built from (to edit and `wla clean` again)."""
    from wla.archive.clean.versions import recipe_text

    with context(archive).reading() as a:
        typer.echo(recipe_text(a, log, version), nl=False)


@app.command("diff")
def diff_cmd(
    log: str = options.DiffA,
    v1: str = options.DiffB,
    v2: Optional[str] = options.DiffV2,
    limit: int = options.Limit,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Compare two logs or versions job by job (A B), or two versions of one log by rule (LOG V1 V2).

    wla diff A B: A and B are any logs or versions (LOG or LOG@VERSION). Jobs are matched by
    job number (a number that occurs k times is matched by order of occurrence); it lists the
    jobs only in A, only in B, and the changed ones field by field, and says what the jobs of
    each kind have in common.

    wla diff LOG V1 V2: two versions of LOG (or 'original'), matched by line, each dropped job
    and changed field attributed to the cleaning rule that decided it.
    """
    from wla.archive.kernel.ranges import MAX_COUNT, whole

    whole("limit", limit, 0, MAX_COUNT)
    if v2 is None:
        from wla.archive.analysis.diff import log_diff

        with context(archive).reading() as a:
            compared = log_diff(a, log, v1)
        show(compared, as_json, partial(text.log_diff, limit=limit), wide=wide)
        return
    from wla.archive.analysis.diff import rule_diff

    with context(archive).reading() as a:
        summary, detail = rule_diff(a, log, v1, v2)
    show({"summary": summary, "detail": detail}, as_json, partial(text.diff, v1=v1, v2=v2, limit=limit), wide=wide)


@app.command("why")
def why_cmd(
    log: str = options.Log,
    job: int = options.Job,
    version: Optional[str] = options.Version,
    as_json: bool = options.Json,
    wide: bool = options.Wide,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Every decision that touched a job: step, rule, action, values, reason."""
    from wla.archive.clean.versions import why
    from wla.archive.kernel.ranges import INT64, whole

    whole("job", job, *INT64)  # job numbers are 64-bit in the archive
    with context(archive).reading() as a:
        decisions, kept = why(a, log, job, version)
    show({"job": job, "versions": kept, "decisions": decisions}, as_json, text.why, wide=wide)


@app.command("provenance")
def provenance_cmd(
    log: str = options.Log,
    version: Optional[str] = options.VersionArg,
    output: Optional[Path] = options.OutputFile,
    archive: Optional[Path] = options.Archive,
) -> None:
    """A version's provenance as W3C PROV-JSON."""
    from wla.archive.clean.provenance import provenance_json

    with context(archive).reading() as a:
        written = provenance_json(a, log, version)
    if output:
        output.write_text(written, encoding="utf-8")
        typer.echo(f"wrote {output}")
    else:
        typer.echo(written, nl=False)


@app.command("publish")
def publish_cmd(
    log: str = options.Log,
    version: Optional[str] = options.VersionArg,
    output: Path = options.PublishTo,
    archive: Optional[Path] = options.Archive,
) -> None:
    """Write a version as a self-documenting SWF file; it becomes immutable."""
    from wla.archive.clean.publish import publish

    with context(archive).writing() as a:
        res = publish(a, log, version, output)
    first = "published" if res.first else "wrote (already published, same bytes)"
    typer.echo(f"{first} {res.name} to {output}: {res.jobs:,} jobs, sha256 {res.sha256[:12]}")
