"""Every command of ``review``, in one list: its name, its one-line help, how its arguments are
declared and what runs it. The parser, the help listing and ``review COHORT`` are all built from it."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from review import __version__
from review.cli import console, dev, headless, prepare


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    # The console handles its own keys and signals; every other command stops cleanly on them.
    opens_console: bool = False


COMMANDS = (
    Command("open", "open the console on a cohort folder (the default: `review COHORT`)",
            console.open_arguments, console.run_open, opens_console=True),
    Command("demo", "build the bundled sample cohort as git repos and open it",
            console.demo_arguments, console.run_demo, opens_console=True),
    Command("triage", "the triage rows, headless", headless.triage_arguments, headless.run_triage),
    Command("harness", "run a submission against the pinned fake gateway",
            headless.harness_arguments, headless.run_harness),
    Command("export", "every review of a cohort, with per-signal tiers and agreement",
            headless.export_arguments, headless.run_export),
    Command("bench", "benchmarks that print figures and ratios", dev.bench_arguments, dev.run_bench),
    Command("doctor", "what this machine gives the console: versions, sandbox, folders",
            dev.doctor_arguments, dev.run_doctor),
    Command("lint-prompt", "warn where a task text leaks the mechanism or omits what is graded",
            prepare.lint_prompt_arguments, prepare.run_lint_prompt),
    Command("import", "a cohort from bundles, zip/tar archives, folders or clone URLs",
            prepare.import_arguments, prepare.run_import),
    Command("calibrate", "slip known-answer submissions into a cohort; --report: drift",
            prepare.calibrate_arguments, prepare.run_calibrate),
)
BY_NAME = {command.name: command for command in COMMANDS}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="review", description="Grade take-home submissions in the terminal.")
    parser.add_argument("--version", action="version", version=f"review {__version__}")
    # `open` is listed as COHORT: `review COHORT` is how it is typed.
    listing = ",".join("COHORT" if c.name == "open" else c.name for c in COMMANDS)
    sub = parser.add_subparsers(dest="command", metavar=f"{{{listing}}}")
    for command in COMMANDS:
        command.arguments(sub.add_parser(command.name, help=command.help))
    return parser
