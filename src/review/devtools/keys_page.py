"""docs/keys.md, written from the bindings themselves so the page cannot drift from the console:
every binding this project declares, grouped by the pane or screen that owns it, with its keys, what
it does and its binding id (the name `keymap.toml` remaps it by).

    python -m review.devtools.keys_page            # rewrite docs/keys.md
    python -m review.devtools.keys_page --check    # exit 1 when docs/keys.md is not what it would write
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from pathlib import Path

from textual.binding import Binding
from textual.keys import format_key

# Owners that name no group of their own (the help screen's groups come from the same attributes).
TITLES = {"ReviewApp": "Everywhere", "TriageTable": "Triage", "HelpScreen": "Help", "ScenarioPicker": "Scenario list"}
# The order a reviewer meets them in; a group not listed comes after these, by name.
ORDER = ("Everywhere", "Triage", "Submission", "Diff", "Note", "Commits", "Rubric", "Stub log")
HEADER = """\
# Keys

<!-- Written by `python -m review.devtools.keys_page` from the console's bindings; do not edit by hand
(a test compares this page with what it would write). -->

Every key of the console, by the pane or screen it works in. `?` in the console lists the keys of the
screen you are on, with the focused pane's first. The binding id is the name a key is remapped by in
`keymap.toml` ([keymap](usage.md#keymap)); the keys shown are the defaults.
"""


def _owners() -> list[tuple[str, list[tuple[Binding, str]]]]:
    """(group title, [(binding, what it does)]) per class of review.tui declaring bindings with ids, in module order."""
    from review import tui

    found = []
    for info in sorted(pkgutil.walk_packages(tui.__path__, "review.tui."), key=lambda i: i.name):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if not (isinstance(value, type) and value.__module__ == module.__name__):
                continue
            bindings = [b for b in value.__dict__.get("BINDINGS", []) if isinstance(b, Binding) and b.id]
            if bindings:
                title = (
                    getattr(value, "HELP_GROUP", None)
                    or getattr(value, "BINDING_GROUP_TITLE", None)
                    or TITLES.get(value.__name__, value.__name__)
                )
                # A key acting only in a state says when, as the help does ("while a search has matches").
                # (A screen whose listing depends on its state says it of itself in HELP_WHEN.)
                when = getattr(value, "HELP_WHEN", None) or getattr(value, "HELP_LISTED", {})
                found.append((title, [(b, _does(b, when)) for b in bindings]))
    return found


def _does(binding: Binding, when: dict[str, str]) -> str:
    said = binding.description or binding.action
    name = binding.action.split("(")[0]
    return f"{said} {when[name]}" if name in when else said


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _keys(binding: Binding) -> str:
    return " ".join(f"`{format_key(key.strip())}`" for key in binding.key.split(",") if key.strip())


def render() -> str:
    groups: dict[str, list[tuple[Binding, str]]] = {}
    for title, bindings in _owners():
        groups.setdefault(title, []).extend(bindings)
    ranked = sorted(groups, key=lambda t: (ORDER.index(t) if t in ORDER else len(ORDER), t))
    parts = [HEADER]
    for title in ranked:
        parts.append(f"\n## {title}\n\n| keys | does | binding id |\n|---|---|---|\n")
        for binding, does in groups[title]:
            parts.append(f"| {_keys(binding)} | {_cell(does)} | `{binding.id}` |\n")
    return "".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m review.devtools.keys_page", description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=Path("docs/keys.md"), help="default: docs/keys.md")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the page differs")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = args.path.read_text(encoding="utf-8") if args.path.is_file() else ""
        if current != text:
            print(f"{args.path} is not what the bindings say: run python -m review.devtools.keys_page", file=sys.stderr)
            return 1
        return 0
    args.path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
