"""review: a terminal console for grading the idempotent-checkout take-home."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("review")  # one version number: pyproject.toml's, through the package metadata
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
