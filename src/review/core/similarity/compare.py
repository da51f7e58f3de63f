"""A cohort's fingerprints compared: for every pair of submissions, how much of each one's own code
(its fingerprints less the starter's, the model draft's and those common to most of the cohort) the
other holds, and where the shared fragments are, file and lines in each."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from review.core.similarity.winnow import FilePrints, K

# A fingerprint held by more than this share of the cohort's submissions (and by at least COMMON_MIN
# of them) is what most candidates keep: left out of the pair scores, reported as common to N.
COMMON_SHARE = 0.5
COMMON_MIN = 3
# A fingerprint repeated in a file (a loop written twice) is matched at this many places at most.
MAX_PLACES = 8


@dataclass
class Prints:
    """One submission's fingerprints: the code files compared, and every other file with why not."""

    name: str
    files: list[FilePrints]
    skipped: list[tuple[str, str]] = field(default_factory=list)
    # Its distinct fingerprints when known without the files' prints (an index read from the cache
    # keeps only these until a pair's fragments are asked for).
    known: set[int] | None = field(default=None, repr=False)

    def hashes(self) -> set[int]:
        return self.known if self.known is not None else {p[0] for f in self.files for p in f.prints}


@dataclass
class Fragment:
    """A run of code in both: the file and lines in each, and its length in tokens."""

    path_a: str
    lines_a: tuple[int, int]
    path_b: str
    lines_b: tuple[int, int]
    tokens: int

    def to_json(self) -> dict:
        return {
            "a": {"path": self.path_a, "first": self.lines_a[0], "last": self.lines_a[1]},
            "b": {"path": self.path_b, "first": self.lines_b[0], "last": self.lines_b[1]},
            "tokens": self.tokens,
        }


@dataclass
class Pair:
    a: str
    b: str
    # Fingerprints of their own code both hold, and each one's own fingerprints.
    shared: int
    own_a: int
    own_b: int
    # What both hold that was left out: label ("the starter", "the model draft", "common") -> count.
    left_out: dict[str, int] = field(default_factory=dict)
    # The most submissions any common fingerprint they share is in.
    common_to: int = 0

    @property
    def share_a(self) -> float:
        """The share of a's own code found in b."""
        return self.shared / self.own_a if self.own_a else 0.0

    @property
    def share_b(self) -> float:
        return self.shared / self.own_b if self.own_b else 0.0

    @property
    def similarity(self) -> float:
        """What ranks the pairs: shared fingerprints over both sides' own (Dolos's similarity), so a
        side with little code of its own, wholly found in the other, does not outrank a copy."""
        total = self.own_a + self.own_b
        return 2 * self.shared / total if total else 0.0

    def why(self) -> str:
        """What they share that was left out, in words (empty when nothing was)."""
        parts = [f"{label} ({count})" for label, count in self.left_out.items() if count and label != "common"]
        if self.left_out.get("common"):
            parts.append(f"fragments common to {self.common_to} submissions ({self.left_out['common']})")
        if not parts:
            return ""
        lead = "shares only" if not self.shared else "also shares, left out:"
        return f"{lead} {', '.join(parts)}"


