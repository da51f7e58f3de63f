"""The commands that prepare a cohort: ``review lint-prompt``, ``review import`` and
``review calibrate``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from review.core.text import safe_line
from review.support import files

PROMPT_CAP = 1 << 20  # a task text is a page; a larger file is not one


def lint_prompt_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path)
    parser.add_argument("--json", action="store_true", help="one JSON document")


def import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dest", type=Path, help="the cohort folder (made if missing)")
    parser.add_argument(
        "sources",
        nargs="+",
        help="a folder, a git bundle, a .zip/.tar(.gz) archive, or a file:// or https:// URL; one candidate each",
    )
    parser.add_argument("--json", action="store_true", help="one JSON document")


def calibrate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cohort", type=Path)
    parser.add_argument("--count", type=int, default=2, help="how many to add (default 2)")
    parser.add_argument(
        "--report", action="store_true", help="add nothing: print each reviewer's drift per signal on the ones scored"
    )


def run_lint_prompt(args: argparse.Namespace) -> int:
    """Exit 0 when the text is clean, 1 with warnings, 2 when it cannot be read."""
    from review.core import prompt_lint

    try:
        raw, cut = files.read_regular(args.file, PROMPT_CAP)
        if cut:
            raise files.TooLarge(f"larger than {PROMPT_CAP >> 10} KiB: not a task text")
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        print(f"review: {args.file} is not UTF-8 text", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"review: {args.file} cannot be read: {error.strerror or error}", file=sys.stderr)
        return 2
    warnings = prompt_lint.lint(text)
    if args.json:
        print(json.dumps({"file": str(args.file), "warnings": [w.to_json() for w in warnings]}, indent=2))
        return 1 if warnings else 0
    for warning in warnings:
        where = f"{args.file}:{warning.line_no}" if warning.line_no else str(args.file)
        if warning.kind == "omits":
            print(f"{where}: omits {warning.name}: nowhere does the text ask for it")
        else:
            print(f"{where}: {warning.kind} ({warning.name}): {safe_line(warning.line, 200)}")
        print(f"    why: {warning.why}")
    counts = {kind: sum(1 for w in warnings if w.kind == kind) for kind in ("leak", "giveaway", "omits")}
    print(f"{args.file}: " + (", ".join(f"{n} {kind}" for kind, n in counts.items() if n) or "no warnings"))
    return 1 if warnings else 0


def run_import(args: argparse.Namespace) -> int:
    """Exit 0 when every source was imported, 1 when one or more failed (each listed with its reason)."""
    from review.services import importer

    if args.dest.exists() and not args.dest.is_dir():
        print(f"review: {args.dest} is not a folder", file=sys.stderr)
        return 2
    results = importer.import_sources(args.dest, list(args.sources))
    if args.json:
        print(json.dumps({"cohort": str(args.dest), "imports": [r.to_json() for r in results]}, indent=2))
    else:
        for result in results:
            if result.problem:
                print(f"FAILED  {safe_line(result.source, 200)} ({result.kind}): {safe_line(result.problem, 400)}")
            else:
                print(
                    f"ok      {result.name:<24} ← {safe_line(result.source, 200)} ({result.kind}, "
                    f"HEAD {(result.head or '')[:12]})"
                )
        failed = sum(1 for r in results if r.problem)
        print(
            f"{len(results) - failed} imported into {args.dest}, {failed} failed; "
            f"manifest: {args.dest / importer.MANIFEST}"
        )
    return 1 if any(r.problem for r in results) else 0


def run_calibrate(args: argparse.Namespace) -> int:
    from review.services import calibration

    try:
        if args.report:
            drift = calibration.drift(args.cohort)
            if not drift:
                print(f"no final review of a calibration submission in {args.cohort} yet")
                return 0
            print(f"{'reviewer':<16} {'signal':<14} {'items':>5} {'vs reference':>13} {'vs pair':>8}")
            for d in drift:
                print(
                    f"{safe_line(d.reviewer, 16):<16} {d.signal:<14} {d.items:>5} {_signed(d.vs_reference):>13} "
                    f"{_signed(d.vs_pair):>8}"
                )
            print("below 0: stricter than the reference (or than the others); weak=0, acceptable=1, strong=2")
            return 0
        planted = calibration.plant(args.cohort, args.count)
    except calibration.CalibrationError as error:
        print(f"review: {error}", file=sys.stderr)
        return 2
    print(
        f"{len(planted)} known-answer submission(s) added to {args.cohort}, unmarked among the others; which "
        f"they are is kept in {calibration.ledger_path()} (never in the cohort). After scoring: "
        f"review calibrate {args.cohort} --report, or review export."
    )
    return 0


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{value:+.2f}"
