"""review: a terminal console for grading the idempotent-checkout take-home."""

# The one version number: pyproject.toml reads it from here (hatch's version source), and
# `review --version` prints it without loading the installed metadata.
__version__ = "0.2.0"
