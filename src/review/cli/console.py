"""The commands that open the console: ``review COHORT`` (``open``) and ``review demo``."""

from __future__ import annotations

import argparse
import sys

from review.core.text import safe_line, wrapped
from review.tui import DEFAULT_THEME

# typing's own flag would import typing (2 ms) into `review --help`; checkers know this one too.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

UNSAFE_HELP = (
    "run candidate code without bubblewrap, with Node's permission flags alone (no network or "
    "process isolation): only for code you trust; every result says so"
)
MAX_REVIEWER = 64


# The console's own options: `review [OPTIONS] COHORT`, `review COHORT [OPTIONS]`, `review demo [OPTIONS]`.
# (flags, argparse keywords); `review --help` lists them as they are here, and so does the table in docs/usage.md.
CONSOLE_OPTIONS: tuple[tuple[str, dict], ...] = (
    (
        "--theme",
        {
            "default": DEFAULT_THEME,
            "metavar": "NAME",
            "help": "theme name (bundled: review-dark, review-light, review-high-contrast; also "
            "Textual's, e.g. ansi-dark for tmux)",
        },
    ),
    (
        "--reviewer",
        {
            "action": "append",
            "default": [],
            "metavar": "NAME",
            "help": "who is reviewing (default: your login name); give it twice for a pair",
        },
    ),
    (
        "--blind",
        {"action": "store_true", "help": "hide other reviewers' scores, and how far they agree, until yours is final"},
    ),
    (
        "--no-harness",
        {"action": "store_true", "help": "do not run the harness in the background for the triage column"},
    ),
    (
        "--anonymous",
        {
            "action": "store_true",
            "help": "candidate-blind: names, e-mails and folder names shown as candidate-N (A twice lifts it)",
        },
    ),
    ("--unsafe-no-sandbox", {"action": "store_true", "help": UNSAFE_HELP}),
)


def console_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup, listed_only: bool = False) -> None:
    """The console's options on `parser`. `listed_only`: shown in help, but setting nothing when absent
    (the top-level parser, whose options are handed to `open` or `demo`)."""
    for flag, keywords in CONSOLE_OPTIONS:
        if listed_only:
            keywords = {**keywords, "default": argparse.SUPPRESS}
        parser.add_argument(flag, **keywords)


def takes_value(flag: str) -> bool:
    """Whether the console option `flag` is followed by a value (`--theme NAME`)."""
    return any(name == flag and keywords.get("action") in (None, "append") for name, keywords in CONSOLE_OPTIONS)


def open_arguments(parser: argparse.ArgumentParser) -> None:
    # Here, not at the top: `review --help` and `--version` never import pathlib.
    from pathlib import Path

    parser.add_argument("cohort", type=Path)
    console_arguments(parser)


def demo_arguments(parser: argparse.ArgumentParser) -> None:
    from pathlib import Path

    from review.support import paths

    parser.add_argument("--into", type=Path, default=None, help=f"where to build (default {paths.demo_dir()})")
    parser.add_argument("--build-only", action="store_true", help="build, print the folder, do not open")
    console_arguments(parser)


def run_open(args: argparse.Namespace) -> int:
    return _open(args.cohort, args)


def run_demo(args: argparse.Namespace) -> int:
    from review.services import samples

    built = samples.build_sample_cohort(args.into)
    # Still on the terminal after the console closes: wrapped at 80 columns, never inside a word.
    said = [f"review demo: {line}" for line in built.kept]
    if built.kept:
        said.append("review demo: `review demo --into DIR` builds a fresh sample cohort elsewhere.")
    for line in said:
        print("\n".join(wrapped(line, long_words=False)), file=sys.stderr)
    if args.build_only:
        print(built.folder)
        return 0
    return _open(built.folder, args, built.kept)


def check_reviewers(names: list[str]) -> str | None:
    """Why these reviewer names cannot be saved in a score file, or None."""
    for name in names:
        if not name.strip():
            return "a reviewer name cannot be empty"
        if len(name) > MAX_REVIEWER:
            return f"a reviewer name is at most {MAX_REVIEWER} characters ({len(name)} given)"
        if safe_line(name, MAX_REVIEWER + 1) != name or any(ch.isspace() and ch != " " for ch in name):
            return f"reviewer name {safe_line(name, 80)!r} holds control, invisible or line-breaking characters"
    return None


def _check_theme(name: str):
    """The themes loaded, or None (with a message) when `name` is none of them. Textual is imported
    here, not at the top: the headless commands (triage --json, harness, export) never load it."""
    from textual.theme import BUILTIN_THEMES

    from review.tui import themes

    load = themes.load_themes()
    if name not in load.themes and name not in BUILTIN_THEMES:
        for failure in load.failures:
            print(f"review: theme not loaded: {failure}", file=sys.stderr)
        names = ", ".join(sorted({*load.themes, *BUILTIN_THEMES}))
        print(f"review: unknown theme {name!r}; available: {names}", file=sys.stderr)
        return None
    return load


def check_options(cohort_dir: Path, args: argparse.Namespace):
    """(the themes loaded, the keymap) when the cohort and the console's options are usable, else None
    after saying on stderr why not (`review serve` checks them once before any tab starts a console)."""
    from review.services import cohort

    cohort.list_submissions(cohort_dir)
    problem = check_reviewers(args.reviewer)
    if problem:
        print(f"review: {problem}", file=sys.stderr)
        return None
    load = _check_theme(args.theme)
    if load is None:
        return None
    from review.tui import keymap

    try:
        keys = keymap.load()
    except keymap.KeymapError as error:
        print(f"review: {error}", file=sys.stderr)
        return None
    return load, keys


def make_app(cohort_dir: Path, args: argparse.Namespace):
    """The console for `cohort_dir` as the options ask, or None after saying on stderr why not.
    A clear message and exit 2 come before the screen takes over."""
    checked = check_options(cohort_dir, args)
    if checked is None:
        return None
    load, keys = checked
    from review.services import cohort
    from review.tui.app import ReviewApp

    return ReviewApp(
        cohort_dir,
        theme=args.theme,
        reviewers=tuple(args.reviewer),
        theme_load=load,
        run_harness=not args.no_harness,
        blind=args.blind,
        anonymous=args.anonymous or cohort.cohort_blind(cohort_dir),
        keymap=keys,
    )


def _open(cohort_dir: Path, args: argparse.Namespace, notices: list[str] | None = None) -> int:
    app = make_app(cohort_dir, args)
    if app is None:
        return 2
    app.notices = notices or []
    app.run()
    # Textual sets 1 after an exception it printed: never "ok" after a crash.
    return app.return_code or 0
