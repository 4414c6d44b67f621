"""Raw accounting records (CSV, Slurm sacct) into SWF, by the recovery table."""
from .records import convert, to_swf

__all__ = ["convert", "to_swf"]
