"""Recipes: how one cleaned version of one log is made, as a small TOML file.

    log = "SDSC-SP2-1998-4.2-cln"
    version = "v1"

    [[step]]
    rule = "normalize"

    [[step]]
    rule = "filter"
    where = "user=374 and job>=1000 and job<=2000"
    reason = "flurry of user 374 in week 34"

A step may pin `rule_version`; an older version is rebuilt from the SQL the
archive recorded. Every other key is a parameter of the rule.

A recipe that cannot be read is refused with `FILE:LINE: what is wrong`
where there is a line to name (TOML syntax, a byte that is not UTF-8), else
`FILE: what is wrong`.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Callable

from ..kernel.errors import InvalidName, RecipeError, RuleError, visible
from ..kernel.names import check_log_ref, check_version_name, full_name, split_name
from .rules import Rule, check_value
from .textfile import parse_toml, read_text

# Steps a recipe may chain: far more than any cleaning needs (the worked
# examples have 4 to 9), few enough that a recipe cannot make the build, its
# provenance and the decisions table grow without bound.
MAX_STEPS = 1000


@dataclass(frozen=True)
class Step:
    rule: str
    rule_version: int | None
    params: dict[str, object]  # as written; defaults are filled at build


@dataclass(frozen=True)
class Recipe:
    log: str
    version: str
    steps: tuple[Step, ...]
    text: str
    file: str
    description: str = ""

    @property
    def name(self) -> str:
        """The version's name in the archive: ORIGINAL@VERSION (a recipe
        built from a version names that version's original)."""
        return full_name(split_name(self.log)[0], self.version)


def parse_recipe(text: str, file: str = "recipe") -> Recipe:
    """A recipe from its text; `file` names it in every error."""
    data = parse_toml(text, file, RecipeError)
    unknown = sorted(set(data) - {"log", "version", "description", "step"})
    if unknown:
        raise RecipeError(f"{file}: unknown keys {', '.join(unknown)}; a recipe has log, version, "
                          "description and [[step]] tables")
    for key in ("log", "version"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise RecipeError(f"{file}: {key} = \"...\" is missing")
    try:
        check_log_ref(data["log"])
        check_version_name(data["version"])
    except InvalidName as e:
        raise RecipeError(f"{file}: {e}") from None
    raw = data.get("step")
    if not isinstance(raw, list) or not raw:
        raise RecipeError(f"{file}: a recipe needs at least one [[step]]")
    if len(raw) > MAX_STEPS:
        raise RecipeError(f"{file}: {len(raw):,} steps; a recipe has at most {MAX_STEPS:,}")
    steps = []
    for i, s in enumerate(raw, 1):
        if not isinstance(s, dict):
            raise RecipeError(f"{file}: step {i} is not a table; write each step as [[step]]")
        if not isinstance(s.get("rule"), str):
            raise RecipeError(f"{file}: step {i} has no rule = \"...\"")
        params = {k: v for k, v in s.items() if k not in ("rule", "rule_version")}
        rv = s.get("rule_version")
        if rv is not None and (not isinstance(rv, int) or isinstance(rv, bool)):
            raise RecipeError(f"{file}: step {i}: rule_version must be an integer")
        steps.append(Step(s["rule"], rv, params))
    return Recipe(data["log"], data["version"], tuple(steps), text, file,
                  str(data.get("description", "")))


def read_recipe(path: str | os.PathLike) -> Recipe:
    """The recipe in a file: a regular file of UTF-8 TOML (a FIFO is refused,
    never waited on)."""
    return parse_recipe(read_text(path, "recipe", RecipeError), visible(os.fspath(path)))


def step_params(rule: Rule, step: Step, where: str) -> dict[str, object]:
    """Every parameter of the rule with its value: given, else the default;
    unknown and missing ones are errors naming the step."""
    unknown = sorted(set(step.params) - set(rule.params))
    if unknown:
        known = ", ".join(rule.params) or "none"
        raise RecipeError(f"{where}: rule {rule.name} has no parameter {', '.join(unknown)} "
                          f"(its parameters: {known})")
    out = {}
    for name, p in rule.params.items():
        if name in step.params:
            try:
                out[name] = check_value(step.params[name], p.type, f"{where}: {name}", p.bounds)
            except RuleError as e:
                raise RecipeError(str(e)) from None
        elif p.required:
            raise RecipeError(f"{where}: rule {rule.name} needs {name} ({p.doc})")
        else:
            out[name] = p.default
    return out


def recipe_hash(recipe: Recipe, resolved: list[tuple[Rule, dict[str, object]]],
                fingerprint: Callable[[Rule], str] = lambda r: r.fingerprint) -> str:
    """What identifies the build: the log, the version, and each step's rule,
    rule version, fingerprint and parameter values (not the file's layout).
    `fingerprint` may give the older kind (rules.fingerprint_v1), to
    recognise a version published before fingerprints covered parameters."""
    canon = {
        "log": recipe.log,
        "version": recipe.version,
        "steps": [{"rule": r.name, "version": r.version, "fingerprint": fingerprint(r),
                   "params": params} for r, params in resolved],
    }
    return hashlib.sha256(json.dumps(canon, sort_keys=True).encode("utf-8")).hexdigest()
