"""The Standard Workload Format: its 18 fields, reading a file safely and fast
into columns, header lines and the calendar range of the times a log holds."""
from __future__ import annotations

from ..kernel.jit import Part, register

# Registered before any module here compiles (the package is imported first).
register(Part("the SWF reader and writer", ("wla.archive.swf.tokenizer", "wla.archive.swf.layout"),
              ("wla.archive.swf.tokenizer:warm", "wla.archive.swf.layout:warm"), 5))
