"""How much of a file ingest reads before it gives up on it.

Each limit is far beyond any real log, so a broken or hostile file is refused
after a bounded amount of work and memory instead of exhausting either.
"""
from __future__ import annotations

# Longest line, newline excluded. An SWF job line needs about 200 bytes at the
# most (18 numbers); the longest line of the real logs is 97 bytes.
MAX_LINE_BYTES = 64 * 1024

# A gzip'd file may inflate to at most max(INFLATE_FLOOR, INFLATE_RATIO times
# the compressed bytes read so far). Real logs inflate 2 to 11.6 times; gzip
# can reach about 1030 times, which only repeated text (a bomb) gives.
INFLATE_FLOOR = 64 * 1024 * 1024
INFLATE_RATIO = 100

# Python objects are made per header line and per rejected line, so their
# number is bounded too. Real logs hold under 100 header lines.
MAX_HEADER_LINES = 100_000
MAX_REJECTS = 100_000

# Lines kept as written (blank and rejected lines, job lines the file's layout
# does not give back): each is a Python object while reading. The real logs
# need 6 in all; past this many, the log is kept without its layout and is
# exported re-rendered rather than as written.
MAX_VERBATIM_LINES = 1_000_000