@dataclass
class Comparison:
    # Every pair sharing own code, highest first, as (-similarity, -shared, a, b, shared) with a and b
    # numbers in `names`: plain tuples (a cohort of 1,000 has tens of thousands of pairs; `pairs`
    # makes them objects when asked).
    ranked: list[tuple[float, int, int, int, int]]
    # Pairs that share nothing of their own, only left-out code (with `everything`; else empty).
    left_out_pairs: list[Pair]
    # name -> its own fingerprints, and label -> how many of its fingerprints were left out as such.
    own: dict[str, int]
    left_out: dict[str, dict[str, int]]
    # name -> the most submissions one of its common fingerprints is in.
    common_to: dict[str, int]
    # How many submissions a fingerprint must be in to be common.
    common_at: int
    # name -> its own fingerprints; label -> the fingerprints left out; a pair's number -> its count.
    own_hashes: dict[str, set[int]] = field(default_factory=dict, repr=False)
    excluded_hashes: dict[str, set[int]] = field(default_factory=dict, repr=False)
    counts: Counter = field(default_factory=Counter, repr=False)
    # name -> every fingerprint it holds; a common fingerprint -> how many submissions hold it.
    hashes: dict[str, set[int]] = field(default_factory=dict, repr=False)
    common: dict[int, int] = field(default_factory=dict, repr=False)
    names: list[str] = field(default_factory=list, repr=False)
    sizes: list[int] = field(default_factory=list, repr=False)

    def pair(self, ranked: tuple[float, int, int, int, int]) -> Pair:
        _, _, a, b, shared = ranked
        return Pair(self.names[a], self.names[b], shared, self.sizes[a], self.sizes[b])

    @functools.cached_property
    def pairs(self) -> list[Pair]:
        return [self.pair(found) for found in self.ranked]

    def explain(self, pair: Pair) -> Pair:
        """The pair with what both hold that was left out, counted (asked for the pairs shown only: a
        cohort of 1,000 has hundreds of thousands of pairs)."""
        both = self.hashes[pair.a] & self.hashes[pair.b]
        pair.left_out = {label: len(both & these) for label, these in self.excluded_hashes.items()}
        in_common = [self.common[h] for h in both if h in self.common]
        pair.left_out["common"] = len(in_common)
        pair.common_to = max(in_common, default=0)
        return pair

    def best(self) -> dict[str, tuple[str, float]]:
        """name -> (the other submission holding the largest share of its own code, that share)."""
        shares = [-1.0] * len(self.names)
        other = [0] * len(self.names)
        sizes = self.sizes
        for _, _, a, b, shared in self.ranked:
            # Each side's own count is never 0 in a pair that shares own code.
            if shared / sizes[a] > shares[a]:
                shares[a], other[a] = shared / sizes[a], b
            if shared / sizes[b] > shares[b]:
                shares[b], other[b] = shared / sizes[b], a
        return {
            name: (self.names[other[index]], shares[index])
            for index, name in enumerate(self.names)
            if shares[index] >= 0
        }

    def partners(self) -> dict[str, list[str]]:
        """name -> every other submission it shares own code with (its pairs, as ranked)."""
        found: dict[str, list[str]] = {}
        for _, _, a, b, _ in self.ranked:
            found.setdefault(self.names[a], []).append(self.names[b])
            found.setdefault(self.names[b], []).append(self.names[a])
        return found

    def pairs_of(self, name: str) -> list[Pair]:
        if name not in self.names:
            return []
        index = self.names.index(name)
        return [self.pair(found) for found in self.ranked if index in (found[2], found[3])]


def own_text(own: int | None, left_out: dict[str, int] | None, common_to: int | None) -> str:
    """A submission's own fingerprints and what was left out, in `review similar`'s words (its
    per-submission lines, and the console's pair view when there is nothing to compare)."""
    parts = [f"{count} {label}" for label, count in (left_out or {}).items() if count]
    parts = [p.replace(" common", f" common to {common_to}") for p in parts]
    return f"{own} own fingerprints" + ("; left out " + ", ".join(parts) if parts else "")


def share_text(share: float, own: int) -> str:
    """A share with its base: "67% of its 6 own fingerprints" (a share of little code says little)."""
    return f"{share:.0%} of its {own} own fingerprint{'s' if own != 1 else ''}"


def common_threshold(submissions: int, share: float = COMMON_SHARE, least: int = COMMON_MIN) -> int:
    """The fewest submissions a fingerprint is in to count as common: more than `share` of them, and
    `least` at the very least."""
    return max(least, int(submissions * share) + 1)


