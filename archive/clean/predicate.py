"""The job predicates, under the name the documentation's examples import them by:
the module is `archive/store/predicate.py` (the store selects jobs with a
predicate; the rules bind them), and this name is that same module."""
from __future__ import annotations

import sys

from ..store import predicate

sys.modules[__name__] = predicate
