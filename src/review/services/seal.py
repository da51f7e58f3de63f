"""Seals on review entries: a score file can be planted, a seal cannot be forged.

Score files sit in the cohort folder beside the candidates' repositories, and a cohort is often
unpacked from what candidates sent — so a candidate can put ``ben.review.toml`` there, marking
their own row scored "final" by a colleague. Every entry the console saves carries
``seal = "<key id>:<HMAC-SHA256>"`` over the whole entry (the commit included), made with a key
only the reviewers hold: ``$XDG_DATA_HOME/review/seal.key`` (0600, created on first save), or the
file ``REVIEW_SEAL_KEY`` names — a pair reviewing as two Unix users shares one group-readable key
that way. An entry whose seal does not verify is kept on disk but not counted; the row says so.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import tempfile
from pathlib import Path

from review.support import files, paths

KEY_ENV = "REVIEW_SEAL_KEY"
KEY_BYTES = 32


class SealError(Exception):
    """The key cannot be read or made; the message says which file and why."""


def key_path() -> Path:
    override = os.environ.get(KEY_ENV)
    return Path(override) if override else paths.data_dir() / "seal.key"


def _read_key(path: Path) -> bytes | None:
    try:
        raw, _cut = files.read_regular(path, 4096)  # never through a link, a FIFO or a device
    except FileNotFoundError:
        return None
    except OSError as error:
        raise SealError(f"the seal key {path} cannot be read: {error.strerror or error}") from None
    try:
        key = bytes.fromhex(raw.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        key = b""
    if len(key) < 16:
        raise SealError(f"the seal key {path} is not a key (expected {KEY_BYTES * 2} hex digits)")
    return key


def key(create: bool = False) -> bytes | None:
    """This console's key; None when there is none yet and `create` is off (nothing to verify with)."""
    path = key_path()
    found = _read_key(path)
    if found is not None or not create:
        return found
    # Written whole into a temp file, then published with link(), which never replaces: a console
    # reading at the same moment sees no key or the whole key, never a half-written one.
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".seal-", suffix=".tmp")
    except OSError as error:
        raise SealError(f"the seal key {path} cannot be created: {error.strerror or error}") from None
    import secrets  # here: only a new key needs it (a triage reading sealed scores never does)

    try:
        with os.fdopen(fd, "w") as handle:  # mkstemp makes it 0600
            handle.write(secrets.token_hex(KEY_BYTES) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.link(tmp, path)
    except FileExistsError:
        pass  # another console made it first: use theirs
    except OSError as error:
        raise SealError(f"the seal key {path} cannot be created: {error.strerror or error}") from None
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return _read_key(path)


def key_id(secret: bytes) -> str:
    return hashlib.sha256(b"review-seal-id\0" + secret).hexdigest()[:8]


def _canonical(entry: dict) -> bytes:
    body = {name: value for name, value in entry.items() if name != "seal"}
    return json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")


def sign(entry: dict, secret: bytes) -> str:
    return f"{key_id(secret)}:{hmac.new(secret, _canonical(entry), hashlib.sha256).hexdigest()}"


def check(entry: dict, secret: bytes | None) -> str | None:
    """None when the entry's seal verifies with `secret`; otherwise why it is not trusted."""
    seal = entry.get("seal")
    if not isinstance(seal, str) or not seal:
        return "not sealed"
    if secret is None:
        return "sealed, but this console has no seal key yet"
    if not hmac.compare_digest(seal, sign(entry, secret)):
        if seal.split(":", 1)[0] != key_id(secret):
            return f"sealed with another key ({seal.split(':', 1)[0][:8]!r}, not this console's {key_id(secret)})"
        return "its seal does not match its contents (edited after it was saved)"
    return None
