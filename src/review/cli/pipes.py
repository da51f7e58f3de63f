"""A reader that stops early (`review triage BIG | head -1`, `less` quit before the end): the command
ends quietly, with git's exit status for it (128 + SIGPIPE), never a BrokenPipeError traceback."""

from __future__ import annotations

import contextlib
import os
import signal
import sys

READER_GONE = 128 + signal.SIGPIPE


class _State:
    gone = False


def reset() -> None:
    _State.gone = False


def reader_gone() -> int:
    """Point stdout at /dev/null (so the interpreter's last flush has nowhere to fail) and return
    the exit status. Called where a write to stdout raised BrokenPipeError."""
    _State.gone = True
    # A stdout with no descriptor (a test's capture) has nothing to redirect.
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return READER_GONE


def gone() -> bool:
    """Whether stdout's reader left during this command."""
    return _State.gone
