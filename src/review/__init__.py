"""review: a terminal console for grading the idempotent-checkout take-home."""

from importlib.metadata import PackageNotFoundError, version

try:
    # One version number: pyproject.toml's, through the package metadata.
    __version__ = version("review")
except PackageNotFoundError:
    # Running from a source tree that was never installed.
    __version__ = "0+unknown"
