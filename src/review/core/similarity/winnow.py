"""k-grams of tokens hashed and winnowed (Schleimer, Wilkerson and Aiken 2003): of every window of
WINDOW consecutive k-gram hashes the smallest is kept (the rightmost on a tie), each kept position
once. Two files that share a run of at least WINDOW + K - 1 tokens share a fingerprint; runs shorter
than K tokens are never matched (noise)."""

from __future__ import annotations

from dataclasses import dataclass

# A k-gram of 20 tokens is about two statements of this task's code (`const id = await id(str, {`
# is 10): with names and literals all alike, one statement's shape is shared by chance (generated
# cohorts of 1,000 had most pairs sharing 12-token k-grams), two rarely. The window of 12 guarantees
# any shared run of 31 tokens (three or four lines) is seen.
K = 20
WINDOW = 12


@dataclass
class FilePrints:
    """One file's fingerprints: `prints` holds (hash, token position, first line, last line) of each
    kept k-gram, in position order; `tokens` how many tokens the file has."""

    path: str
    tokens: int
    prints: list[tuple[int, int, int, int]]

    def to_json(self) -> dict:
        return {"path": self.path, "tokens": self.tokens, "prints": [list(p) for p in self.prints]}

    @classmethod
    def from_json(cls, data: dict) -> FilePrints:
        # Each print stays the list JSON gave (read the same way as a tuple): a warm index of 1,000
        # submissions is a quarter of a million of them.
        return cls(str(data["path"]), int(data["tokens"]), data["prints"])


def kgram_hashes(ids: list[int], k: int = K) -> list[int]:
    # A tuple of ints hashes the same in every process (no string hashing, no PYTHONHASHSEED).
    return [hash(tuple(ids[start : start + k])) for start in range(len(ids) - k + 1)]


def winnow(hashes: list[int], window: int = WINDOW) -> list[int]:
    """The positions kept, in order. A file shorter than one window keeps its smallest hash."""
    if not hashes:
        return []
    if len(hashes) < window:
        smallest = min(hashes)
        return [len(hashes) - 1 - hashes[::-1].index(smallest)]
    kept: list[int] = []
    chosen = -1
    for end in range(window - 1, len(hashes)):
        start = end - window + 1
        if chosen < start:
            part = hashes[start : end + 1]
            smallest = min(part)
            chosen = end - part[::-1].index(smallest)
            kept.append(chosen)
        elif hashes[end] <= hashes[chosen]:
            chosen = end
            kept.append(chosen)
    return kept


def fingerprint(path: str, ids: list[int], lines: list[int], k: int = K, window: int = WINDOW) -> FilePrints:
    hashes = kgram_hashes(ids, k)
    return FilePrints(path, len(ids), [(hashes[at], at, lines[at], lines[at + k - 1]) for at in winnow(hashes, window)])
