"""One boundary per submission: whatever goes wrong while reading one becomes that row's reason and
the submission screen's banner, with the traceback kept in a log file in the cache — never a crash
of the console or of `review triage`."""

from __future__ import annotations

import errno
import os
import time

from review.core.text import safe_line
from review.support import paths

LOG_LIMIT = 4 << 20  # the log is rotated past this: tracebacks are for a developer, not an archive


def log_file():
    folder = paths.cache_dir() / "logs"
    folder.mkdir(exist_ok=True, mode=0o700)
    return folder / "errors.log"


def record(where: str, error: BaseException) -> str:
    """Keep the traceback; return the reason to show, in one line. Never raises: a cache that
    cannot be written (full, read-only) costs the log, not the boundary."""
    try:
        target = log_file()
        if target.exists() and target.stat().st_size > LOG_LIMIT:
            os.replace(target, target.with_suffix(".log.1"))
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} {where}\n")
            import traceback  # here: a boundary that never fails never loads it

            handle.write("".join(traceback.format_exception(error)))
        kept = f" (traceback in {target})"
    except OSError:
        kept = ""
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        where_full = f" ({error.filename})" if error.filename else ""
        return safe_line(
            f"not read: the disk is full{where_full}: {error.strerror}. Nothing was lost: free space "
            "and reopen (the cache recovers by itself)",
            400,
        )
    return safe_line(f"unreadable: {type(error).__name__}: {error}{kept}", 400)
