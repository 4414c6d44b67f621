"""Lets mkdocstrings find wla's code rather than the `wla` console script.

The `mkdocs` script puts its own folder (the environment's bin/) first on
sys.path, and the `wla` script lives there too: griffe, searching the path
for a package named wla, takes that file for an empty namespace package, and
every `::: wla...` directive of the API reference fails. The editable
install maps wla to the repository's root, a layout griffe cannot follow on
disk; with that folder off the path griffe imports wla and reads it there.
Loaded by mkdocs.yml's `hooks`."""
import os
import sys


def on_startup(command: str, dirty: bool) -> None:
    scripts = os.path.dirname(os.path.abspath(sys.argv[0]))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != scripts]
