"""Logs from the Parallel Workloads Archive's web site into the archive.

`catalog.toml` names the logs wla knows (where each is below the site's base
URL, and the size and sha256 of its file where known); `catalog.py` reads
it, `download.py` fetches one file with resumption and retries, within a
deadline and a minimum rate, over the watched connections of
`connection.py`, `verify.py` checks it (and that it is gzip'd SWF), and
`pull.py` does all of it for the logs asked and ingests them.
"""
