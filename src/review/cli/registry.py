"""Every command of ``review``, in one list: its name, its one-line help, and the module that
declares its arguments and runs it. The parser, the help listing and ``review COHORT`` are all built
from it. A command's module is imported only when that command is parsed or run: `review --version`
and `review --help` load none of them."""

from __future__ import annotations

import argparse
import importlib
import os

from review import __version__
from review.cli import console


# A plain class, not a dataclass: `review --help` and `--version` never import dataclasses (7 ms).
class Command:
    def __init__(
        self, name: str, help: str, module: str, opens_console: bool = False, console_options: bool = False
    ) -> None:
        self.name, self.help = name, help
        # review.cli.<module>: its `<stem>_arguments(parser)` and `run_<stem>(args)`, stem the name with _ for -.
        self.module = module
        # The console handles its own keys and signals; every other command stops cleanly on them.
        self.opens_console = opens_console
        # Takes the console's options (--theme, --reviewer…): every command that opens it, and serve.
        self.console_options = console_options or opens_console

    @property
    def _stem(self) -> str:
        return self.name.replace("-", "_")

    def arguments(self, parser: argparse.ArgumentParser) -> None:
        getattr(importlib.import_module(f"review.cli.{self.module}"), f"{self._stem}_arguments")(parser)

    def run(self, args: argparse.Namespace) -> int:
        return getattr(importlib.import_module(f"review.cli.{self.module}"), f"run_{self._stem}")(args)


COMMANDS = (
    Command(
        "open",
        "(listed as COHORT above) open the console on a cohort folder: `review COHORT`, or `review open COHORT`",
        "console",
        opens_console=True,
    ),
    Command("demo", "build the bundled sample cohort as git repos and open it", "console", opens_console=True),
    Command(
        "serve",
        "the console in a browser: one console per tab, behind a token, on loopback",
        "serve",
        console_options=True,
    ),
    Command("triage", "the triage rows, headless", "headless"),
    Command("harness", "run a submission against the pinned fake gateway", "headless"),
    Command("show", "one submission's evidence beside each rubric signal, and its cached suite", "show"),
    Command("export", "every review of a cohort, with per-signal tiers and agreement", "headless"),
    Command("similar", "pairs of submissions that share code, the starter and the model draft left out", "similar"),
    Command("bench", "benchmarks that print figures and ratios", "dev"),
    Command("doctor", "what this machine gives the console: versions, sandbox, folders", "dev"),
    Command("lint-prompt", "warn where a task text leaks the mechanism or omits what is graded", "prepare"),
    Command("import", "a cohort from bundles, zip/tar archives, folders or clone URLs", "prepare"),
    Command("calibrate", "slip known-answer submissions into a cohort; --report: drift", "prepare"),
)
BY_NAME = {command.name: command for command in COMMANDS}
# The commands the console's options belong to, as help and the messages name them.
CONSOLE_COMMANDS = ", ".join(
    "review COHORT" if c.name == "open" else f"review {c.name}" for c in COMMANDS if c.console_options
)


USAGE = "review [OPTIONS] COHORT\n       review COMMAND [ARGS]   (review COMMAND --help for each)"
META = {"-h", "--help", "--version"}


EVERY = "*"


def build_parser(command_name: str | None = EVERY) -> argparse.ArgumentParser:
    """The parser of `review`. `command_name`: the one command whose arguments are declared (its module
    imported); None for none (`review --help`, `review --version`); EVERY for all of them."""
    parser = argparse.ArgumentParser(
        prog="review",
        usage=USAGE,
        description="Grade take-home submissions in the terminal: `review COHORT` opens the console on a folder "
        "of submissions (one git repository each). Options may come before or after the folder.",
    )
    parser.add_argument("--version", action="version", version=f"review {__version__}")
    console.console_arguments(parser.add_argument_group(f"console options ({CONSOLE_COMMANDS})"), listed_only=True)
    # prog: each command's usage starts `review demo …`, not with the two-line usage of `review` itself.
    # COMMAND, not argparse's {a,b,…}: the commands are listed one a line below it, within 80 columns.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands", prog="review")
    for command in COMMANDS:
        command_parser = sub.add_parser(command.name, help=command.help, description=command.help)
        if command_name in (EVERY, command.name):
            command.arguments(command_parser)
    return parser


def command_parser(parser: argparse.ArgumentParser, name: str | None) -> argparse.ArgumentParser:
    """The parser of command `name` inside `parser` (the parser itself when there is none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            return action.choices[name]
    return parser


def mistyped_command(argv: list[str], words: list[str]) -> str | None:
    """Why the first word is neither a command nor a folder, when it looks like a mistyped command
    (`review trige COHORT`): read as a cohort folder it would end in a message about the wrong thing."""
    if not words or words[0] != "open" or "open" in argv[:1]:
        return None
    folder = words[words.index("open") + 1 :][:1]
    if not folder or folder[0].startswith("-") or os.path.exists(folder[0]):
        return None
    import difflib

    names = [command.name for command in COMMANDS if command.name != "open"]
    close = difflib.get_close_matches(folder[0], names, n=1, cutoff=0.6)
    more = [word for word in words[2:] if not word.startswith("-")]
    if close:
        return f"{folder[0]!r} is neither a command nor a folder; did you mean `review {close[0]}`?"
    if more:
        return f"{folder[0]!r} is neither a command nor a folder (commands: {', '.join(names)})"
    return None


def misplaced_option(argv: list[str], words: list[str]) -> str | None:
    """Why a console option typed before a command that does not take it is refused, naming the
    option (`review --reviewer bob triage COHORT`): left to the command's parser, the folder read as
    the option's value made the message name the wrong thing."""
    if not argv or not argv[0].startswith("-") or not words or words[0] not in BY_NAME:
        return None
    command = BY_NAME[words[0]]
    if command.console_options:
        return None
    flag = argv[0].split("=", 1)[0]
    return f"{flag} is an option of the console ({CONSOLE_COMMANDS}); `review {command.name}` does not take it"


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
        leading += argv[index : index + step]
        index += step
    else:
        # Options alone, no folder or command: the parser says what is missing.
        return argv
    word, rest = argv[index], argv[index + 1 :]
    if word in BY_NAME:
        return [word, *leading, *rest]
    return ["open", *leading, word, *rest]
