"""Every command of ``review``, in one list: its name, its one-line help, how its arguments are
declared and what runs it. The parser, the help listing and ``review COHORT`` are all built from it."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from review import __version__
from review.cli import console, dev, headless, prepare, serve


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
    Command("serve", "the console in a browser: one console per tab, behind a token, on loopback",
            serve.serve_arguments, serve.run_serve),
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


USAGE = "review [OPTIONS] COHORT\n       review COMMAND [ARGS]   (review COMMAND --help for each)"
META = {"-h", "--help", "--version"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="review", usage=USAGE,
        description="Grade take-home submissions in the terminal: `review COHORT` opens the console on a folder "
                    "of submissions (one git repository each). Options may come before or after the folder.")
    parser.add_argument("--version", action="version", version=f"review {__version__}")
    console.console_arguments(parser.add_argument_group("console options (review COHORT, review demo)"),
                              listed_only=True)
    # `open` is listed as COHORT: `review COHORT` is how it is typed.
    listing = ",".join("COHORT" if c.name == "open" else c.name for c in COMMANDS)
    sub = parser.add_subparsers(dest="command", metavar=f"{{{listing}}}", title="commands")
    for command in COMMANDS:
        command.arguments(sub.add_parser(command.name, help=command.help, description=command.help))
    return parser


def normalise(argv: list[str]) -> list[str]:
    """Options in any order, as with git or tig: the console's options before the first word are
    moved after it (`review --theme X demo` is `review demo --theme X`), and a first word that is no
    command is the cohort folder (`review --reviewer bob COHORT` is `review open COHORT --reviewer bob`).
    Anything else (`--help`, `--version`, an unknown option) is left for the parser to answer."""
    leading: list[str] = []
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--" or word in META:
            return argv
        if not word.startswith("-") or word == "-":
            break
        flag = word.split("=", 1)[0]
        if flag not in {name for name, _ in console.CONSOLE_OPTIONS}:
            return argv
        step = 2 if "=" not in word and console.takes_value(flag) else 1
        leading += argv[index:index + step]
        index += step
    else:
        # Options alone, no folder or command: the parser says what is missing.
        return argv
    word, rest = argv[index], argv[index + 1:]
    if word in BY_NAME:
        return [word, *leading, *rest]
    return ["open", *leading, word, *rest]
