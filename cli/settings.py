"""Options built from the library's settings classes (archive/kernel/settings.py).

A command declares one parameter per settings class (`sim: SimSettings`);
`takes` shows typer each setting as an option of its own, with the default,
help and flag the class declares, and hands the command the settings built
from the values given. The command line restates nothing the library says.
"""
from __future__ import annotations

import functools
import inspect
import types
from typing import Any, Callable, Optional, Union, get_args, get_origin, get_type_hints

import typer
from wla.archive.kernel.settings import spec

# Every option built here, with the setting it offers: tests compare the defaults.
BUILT: list[tuple[Any, type, str]] = []


def option(cls: type, name: str, *, help: str | None = None) -> Any:
    """The option of setting `name` of `cls`; a command may word its help its own way."""
    field, _ = cls.described_one(name)
    s = spec(field)
    built = typer.Option(field.default, *(s.flags or ("--" + name.replace("_", "-"),)),
                         help=help or s.help, metavar=s.metavar)
    BUILT.append((built, cls, name))
    return built


def _typer_type(kind: Any) -> Any:
    """`int | None` as typer reads it (Optional[int])."""
    if isinstance(kind, types.UnionType) or get_origin(kind) is Union:
        args = [a for a in get_args(kind) if a is not type(None)]
        return Optional[args[0]] if len(args) == 1 else kind
    return kind


def takes(**groups: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a command whose parameter NAME is a settings class: give
    NAME=Class, or NAME=(Class, {setting: option or None}) to word an
    option for this command or (None) to leave a setting out (it keeps its
    default; the command may set it from an option of its own)."""
    def wrap(command: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(command)
        hints = get_type_hints(command)
        laid_out: list[inspect.Parameter] = []
        packed: dict[str, tuple[type, list[str]]] = {}
        for p in signature.parameters.values():
            if p.name not in groups:
                laid_out.append(p.replace(annotation=hints.get(p.name, p.annotation),
                                          kind=inspect.Parameter.KEYWORD_ONLY))
                continue
            cls, own = groups[p.name] if isinstance(groups[p.name], tuple) else (groups[p.name], {})
            names = []
            for field, kind in cls.described():
                if field.name in own and own[field.name] is None:
                    continue
                names.append(field.name)
                laid_out.append(inspect.Parameter(field.name, inspect.Parameter.KEYWORD_ONLY,
                                                  default=own.get(field.name) or option(cls, field.name),
                                                  annotation=_typer_type(kind)))
            packed[p.name] = (cls, names)

        @functools.wraps(command)
        def run(**given: Any) -> Any:
            for name, (cls, names) in packed.items():
                given[name] = cls(**{n: given.pop(n) for n in names})
            return command(**given)

        run.__signature__ = signature.replace(parameters=laid_out)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in laid_out}
        del run.__wrapped__  # typer reads the signature above, not the command's
        return run
    return wrap
