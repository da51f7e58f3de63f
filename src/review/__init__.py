"""review: a terminal console for grading the idempotent-checkout take-home."""

import gc
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("review")  # one version number: pyproject.toml's, through the package metadata
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"


def tune_gc() -> None:
    """Collect garbage less often. A console holds analyses of a million objects, and with Python's
    default thresholds a full collection (85–250 ms, a visible pause) ran about five times per
    submission opened; with these, about once. Young objects wait longer: a few MB more at most."""
    gc.set_threshold(50_000, 20, 20)
