"""The library's defaults, as the command line shows and uses them.

An option's default is the default of the library parameter it is passed
to, read from the function's signature in its source file rather than by
importing it: importing the library loads pandas, DuckDB and numba, which
`wla --help` and `wla --version` do not need. A default written as anything
but a literal or a constant of the same module bound to one is read by
importing the function after all.
"""
from __future__ import annotations

import ast
import importlib
import inspect
from functools import cache
from pathlib import Path

import wla

_ROOT = Path(wla.__file__).resolve().parent  # the folder of package `wla`


def library_default(function: str, parameter: str) -> object:
    """The default of `parameter` of `function` ("wla.sim.simulate:simulate")."""
    module, _, name = function.partition(":")
    found = _literal_defaults(module, name).get(parameter, _NOT_LITERAL)
    if found is _NOT_LITERAL:
        found = imported_default(function, parameter)
    return found


def imported_default(function: str, parameter: str) -> object:
    """The default as Python sees it, importing the function."""
    module, _, name = function.partition(":")
    default = inspect.signature(getattr(importlib.import_module(module), name)).parameters[parameter].default
    if default is inspect.Parameter.empty:
        raise LookupError(f"{function} has no default for {parameter}")
    return default


_NOT_LITERAL = object()


@cache
def _literal_defaults(module: str, name: str) -> dict[str, object]:
    """Each parameter of the function whose default is a literal, with it."""
    path = _ROOT.joinpath(*module.split(".")[1:]).with_suffix(".py")
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except OSError:
        return {}
    constants = _constants(tree)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            args = node.args
            positional = args.posonlyargs + args.args
            pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
            pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
            out = {}
            for arg, default in pairs:
                if isinstance(default, ast.Name) and default.id in constants:
                    out[arg.arg] = constants[default.id]
                    continue
                try:
                    out[arg.arg] = ast.literal_eval(default)
                except ValueError:
                    pass
            return out
    return {}


def _constants(tree: ast.Module) -> dict[str, object]:
    """The module's names bound once to a literal (THRESHOLD = 0.05)."""
    found: dict[str, object] = {}
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        if isinstance(target, ast.Name):
            try:
                found[target.id] = ast.literal_eval(value)
            except ValueError:
                found.pop(target.id, None)
    return found
