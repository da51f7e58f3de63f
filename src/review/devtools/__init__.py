"""Tools for the people who build the console, not for reviewing: benchmarks (``review bench``)
and ``review doctor``."""