def compare(
    cohort: list[Prints],
    excluded: Mapping[str, set[int]],
    share: float = COMMON_SHARE,
    least: int = COMMON_MIN,
    everything: bool = False,
) -> Comparison:
    """Every pair of submissions that shares own code, highest similarity first. `excluded`: label ->
    fingerprints never counted (the starter's tree, the model draft). `everything`: also the pairs
    sharing only left-out code (a pass over every pair: for a small cohort)."""
    hashes = {p.name: p.hashes() for p in cohort}
    every_excluded: set[int] = set().union(*excluded.values()) if excluded else set()
    kept = {name: found - every_excluded for name, found in hashes.items()}
    held = Counter(itertools.chain.from_iterable(kept.values()))
    at = common_threshold(len(cohort), share, least)
    common = {h for h, n in held.items() if n >= at}
    own = {name: found - common for name, found in kept.items()}
    left_out: dict[str, dict[str, int]] = {}
    common_to: dict[str, int] = {}
    for name, found in hashes.items():
        dropped = {label: len(found & these) for label, these in excluded.items()}
        mine = kept[name] & common
        dropped["common"] = len(mine)
        left_out[name] = dropped
        common_to[name] = max((held[h] for h in mine), default=0)
    # Submissions by number, in name order: a pair is (a, b) with a < b, counted by Counter in C
    # (a cohort of 1,000 has hundreds of thousands of pairs).
    names = [p.name for p in cohort]
    # Only the fingerprints two or more hold make pairs (most are one submission's alone).
    paired = {h for h, n in held.items() if 1 < n < at}
    holders: dict[int, list[int]] = {}
    for index, name in enumerate(names):
        for h in own[name] & paired:
            holders.setdefault(h, []).append(index)
    counts = Counter(itertools.chain.from_iterable(itertools.combinations(group, 2) for group in holders.values()))
    sizes = [len(own[name]) for name in names]
    ranked = sorted((-2 * shared / (sizes[a] + sizes[b]), -shared, a, b, shared) for (a, b), shared in counts.items())
    result = Comparison(
        ranked, [], {n: len(own[n]) for n in names}, left_out, common_to, at, own, dict(excluded), counts
    )
    result.hashes, result.common = hashes, {h: held[h] for h in common}
    result.names, result.sizes = names, sizes
    if everything:
        for a, b in itertools.combinations(range(len(names)), 2):
            if (a, b) not in counts and hashes[names[a]] & hashes[names[b]]:
                result.left_out_pairs.append(result.explain(Pair(names[a], names[b], 0, sizes[a], sizes[b])))
        result.left_out_pairs.sort(key=lambda p: (-sum(p.left_out.values()), p.a, p.b))
    return result


def fragments(a: Prints, b: Prints, wanted: set[int], k: int = K) -> list[Fragment]:
    """The runs of code `a` and `b` share, longest first: matched fingerprints (of `wanted`) chained
    while they stay in the same two files, at the same offset in tokens, and within k tokens of each
    other in `a` (winnowing keeps one in every window, so a shared run has no wider gap)."""
    where: dict[int, list[tuple[int, int, int, int]]] = {}
    for index, file in enumerate(b.files):
        for h, at, first, last in file.prints:
            if h in wanted:
                places = where.setdefault(h, [])
                if len(places) < MAX_PLACES:
                    places.append((index, at, first, last))
    matches = []
    for index_a, file in enumerate(a.files):
        for h, at, first, last in file.prints:
            for index_b, at_b, first_b, last_b in where.get(h, [])[:MAX_PLACES]:
                matches.append((index_a, index_b, at_b - at, at, first, last, first_b, last_b))
    matches.sort()
    found: list[Fragment] = []
    run: list[tuple[int, int, int, int, int, int, int, int]] = []
    for match in matches:
        if run and (match[:3] != run[-1][:3] or match[3] - run[-1][3] > k):
            found.append(_fragment(a, b, run, k))
            run = []
        run.append(match)
    if run:
        found.append(_fragment(a, b, run, k))
    found.sort(key=lambda f: (-f.tokens, f.path_a, f.lines_a))
    return found


def _fragment(a: Prints, b: Prints, run: list[tuple[int, int, int, int, int, int, int, int]], k: int) -> Fragment:
    return Fragment(
        a.files[run[0][0]].path,
        (min(m[4] for m in run), max(m[5] for m in run)),
        b.files[run[0][1]].path,
        (min(m[6] for m in run), max(m[7] for m in run)),
        run[-1][3] + k - run[0][3],
    )
