"""Option values made into Python values without pydantic, for the plain
kinds wla's options are: text, paths, whole numbers, numbers and flags.

typer coerces every value through a pydantic TypeAdapter, and importing
pydantic takes about as long as importing DuckDB: most of what `wla ls`
may spend on starting. For these kinds a value is converted here exactly as
pydantic would (text as it is, a path as Path(text), "12" by int, "0.5" by
float; tests/test_startup.py compares the two); any other value, or kind,
goes to typer's own coercion as before, so a refusal is typer's, word for word.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

try:
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_path
except ImportError:  # a typer that coerces in another way: it is left to do so
    RuntimeParam = None

# What int() and pydantic read alike: plain digits, and plain decimals with
# an exponent (a longer one would only overflow, the same way in both).
_WHOLE = re.compile(r"[+-]?[0-9]{1,18}")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")
_KINDS = (str, Path, int, float, bool)


def plain_coercion(command: Any, ctx: Any) -> None:
    """Give each parameter of `command` of a plain kind (its --help too,
    made for `ctx`) the coercion below, unless typer has already made its own."""
    if RuntimeParam is None or command is None:
        return
    for param in command.get_params(ctx):
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is None or getattr(param, "_runtime_param", "") is not None:
            continue
        kind = _plain_kind(descriptor)
        if kind is not None:
            param._runtime_param = _Plain(parameter_info=descriptor.parameter_info,
                                          annotation=descriptor.annotation, kind=kind, descriptor=descriptor)


def _plain_kind(descriptor: Any) -> type | None:
    """str, Path, int, float or bool when the parameter is of that kind (or a
    list of one) with nothing typer would add (a parser, a range, choices)."""
    info = descriptor.parameter_info
    if info.parser is not None or getattr(info, "click_type", None) is not None \
            or getattr(info, "min", None) is not None or getattr(info, "max", None) is not None \
            or descriptor.is_file or descriptor.is_choice:
        return None
    annotation = descriptor.annotation
    if get_origin(annotation) is list:
        (item,) = get_args(annotation) or (None,)
        return item if item in (str, Path, int, float) else None
    return annotation if annotation in _KINDS else None


if RuntimeParam is not None:
    @dataclass(frozen=True)
    class _Plain(RuntimeParam):
        kind: type
        descriptor: Any

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            listed = get_origin(self.annotation) is list
            values = value if listed and isinstance(value, (list, tuple)) else [value]
            plain = [self._one(v, param, ctx) for v in values]
            if _TYPER in plain:  # anything else as typer does it (and says what is wrong with it)
                return build_runtime_param(self.descriptor)._coerce_value(value, param=param, ctx=ctx)
            return plain if listed else plain[0]

        def _one(self, value: Any, param: Any, ctx: Any) -> Any:
            kind, info = self.kind, self.parameter_info
            if kind is Path and isinstance(value, str) and info.path_type in (None, Path):
                return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
            if kind is str and isinstance(value, str):
                return value
            if kind is int and isinstance(value, str) and _WHOLE.fullmatch(value):
                return int(value)
            if kind is float and isinstance(value, str) and _NUMBER.fullmatch(value):
                return float(value)
            if kind is bool and isinstance(value, bool):  # a flag typer did not set: None
                return value
            if kind is int and type(value) is int:  # a default
                return value
            if kind is float and type(value) in (int, float):
                return float(value)
            return _TYPER


_TYPER = object()  # a value left to typer
