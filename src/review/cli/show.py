"""``review show SUBMISSION``: the submission screen's evidence, headless — the row's summary, every
hint per rubric signal and flag with what it quotes and where it points, what the code says, and the
cached suite (never run here). One document (services.evidence_document) feeds this and the screen."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from review.core import scenarios as core_scenarios
from review.core.text import safe_line, wrapped


def show_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("submission", type=Path)
    parser.add_argument("--commit", default="HEAD", help="the commit to show (any revision; default HEAD)")
    parser.add_argument("--json", action="store_true", help="one JSON document (fields in the docs)")


def run_show(args: argparse.Namespace) -> int:
    from review import gitsafe
    from review.services import cohort, evidence_document

    named = safe_line(str(args.submission))
    if args.submission.is_symlink():
        print(f"review: {named}: a symbolic link; not followed (name the folder it points to)", file=sys.stderr)
        return 2
    if not args.submission.is_dir():
        why = "not a folder" if args.submission.exists() else "no such folder"
        print(f"review: {named}: {why}", file=sys.stderr)
        return 2
    try:
        document = evidence_document.show(args.submission, args.commit, core_scenarios.HEADLESS_AGAIN)
    except (gitsafe.GitSafeError, cohort.CohortError) as error:
        print(f"review: {named}: {safe_line(str(error))}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(document.to_json(), sys.stdout, indent=2)
        print()
        return 0
    print("\n".join(text_lines(document)))
    return 0


def text_lines(document) -> list[str]:
    """The document as a reviewer reads it in a terminal or a pipe: at most 80 columns a line."""
    from review.core import triage

    summary, suite = document.summary, document.suite
    at = summary.commit[:12] + (" (HEAD)" if summary.commit == summary.head else f" (HEAD is {summary.head[:12]})")
    share = triage.shares_text(summary.ai_share, summary.person_share, summary.unknown_share) or "no lines counted"
    if summary.base_lines:
        share += f" · {summary.base_lines} lines from the base, not counted"
    lines = wrapped(f"{summary.name} @ {at} · {summary.commits} commits", "", "  ")
    lines += wrapped(
        f"assistants: {', '.join(summary.assistants) or 'none'} · {share} · disclosure: {summary.disclosure}"
        f" · state: {summary.state}",
        "",
        "  ",
    )
    runs = triage.marks(summary.runs) if summary.runs else "—"
    lines += wrapped(f"key scope: {summary.key_scope or '—'} · runs: {runs} · harness: {suite.said}", "", "  ")
    for note in [summary.base_note, *summary.cut]:
        if note:
            lines += wrapped(f"note: {note}", "", "  ")
    for kind, heading in (("signal", None), ("flag", "Failure-mode flags")):
        if heading:
            lines += ["", heading]
        for section in (s for s in document.sections if s.kind == kind):
            lines += ["", *wrapped(section.title, "" if kind == "signal" else "  ", "    ")]
            indent = "  " if kind == "signal" else "    "
            if not section.hints:
                lines.append(f"{indent}(nothing observed)")
            for hint in section.hints:
                lines += wrapped(hint.text, f"{indent}· ", f"{indent}  ")
                lines += wrapped(f"→ {hint.where}", f"{indent}    ", f"{indent}      ")
    lines += ["", "Code (read from its syntax tree)"]
    for site in document.code.sites:
        lines += wrapped(f"{site.kind} {site.path}:{site.line}: {site.text}", "  ", "      ")
    for timeout in document.code.timeouts:
        length = f"{timeout.ms:g} ms" if timeout.ms is not None else "length not read"
        lines += wrapped(
            f"timeout {timeout.path}:{timeout.line} ({timeout.how}, {length}): {timeout.text}", "  ", "      "
        )
    for problem in document.code.problems:
        lines += wrapped(problem, "  ! ", "      ")
    if not (document.code.sites or document.code.timeouts or document.code.problems):
        lines.append("  no request, key or timeout found in the code")
    lines += similar_lines(document)
    lines += ["", *wrapped(f"Suite: {suite.said}", "", "  ")]
    for scenario in suite.scenarios:
        lines += wrapped(
            f"{scenario['name']}: {_verdict(scenario)} · requests {scenario['requests']} · keys "
            f"{scenario['distinct_keys']} · charges created {scenario['charges_created']}",
            "  ",
            "    ",
        )
        lines += wrapped("; ".join(scenario["reasons"]), "      ", "      ")
        for said in scenario.get("read_from_code", []):
            lines += wrapped(f"read from the code: {said}", "      ", "        ")
    return lines


def _verdict(scenario: dict) -> str:
    if scenario.get("hung_under_load"):
        return core_scenarios.hung_under_load(
            scenario.get("load_average"), scenario.get("cores"), core_scenarios.HEADLESS_AGAIN
        )
    return scenario["verdict"]


def similar_lines(document) -> list[str]:
    """The submission's pairs in its cohort: the shares each way, the longest fragment, what was left
    out and who wrote the fragments, as `review similar` says them."""
    lines = ["", "Similar code in the cohort (review similar)"]
    for pair in document.similar:
        other, mine, theirs = (pair["b"], pair["share_a"], pair["share_b"])
        if pair["b"] == document.summary.name:
            other, mine, theirs = pair["a"], pair["share_b"], pair["share_a"]
        lines += wrapped(
            f"#{pair['rank']} {other}: {mine:.0%} of this submission's own code is in {other}'s, "
            f"{theirs:.0%} of {other}'s in this one",
            "  · ",
            "    ",
        )
        longest = pair["longest"]
        if longest:
            a, b = longest["a"], longest["b"]
            lines += wrapped(
                f"longest shared: {pair['a']} {a['path']} {a['first']}–{a['last']} ↔ "
                f"{pair['b']} {b['path']} {b['first']}–{b['last']}",
                "    ",
                "      ",
            )
        for said in [pair["why"], *(pair["authors"] or [])]:
            if said:
                lines += wrapped(said, "    ", "      ")
    if document.similar_problem:
        lines += wrapped(document.similar_problem, "  ! ", "    ")
    elif not document.similar:
        lines.append("  shares none of its own code with another submission")
    return lines
