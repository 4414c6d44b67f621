"""A rule: one file's text read, checked against the jobs schema and
fingerprinted, as the rest of wla uses it."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from sqlglot import exp
from wla.archive.kernel.errors import InvalidName, RuleError

from ...kernel.names import check_name
from .checks import check_query
from .fingerprints import fingerprint
from .header import rule_parts
from .params import Param

BUILTINS = ("version_id", "step")


@dataclass(frozen=True)
class Rule:
    name: str
    version: int
    rationale: str
    params: dict[str, Param]
    sql: str  # the whole file
    body: exp.Expression  # the parsed SELECT
    fingerprint: str
    file: str
    action: str = "modify"  # what a changed field is: 'modify' or 'recover'
    computed: str | None = None
    outputs: tuple[str, ...] = field(default=())  # the columns it returns
    reads: tuple[str, ...] = field(default=())  # job columns it reads (lineage)
    writes: tuple[str, ...] = field(default=())  # job columns it may change

    def as_dict(self) -> dict:
        """The rule as `wla rules --json` shows it."""
        return {
            "name": self.name, "version": self.version, "fingerprint": self.fingerprint, "file": self.file,
            "rationale": self.rationale,
            "params": [{"name": p.name, "type": p.type, "required": p.required,
                        "default": None if p.required else p.default, "doc": p.doc}
                       for p in self.params.values()],
            "reads": list(self.reads), "writes": list(self.writes),
        }

    def params_json(self) -> str:
        return json.dumps({p.name: {"type": p.type, "default": p.default, "required": p.required,
                                    "doc": p.doc, **({"range": str(p.bounds)} if p.bounds else {})}
                           for p in self.params.values()}, sort_keys=True)


def parse_rule(text: str, file: str) -> Rule:
    """A rule from its file's text, checked against the jobs schema."""
    keys, params, body, action = rule_parts(text, file)
    for ph in body.find_all(exp.Placeholder):
        name = ph.name
        base = name[: -len("_text")] if name.endswith("_text") else name
        if base not in params and name not in BUILTINS:
            raise RuleError(f"{file}: ${name} is not a parameter of the rule")
    try:
        version = int(keys["version"])
    except ValueError:
        raise RuleError(f"{file}: version {keys['version']!r} is not an integer") from None
    try:
        check_name(keys["name"], "rule name")
    except InvalidName as e:
        raise RuleError(f"{file}: {e}") from None
    if keys["name"] != Path(file).stem:
        raise RuleError(f"{file}: the rule is named {keys['name']!r}; the file must be {keys['name']}.sql")
    outputs, reads, writes = check_query(body, file)
    return Rule(
        name=keys["name"], version=version, rationale=keys["rationale"], params=params,
        sql=text, body=body, file=file, action=action, computed=keys.get("computed") or None,
        fingerprint=fingerprint(body, params, action, keys.get("computed") or None),
        outputs=outputs, reads=reads, writes=writes,
    )
