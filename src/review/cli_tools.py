"""The cohort-preparation commands: ``review lint-prompt``, ``review import`` and
``review calibrate`` (kept apart from cli.py, which holds the reviewing ones)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from review import files
from review.core.text import safe_line

PROMPT_CAP = 1 << 20  # a task text is a page; a larger file is not one


def add_parsers(sub) -> None:
    lint_p = sub.add_parser("lint-prompt", help="warn where a task text leaks the mechanism or omits what is graded")
    lint_p.add_argument("file", type=Path)
    lint_p.add_argument("--json", action="store_true", help="one JSON document")


def cmd_lint_prompt(args: argparse.Namespace) -> int:
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


COMMANDS = {"lint-prompt": cmd_lint_prompt}
