"""Where rules come from and where they are kept: the built-in rule files
and folders of more, loaded and checked; the archive's `rules` table, which
records each rule once per version and refuses one changed under the same
version."""
from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

import sqlglot
from wla.archive.kernel.errors import InputError, RuleError

from ..textfile import read_text
from .fingerprints import normal_sql, param_canon
from .header import rule_parts
from .rule import Rule, parse_rule


def rule_files(extra: list[str | Path] | None = None) -> list[Path]:
    """The built-in rules, then those in the folders given (a later file of
    the same name replaces an earlier one)."""
    files = sorted(Path(str(f)) for f in resources.files("wla.schema").joinpath("rules").iterdir()
                   if f.name.endswith(".sql"))
    for folder in extra or []:
        files.extend(_folder_rules(str(folder)))
    return files


def _folder_rules(name: str) -> list[Path]:
    """The *.sql files of a folder given, each a readable regular file: a
    folder that cannot be listed would otherwise add no rules without a
    word, and a FIFO named x.sql would wait for a writer forever."""
    from ...swf.rawfile import not_regular, open_regular

    try:
        mode = os.stat(name).st_mode
    except FileNotFoundError:
        raise RuleError(f"{name}: no such folder of rules") from None
    except OSError as e:
        raise InputError(name, None, f"cannot read folder ({e.strerror or e})") from None
    kind = not_regular(mode)
    if kind != "a folder":
        raise InputError(name, None, f"is {kind or 'a file'}, not a folder of rules")
    try:
        os.listdir(name)  # glob says nothing of a folder it cannot list
        files = sorted(Path(name).glob("*.sql"))
    except OSError as e:
        raise InputError(name, None, f"cannot read folder ({e.strerror or e})") from None
    for f in files:
        os.close(open_regular(str(f)))
    return files


def load_rules(extra: list[str | Path] | None = None) -> dict[str, Rule]:
    """Every rule, parsed and checked; a broken file stops everything."""
    rules: dict[str, Rule] = {}
    for f in rule_files(extra):
        rule = parse_rule(read_text(f, "rule file", RuleError), str(f))
        rules[rule.name] = rule
    return dict(sorted(rules.items()))


def record(con, rules: list[Rule]) -> None:
    """Write rules the archive has not seen; refuse one that changed (its
    SQL, a parameter, a default, a range) while its version did not."""
    for rule in rules:
        rows = con.execute("SELECT fingerprint, sql, file FROM rules WHERE name = ? AND version = ?",
                           [rule.name, rule.version]).fetchall()
        if rows and rows[0][0] != rule.fingerprint:
            raise RuleError(
                f"{rule.file}: {_changes(rows[0][1], rows[0][2], rule)} of rule {rule.name} changed "
                f"but its version is still {rule.version} (the archive has fingerprint "
                f"{rows[0][0][:12]}, the file {rule.fingerprint[:12]}); give the rule a new version"
            )
        if not rows:
            con.execute("INSERT INTO rules VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [rule.name, rule.version, rule.fingerprint, rule.sql, sqlglot.__version__,
                         rule.rationale, rule.params_json(), rule.file])


def _changes(kept: str, file: str, rule: Rule) -> str:
    """What differs between the rule the archive kept and the file, in words."""
    try:
        keys, params, body, action = rule_parts(kept, file)
    except RuleError:
        return "the rule"
    said = []
    if normal_sql(body) != normal_sql(rule.body):
        said.append("the SQL")
    def shown(p, i):
        return ("required" if i == 3 and p[2] else
                 "none" if p[i] is None else p[i] if i != 3 else json.dumps(p[i]))
    changes = []
    for name in sorted(set(params) | set(rule.params)):
        if name not in rule.params or name not in params:
            changes.append(f"{name} {'removed' if name in params else 'added'}")
            continue
        before, after = param_canon(params[name]), param_canon(rule.params[name])
        changes += [f"{name}: {what} {shown(before, i)} -> {shown(after, i)}"
                    for what, i in (("type", 1), ("default", 3), ("range", 4))
                    if shown(before, i) != shown(after, i)]
    if changes:
        said.append(f"the parameters ({'; '.join(changes)})")
    if action != rule.action:
        said.append(f"the action ({action} -> {rule.action})")
    if (keys.get("computed") or None) != rule.computed:
        said.append("the computed part")
    return " and ".join(said) or "the rule"


def recorded(con, name: str, version: int) -> Rule | None:
    """A rule at an older version, rebuilt from the SQL the archive kept."""
    rows = con.execute("SELECT sql, file FROM rules WHERE name = ? AND version = ?",
                       [name, version]).fetchall()
    return parse_rule(rows[0][0], rows[0][1]) if rows else None
