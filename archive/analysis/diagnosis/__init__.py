"""The diagnosis: what a log's data says is wrong with it beyond the
per-job inconsistencies, one detector per module, each finding one line."""
from .finding import Finding

__all__ = ["Finding"]
