"""Agent Trace's `content_hash` (``"<algorithm>:<hex>"``, a hash of a range's text): recognised, and
looked for among the lines a submission added, so a range that moved is found where it is. Pure.

The spec leaves the algorithm and the text hashed to the writer. Writers in the wild hash the edit's
text with MurmurHash3 (x86, 32-bit, seed 0: ``murmur3:9f2e8a1b``), SHA-256, SHA-1, MD5, CRC-32 or
FNV-1a (32-bit); the text is the range's lines joined by line feeds, with or without a final one.
Each of those readings is tried; a hash in another shape matches nothing, and the caller says so.
"""

from __future__ import annotations

import hashlib
import re
import struct
import zlib
from collections.abc import Callable, Iterable

_MASK = 0xFFFFFFFF


def _murmur_block(k: int) -> int:
    k = (k * 0xCC9E2D51) & _MASK
    k = ((k << 15) | (k >> 17)) & _MASK
    return (k * 0x1B873593) & _MASK


def murmur3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3 x86_32, as Bun's `murmur32v3` and the `mmh3` package compute it."""
    h = seed & _MASK
    blocks = len(data) // 4
    for (k,) in struct.iter_unpack("<I", data[: blocks * 4]):
        h ^= _murmur_block(k)
        h = ((h << 13) | (h >> 19)) & _MASK
        h = (h * 5 + 0xE6546B64) & _MASK
    tail = data[blocks * 4 :]
    if tail:
        h ^= _murmur_block(int.from_bytes(tail, "little"))
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK
    return h ^ (h >> 16)


def fnv1a_32(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & _MASK
    return h


# Algorithm name as written (lower case, without "-" or "_") -> (hex of the text's hash, cost per byte
# relative to hashlib's (the pure-Python ones are charged more of the search's budget), other spellings).
_ALGORITHMS: dict[str, tuple[Callable[[bytes], str], int, str]] = {
    "murmur3": (lambda data: f"{murmur3_32(data):08x}", 40, "murmur murmur32 murmur332 murmur32v3 mmh3"),
    "fnv1a": (lambda data: f"{fnv1a_32(data):08x}", 200, "fnv1a32 fnv"),
    "crc32": (lambda data: f"{zlib.crc32(data):08x}", 1, "crc"),
    "sha256": (lambda data: hashlib.sha256(data).hexdigest(), 1, "sha2"),
    "sha1": (lambda data: hashlib.sha1(data).hexdigest(), 1, ""),
    "md5": (lambda data: hashlib.md5(data).hexdigest(), 1, ""),
}
_ALIASES = {alias: name for name, (_, _, spellings) in _ALGORITHMS.items() for alias in spellings.split()}
_HASH = re.compile(r"^\s*([A-Za-z0-9_-]{1,24})\s*:\s*([0-9A-Fa-f]{8,128})\s*$")
# Bytes hashed (times each algorithm's cost), plus a charge per window and per run looked at, in one
# submission's search: a bound on its time (about a third of a second at most).
SEARCH_BUDGET = 16 << 20
_PER_WINDOW = 64
_PER_RUN = 16


def parse(value: str) -> tuple[str, str] | None:
    """("murmur3", "9f2e8a1b") from "murmur3:9f2e8a1b"; None when it is not `<algorithm>:<hex>`."""
    match = _HASH.match(value) if len(value) <= 200 else None
    if match is None:
        return None
    name = match[1].lower().replace("-", "").replace("_", "")
    return _ALIASES.get(name, name), match[2].lower()


def known(algorithm: str) -> bool:
    return algorithm in _ALGORITHMS


def _matches(computed: str, wanted: str) -> bool:
    if computed == wanted:
        return True
    if len(computed) == 8:  # a 32-bit value written without its leading zeros
        return computed.lstrip("0") == wanted.lstrip("0")
    return computed.startswith(wanted)  # a long digest cut short (at least 8 digits, as parsed)


class Search:
    """Finds ranges by their hash in runs of consecutive added lines, within SEARCH_BUDGET."""

    def __init__(self, budget: int = SEARCH_BUDGET) -> None:
        self.budget = budget
        self.spent = 0

    @property
    def exhausted(self) -> bool:
        return self.spent >= self.budget

    def find(
        self, algorithm: str, wanted: str, length: int, runs: Iterable[tuple[str, int, list[bytes]]]
    ) -> tuple[str, int, int] | None:
        """(path, first line, last line) of the first window of `length` lines (or one fewer, for a
        writer that counted the line its final line feed opens) in `runs` — (path, first line
        number, the lines' UTF-8 bytes) — whose text hashes to `wanted`; None when none does or the budget ran out."""
        hasher, cost, _ = _ALGORITHMS[algorithm]
        for path, first, encoded in runs:
            self.spent += _PER_RUN
            if self.spent > self.budget:
                return None
            for size in (length, length - 1):
                if size < 1 or size > len(encoded):
                    continue
                for at in range(len(encoded) - size + 1):
                    body = b"\n".join(encoded[at : at + size])
                    self.spent += 2 * (len(body) + 1) * cost + _PER_WINDOW
                    if self.spent > self.budget:
                        return None
                    if _matches(hasher(body), wanted) or _matches(hasher(body + b"\n"), wanted):
                        return path, first + at, first + at + size - 1
        return None
