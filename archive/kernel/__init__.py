"""The kernel: what every floor of wla shares (errors, names, ranges, the
numba wrapper and its registry of compiled parts, a log's clock, processors,
plain values, progress callbacks, the file writer, SQL statements, what plots
share). It imports nothing of wla outside this folder (tests/test_layers.py)."""
