"""Commands of cleaning: rules, clean, versions, diff, why, provenance, publish."""
from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional

import typer
from wla.archive import InputError, UsageError
from wla.archive import open as open_archive
from wla.archive.clean.bind import value_text
from wla.archive.clean.build import clean
from wla.archive.clean.provenance import provenance_json
from wla.archive.clean.publish import publish
from wla.archive.clean.rules import load_rules
from wla.archive.clean.versions import diff, steps, version_name, versions, why
from wla.archive.ranges import INT64, MAX_COUNT, whole
from wla.archive.swf.rawfile import not_regular, open_regular

from .app import ArchiveOpt, app, archive_path
from .render import frame_text

RulesOpt = typer.Option(None, "--rules", readable=False, help="Also load the rules in this folder (repeatable)")


def _rule_folders(folders: Optional[List[Path]]) -> None:
    """Each folder given with --rules, and its *.sql files, can be read: a
    folder that cannot be listed would otherwise add no rules without a word,
    and a FIFO named x.sql would wait for a writer forever."""
    for folder in folders or []:
        name = str(folder)
        try:
            mode = os.stat(name).st_mode
        except FileNotFoundError:
            continue  # the rules say so: no such folder of rules
        except OSError as e:
            raise InputError(name, None, f"cannot read folder ({e.strerror or e})") from None
        kind = not_regular(mode)
        if kind != "a folder":
            raise InputError(name, None, f"is {kind or 'a file'}, not a folder of rules")
        try:
            files = sorted(Path(name).glob("*.sql"))
            os.listdir(name)  # glob says nothing of a folder it cannot list
        except OSError as e:
            raise InputError(name, None, f"cannot read folder ({e.strerror or e})") from None
        for f in files:
            os.close(open_regular(str(f)))


@app.command("rules")
def rules_cmd(
    name: Optional[str] = typer.Argument(None, help="Show this rule in full"),
    rules: Optional[List[Path]] = RulesOpt,
) -> None:
    """List the cleaning rules (name, version, fingerprint, parameters)."""
    _rule_folders(rules)
    found = load_rules(rules)
    if name is None:
        for r in found.values():
            params = ", ".join(f"{p.name}={value_text(p.default) if not p.required else '(required)'}"
                               for p in r.params.values())
            typer.echo(f"{r.name:10} v{r.version}  {r.fingerprint[:12]}  {params}")
        return
    if name not in found:
        raise UsageError(f"no rule {name!r} (rules: {', '.join(found)})")
    r = found[name]
    typer.echo(f"{r.name} version {r.version}, fingerprint {r.fingerprint}\nfile: {r.file}\n")
    typer.echo(r.rationale + "\n")
    for p in r.params.values():
        default = "required" if p.required else f"default {value_text(p.default)}"
        typer.echo(f"  {p.name} ({p.type}, {default}): {p.doc}")
    typer.echo(f"\nreads: {', '.join(r.reads) or '-'}; writes: {', '.join(r.writes) or '-'}")


@app.command("clean")
def clean_cmd(
    recipe: Path = typer.Argument(..., readable=False, help="Recipe (TOML): log, version, [[step]]s"),
    rules: Optional[List[Path]] = RulesOpt,
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Build a cleaned version from a recipe: one view per step, every decision recorded."""
    _rule_folders(rules)
    with open_archive(archive_path(archive), write=True) as a:
        res = clean(a, recipe, rules)
    if res.status == "unchanged":
        typer.echo(f"{res.name} is published and its recipe is unchanged; nothing to do")
        return
    for s in res.steps:
        typer.echo(f"step {s.step}: {s.rule} v{s.rule_version} ({s.fingerprint[:12]}): "
                   f"{s.dropped:,} dropped, {s.changed:,} changed, of {s.jobs_in:,}")
        if s.note:
            typer.echo(f"        {s.note}")
    typer.echo(f"{res.status} {res.name}: {res.jobs_in:,} -> {res.jobs:,} jobs in {res.seconds:.2f} s "
               f"(recipe {res.recipe_hash[:12]})")


@app.command("versions")
def versions_cmd(
    log: Optional[str] = typer.Argument(None, help="Only this log's versions"),
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """List cleaned versions; with a version's name, its steps."""
    with open_archive(archive_path(archive)) as a:
        if log is not None and "@" in log:
            typer.echo(frame_text(steps(a, version_name(a, log, log))))
            return
        typer.echo(frame_text(versions(a, log)))


@app.command("recipe")
def recipe_cmd(
    log: str,
    version: str,
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Print the recipe a version was built from (to edit and `wla clean` again)."""
    with open_archive(archive_path(archive)) as a:
        name = version_name(a, log, version)
        typer.echo(a.con.execute("SELECT recipe FROM versions WHERE name = ?", [name]).fetchall()[0][0],
                   nl=False)


@app.command("diff")
def diff_cmd(
    log: str,
    v1: str = typer.Argument(..., help="A version, or 'original'"),
    v2: str = typer.Argument(..., help="A version, or 'original'"),
    limit: int = typer.Option(20, help="Rows of detail to show (0: all)"),
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Jobs dropped or changed between two versions, grouped by rule."""
    whole("limit", limit, 0, MAX_COUNT)
    with open_archive(archive_path(archive)) as a:
        summary, detail = diff(a, log, v1, v2)
    if detail.empty:
        typer.echo(f"{v1} and {v2} hold the same jobs with the same values")
        return
    typer.echo(frame_text(summary))
    typer.echo("")
    shown = detail if limit == 0 else detail.head(limit)
    typer.echo(frame_text(shown))
    if len(shown) < len(detail):
        typer.echo(f"... {len(detail) - len(shown):,} more rows (--limit 0 shows all)")


@app.command("why")
def why_cmd(
    log: str,
    job: int,
    version: Optional[str] = typer.Option(None, "--version", "-v", help="Only this version"),
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Every decision that touched a job: step, rule, action, values, reason."""
    whole("job", job, *INT64)  # job numbers are 64-bit in the archive
    with open_archive(archive_path(archive)) as a:
        decisions, kept = why(a, log, job, version)
    if kept.empty:
        typer.echo(f"job {job} has no versions to be in")
    for row in kept.itertuples():
        state = "kept" if row.kept else "dropped"
        mine = decisions[(decisions.version == row.version) & (decisions.line_no == row.line_no)]
        typer.echo(f"{row.version}: job {job} (line {row.line_no}) {state}"
                   + ("" if len(mine) or not row.kept else ", unchanged"))
    if not decisions.empty:
        typer.echo("")
        typer.echo(frame_text(decisions))


@app.command("provenance")
def provenance_cmd(
    log: str,
    version: str,
    output: Optional[Path] = typer.Option(None, "--output", "-o", readable=False, help="Write to this file"),
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """A version's provenance as W3C PROV-JSON."""
    with open_archive(archive_path(archive)) as a:
        text = provenance_json(a, log, version)
    if output:
        output.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {output}")
    else:
        typer.echo(text, nl=False)


@app.command("publish")
def publish_cmd(
    log: str,
    version: str,
    output: Path = typer.Option(..., "--output", "-o", readable=False, help="FILE.swf or FILE.swf.gz"),
    archive: Optional[Path] = ArchiveOpt,
) -> None:
    """Write a version as a self-documenting SWF file; it becomes immutable."""
    with open_archive(archive_path(archive), write=True) as a:
        res = publish(a, log, version, output)
    first = "published" if res.first else "wrote (already published, same bytes)"
    typer.echo(f"{first} {res.name} to {output}: {res.jobs:,} jobs, sha256 {res.sha256[:12]}")
