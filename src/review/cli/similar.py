"""``review similar COHORT``: which submissions share code they did not write (fields in docs/formats.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from review.core.text import safe_line, wrapped


def similar_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cohort", type=Path)
    parser.add_argument("--json", action="store_true", help="one JSON document (fields in docs/formats.md)")
    parser.add_argument(
        "--top", type=int, default=20, metavar="N", help="pairs given in detail: fragments, who wrote them (default 20)"
    )
    parser.add_argument(
        "--all", action="store_true", help="also the pairs that share only the starter, the draft or common fragments"
    )
    blind = parser.add_mutually_exclusive_group()
    blind.add_argument(
        "--anonymous", action="store_true", help="candidate-blind: submissions as candidate-N, names masked"
    )
    blind.add_argument("--reveal", action="store_true", help="names shown although cohort.toml says anonymous = true")


def run_similar(args: argparse.Namespace) -> int:
    from review.services import cohort, similar_report, similarity

    if args.top < 0:
        print("review: --top takes a number of pairs, 0 or more", file=sys.stderr)
        return 2
    try:
        masked = None
        if args.anonymous or (cohort.cohort_blind(args.cohort) and not args.reveal):
            masked = cohort.blind_masker(args.cohort)
        index = similarity.build(args.cohort)
    except cohort.CohortError as error:
        print(f"review: {error}", file=sys.stderr)
        return 2
    document = similar_report.report(index, everything=args.all, detail=args.top, masked=masked)
    if args.json:
        # One write: json.dump's many small ones cost seconds on a cohort's thousands of pairs.
        sys.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")
        return 0
    if not document["submissions"]:
        print(safe_line(cohort.empty_cohort_text(args.cohort), 400))
        return 0
    sys.stdout.write("\n".join(render(document, args.top)) + "\n")
    return 0


def _wrapped(text: str, indent: str = "    ") -> list[str]:
    return wrapped(text, indent, indent + "  ")


def _share(value: float) -> str:
    return f"{round(100 * value)}%"


def _fragment(data: dict) -> str:
    def side(part: dict) -> str:
        lines = f"{part['first']}–{part['last']}" if part["first"] != part["last"] else str(part["first"])
        return f"{part['path']} {lines}"

    return f"{side(data['a'])} ↔ {side(data['b'])} ({data['tokens']} tokens)"


def render(document: dict, top: int) -> list[str]:
    """The document in 80 columns: the method, the pairs highest first, then what was not compared."""
    from review.core.similarity import own_text

    method = document["method"]
    out = _wrapped(
        f"{len(document['submissions'])} submissions; code (.mjs .js .cjs .ts) compared as tree-sitter tokens "
        "(names, literals, "
        f"comments normalised), k-grams of {method['k']} winnowed over {method['window']}. Left out of every "
        f"score: the starter, the model draft, fragments in {method['common_at']} or more submissions.",
        "",
    )
    pairs = document["pairs"]
    if not pairs:
        out.append("No two submissions share code of their own.")
    for pair in pairs[:top]:
        out.append("")
        out += _wrapped(f"{pair['rank']:>2}  {pair['a']} ↔ {pair['b']}  similarity {_share(pair['similarity'])}", "")
        out += _wrapped(
            f"{_share(pair['share_a'])} of {pair['a']}'s own code is in {pair['b']}; "
            f"{_share(pair['share_b'])} of {pair['b']}'s is in {pair['a']}"
        )
        if pair["longest"]:
            more = pair["fragment_count"] - 1
            out += _wrapped(f"longest: {_fragment(pair['longest'])}" + (f"; {more} more" if more else ""))
        if pair["why"]:
            out += _wrapped(pair["why"])
        for said in pair["authors"] or []:
            out += _wrapped(said)
    if document["pairs_total"] > top:
        out.append("")
        out += _wrapped(
            f"{document['pairs_total'] - top} more pairs share code of their own, lower (--top N shows more; "
            "--json gives each submission's top pair too, --all every pair)",
            "",
        )
    if document["left_out_pairs"]:
        out.append("")
        out.append("Pairs that share only left-out code:")
        for pair in document["left_out_pairs"]:
            out += _wrapped(f"{pair['a']} ↔ {pair['b']}: {pair['why']}")
    out.append("")
    out.append("Left out, per submission:")
    for entry in document["submissions"]:
        if entry["problem"]:
            out += _wrapped(f"{entry['name']}: not read: {entry['problem']}")
            continue
        skipped = [f"{item['path']} ({item['reason']})" for item in entry["not_compared"]]
        line = f"{entry['name']}: {own_text(entry['own'], entry['left_out'], entry['common_to'])}"
        if entry["unchanged_from_starter"]:
            line += f"; {entry['unchanged_from_starter']} files unchanged from the starter"
        if skipped:
            line += "; not compared: " + ", ".join(skipped)
        out += _wrapped(line, "  ")
    return out
