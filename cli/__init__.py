"""The `wla` command line: argument parsing and printing only."""
