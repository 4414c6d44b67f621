"""The Standard Workload Format: its 18 fields, reading a file safely and fast
into columns, header lines and the calendar range of the times a log holds."""
