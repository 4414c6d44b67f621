"""One finding of a detector: what, where in the log, how much, what to do."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Finding:
    """What a detector saw, said so a reader can act on it without the
    detector's code: `where` names dates, jobs or fields of the log, `how_much`
    gives the size, `action` the rule or option that deals with it, and `data`
    holds the same numbers for `--json` and tests."""

    detector: str
    what: str
    where: str
    how_much: str
    action: str
    data: dict = field(default_factory=dict)

    def line(self) -> str:
        """The finding as the report prints it."""
        return f"{self.what}: {self.where}; {self.how_much}. {self.action}"

    def as_dict(self) -> dict:
        return asdict(self)


def share(part: float, whole: float) -> str:
    """A part of a whole as the report writes it: never "0.00%" for a few."""
    if not whole:
        return "-"
    value = part / whole
    return "<0.01%" if 0 < value < 0.0001 else f"{value:.2%}"
