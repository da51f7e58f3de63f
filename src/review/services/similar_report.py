"""`review similar`'s document: the cohort's pairs highest first, each with both names, the share of
each one's own code found in the other, the shared fragments (file and lines in each) and what was
left out; each submission with what was compared and what was not, and why. Candidate-blind, every
name is its alias. What an assistant wrote, as each side's history says, beside the fragments."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from review.core import similarity
from review.core.similarity import authors
from review.services import cohort as cohorts
from review.services.similarity import DRAFT, STARTER, Index

# Pairs given in detail (every fragment, who wrote them): the rest are listed with their shares.
DETAIL = 20
# Fragments listed per pair in detail, longest first; the count says how many there are.
FRAGMENTS = 10


def _where(fragment: similarity.Fragment, side: str) -> str:
    path, (first, last) = (fragment.path_a, fragment.lines_a) if side == "a" else (fragment.path_b, fragment.lines_b)
    return f"{path} {first}–{last}" if first != last else f"{path} {first}"


class Rows:
    """Each submission's triage row with its spans, read once when a pair in detail needs it."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.found: dict[str, cohorts.Row] = {}

    def __call__(self, name: str) -> cohorts.Row:
        if name not in self.found:
            self.found[name] = cohorts.load_row(self.index.entries[name].path, spans=True)
        return self.found[name]


def pair_authors(
    pair: similarity.Pair, found: list[similarity.Fragment], rows: Rows, shown: Callable[[str], str]
) -> list[str]:
    """A sentence for each fragment one side's history credits to an assistant while the other side
    discloses none (nothing in its history or note names one)."""
    said: list[str] = []
    sides = ((pair.a, "a", pair.b), (pair.b, "b", pair.a))
    for writer, side, other in sides:
        other_row = rows(other)
        if other_row.assistants or other_row.problem:
            continue
        spans = (rows(writer).attribution or {}).get("spans") or []
        for fragment in found:
            path, (first, last) = (
                (fragment.path_a, fragment.lines_a) if side == "a" else (fragment.path_b, fragment.lines_b)
            )
            tool = authors.fragment_tool(spans, path, first, last)
            if tool:
                said.append(authors.sentence(shown(writer), tool, shown(other), _where(fragment, side)))
    return said


def pair_json(
    rank: int,
    pair: similarity.Pair,
    index: Index,
    comparison: similarity.Comparison,
    rows: Rows | None,
    shown: Callable[[str], str],
) -> dict:
    comparison.explain(pair)
    data: dict = {
        "rank": rank,
        "a": shown(pair.a),
        "b": shown(pair.b),
        "share_a": round(pair.share_a, 4),
        "share_b": round(pair.share_b, 4),
        "similarity": round(pair.similarity, 4),
        "shared": pair.shared,
        "own_a": pair.own_a,
        "own_b": pair.own_b,
        "left_out": pair.left_out,
        "common_to": pair.common_to,
        "why": pair.why(),
        "fragments": None,
        "fragment_count": None,
        "longest": None,
        "authors": None,
    }
    if rows is None or not pair.shared:
        return data
    a, b = index.full(pair.a), index.full(pair.b)
    assert a is not None and b is not None
    wanted = comparison.own_hashes[pair.a] & comparison.own_hashes[pair.b]
    found = similarity.fragments(a, b, wanted)
    data["fragment_count"] = len(found)
    data["fragments"] = [f.to_json() for f in found[:FRAGMENTS]]
    data["longest"] = found[0].to_json() if found else None
    data["authors"] = pair_authors(pair, found[:FRAGMENTS], rows, shown)
    return data


def report(
    index: Index, everything: bool = False, detail: int = DETAIL, masked: tuple | None = None, authorship: bool = True
) -> dict:
    """The whole document. `masked`: (masker, aliases) of a candidate-blind reader. `authorship`:
    read each detailed pair's rows for who wrote the fragments (a triage row each, cached as rows are)."""
    comparison = index.compare(everything=everything)
    masker, aliases = masked if masked else (None, {})

    def shown(name: str) -> str:
        return aliases.get(name, masker.mask(name)) if masker else name

    def text(value: str) -> str:
        return masker.mask(value) if masker else value

    rows = Rows(index) if authorship else None
    best = comparison.best()
    submissions = []
    for entry in sorted(index.entries.values(), key=lambda e: e.name):
        prints = entry.prints
        top = best.get(entry.name)
        submissions.append(
            {
                "name": shown(entry.name),
                "problem": text(entry.problem) if entry.problem else None,
                "own": comparison.own.get(entry.name),
                "left_out": comparison.left_out.get(entry.name),
                "common_to": comparison.common_to.get(entry.name),
                "compared": [text(f.path) for f in prints.files] if prints else [],
                "not_compared": [{"path": text(p), "reason": why} for p, why in prints.skipped] if prints else [],
                "unchanged_from_starter": entry.unchanged,
                "top": {"with": shown(top[0]), "share": round(top[1], 4)} if top else None,
            }
        )
    # Listed: the first `detail` pairs, and each submission's own top pair (every pair with --all).
    number = {name: n for n, name in enumerate(comparison.names)}
    tops = {tuple(sorted((number[name], number[other]))) for name, (other, _) in best.items()}
    pairs = [
        pair_json(rank, comparison.pair(found), index, comparison, rows if rank <= detail else None, shown)
        for rank, found in enumerate(comparison.ranked, start=1)
        if everything or rank <= detail or found[2:4] in tops
    ]
    if masker:
        for pair in pairs:
            for fragment in pair["fragments"] or []:
                for side in ("a", "b"):
                    fragment[side]["path"] = text(fragment[side]["path"])
            if pair["longest"]:
                for side in ("a", "b"):
                    pair["longest"][side]["path"] = text(pair["longest"][side]["path"])
    return {
        "cohort": str(index.cohort),
        "method": {
            "tokens": "tree-sitter (JavaScript, TypeScript): identifiers, literals, comments and whitespace normalised",
            "k": similarity.K,
            "window": similarity.WINDOW,
            "common_share": similarity.COMMON_SHARE,
            "common_min": similarity.COMMON_MIN,
            "common_at": comparison.common_at,
            "left_out": [STARTER, DRAFT, "common"],
            "detailed_pairs": min(detail, len(pairs)),
        },
        "pairs_total": len(comparison.ranked),
        "submissions": submissions,
        "pairs": pairs,
        "left_out_pairs": [pair_json(0, p, index, comparison, None, shown) for p in comparison.left_out_pairs]
        if everything
        else None,
    }


def by_name(report_: dict) -> dict[str, dict]:
    return {s["name"]: s for s in report_["submissions"]}


def cohort_report(cohort: Path, **options) -> dict:
    from review.services import similarity

    return report(similarity.build(cohort), **options)
