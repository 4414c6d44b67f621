"""Settings declared once: each field of a frozen dataclass carries its
default, its range and its help, so that the library checks it, the
command line offers it and saved results record it from one declaration.
No heavy import: `wla --help` builds its options from these classes."""
from __future__ import annotations

from dataclasses import MISSING, Field, dataclass, field, fields, replace
from typing import Any, Callable, TypeVar, get_type_hints

from .errors import UsageError

S = TypeVar("S", bound="Settings")


@dataclass(frozen=True)
class Spec:
    """What a setting says of itself beyond its name, type and default."""

    help: str
    check: Callable[[str, Any], Any] | None = None  # (name, value) -> value as kept, or raises OptionError
    choices: tuple[str, ...] = ()
    what: str = ""  # the choice named in a refusal: "unknown tie order 'x'"
    flags: tuple[str, ...] = ()  # the command line's spelling, when not --the-name
    metavar: str | None = None


def setting(default: Any, help: str, *, check: Callable[[str, Any], Any] | None = None,
            choices: tuple[str, ...] = (), what: str = "", flags: tuple[str, ...] = (),
            metavar: str | None = None) -> Any:
    """A field of a Settings class."""
    return field(default=default, metadata={"spec": Spec(help, check, choices, what, flags, metavar)})


def spec(f: Field) -> Spec:
    return f.metadata["spec"]


def canonical(value: Any, choices: tuple[str, ...]) -> str | None:
    """The choice `value` names, in any case (EASY is easy); None if none."""
    if value in choices:
        return value
    if isinstance(value, str):
        return next((c for c in choices if c.lower() == value.strip().lower()), None)
    return None


class Settings:
    """Base of the settings classes: typed edits, checks, plain dicts."""

    @classmethod
    def described(cls) -> list[tuple[Field, Any]]:
        """Each field with its resolved type, in declaration order."""
        hints = get_type_hints(cls)
        return [(f, hints[f.name]) for f in fields(cls)]  # type: ignore[arg-type]

    @classmethod
    def described_one(cls, name: str) -> tuple[Field, Any]:
        """The field `name` with its resolved type."""
        return next((f, kind) for f, kind in cls.described() if f.name == name)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))  # type: ignore[arg-type]

    @classmethod
    def default(cls, name: str) -> Any:
        f = next(f for f in fields(cls) if f.name == name)  # type: ignore[arg-type]
        return f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc]

    def edit(self: S, **changes: Any) -> S:
        """These settings with `changes`; a name that is not a setting is refused."""
        unknown = sorted(set(changes) - set(self.names()))
        if unknown:
            raise UsageError(f"not a setting of {type(self).__name__}: {', '.join(unknown)}; "
                             f"one of {', '.join(self.names())}")
        return replace(self, **changes)  # type: ignore[type-var]

    def checked(self: S) -> S:
        """The settings with each value in its range (as kept: 4.0 procs is 4,
        EASY is easy), else the error naming the setting."""
        kept = {}
        for f in fields(self):  # type: ignore[arg-type]
            s, value = spec(f), getattr(self, f.name)
            if s.choices and value is not None:  # None: the setting is off
                found = canonical(value, s.choices)
                if found is None:
                    raise UsageError(f"unknown {s.what or f.name} {value!r}; one of {', '.join(s.choices)}")
                if found != value:
                    kept[f.name] = found
            if s.check is not None and value is not None:
                kept[f.name] = s.check(f.name, value)
        return replace(self, **kept) if kept else self  # type: ignore[type-var]

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]
