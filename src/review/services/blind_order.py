"""The key a candidate-blind cohort numbers its candidates by: drawn at random the first time the
cohort is seen blind and kept beside its submissions, so every console (two reviewers, two user
accounts) and every export of the cohort says candidate-N of the same candidate."""

from __future__ import annotations

import hashlib
import os
import secrets
import tempfile
from pathlib import Path

from review.support import files, paths

# Hidden: the cohort's listing passes over it, as over every name that starts with a dot.
KEY_FILE = ".review-blind-order"


def blind_order_key(cohort: Path) -> bytes:
    """The cohort's key: read from COHORT/.review-blind-order, made there if missing (the first of two
    consoles to make it wins; the other reads it). A cohort folder that cannot be written keeps its key
    in this reviewer's data folder instead; failing that, a key for this session only."""
    for place in (cohort / KEY_FILE, _private_place(cohort)):
        key = _read(place) or _make(place)
        if key:
            return key
    return secrets.token_bytes(16)


def _private_place(cohort: Path) -> Path:
    name = hashlib.sha256(str(cohort.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return paths.data_dir() / "blind-order" / name


def _read(place: Path) -> bytes | None:
    try:
        text = files.read_text(place, 256).strip()
        return bytes.fromhex(text) if len(text) >= 32 else None
    # NotRegular and TooLarge are OSErrors too.
    except (OSError, ValueError):
        return None


def _make(place: Path) -> bytes | None:
    """A new key at `place`, whole or not at all: written aside, then linked in only if no key is
    there yet (another console's, made meanwhile, is read instead)."""
    key = secrets.token_bytes(16)
    try:
        place.parent.mkdir(parents=True, exist_ok=True)
        fd, aside = tempfile.mkstemp(dir=place.parent, prefix=f"{KEY_FILE}.", suffix=".tmp")
    except OSError:
        return None
    try:
        # Readable by the other reviewers of the cohort: the numbers are shared, the names are not in it.
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(key.hex() + "\n")
        os.link(aside, place)
    except FileExistsError:
        return _read(place)
    except OSError:
        return None
    finally:
        try:
            os.unlink(aside)
        except OSError:
            pass
    return key
