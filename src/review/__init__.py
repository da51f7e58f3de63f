"""review: a terminal console for grading the idempotent-checkout take-home."""

__version__ = "0.1.0"
