"""`?`: every key of the screen underneath — of every pane on it, not only the focused one —
grouped by pane (the focused pane first), with what it does and its binding id (for remapping)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static

from review.support import paths

Row = tuple[str, str, str, str]  # group, keys, action, binding ids (space-separated)


def own_bindings(node: DOMNode) -> list[Binding]:
    """Bindings this project declares on the node's classes (not Textual's own widgets' cursor keys)."""
    found: list[Binding] = []
    for cls in type(node).__mro__:
        if cls.__module__.startswith("review.") and "BINDINGS" in cls.__dict__:
            found += [b for b in cls.__dict__["BINDINGS"] if isinstance(b, Binding)]
    return found


def help_rows(screen: Screen, keymap: dict[str, str], key_display: Callable[[Binding], str]) -> list[Row]:
    """One row per action in each group, with every key that does it listed once and every binding id
    beside them (`q ^q Quit app.quit app.quit-alt`: a key remapped onto another binding of the same
    action is not listed twice); the focused pane's group first, then the others, then the screen's
    own keys and the app's. Keys remapped in the keymap are shown as remapped."""
    focused = screen.focused
    chain = list(focused.ancestors_with_self) if focused is not None else []
    nodes: list[DOMNode] = [n for n in chain if n is not screen and n is not screen.app]
    nodes += [n for n in screen.walk_children(with_self=False) if n not in nodes]
    nodes += [screen, screen.app]
    groups: dict[str, dict[str, tuple[list[str], str, list[str]]]] = {}
    for node in nodes:
        if node is screen:
            group = getattr(screen, "BINDING_GROUP_TITLE", None) or "Screen"
        elif node is screen.app:
            group = "Everywhere"
        else:
            group = getattr(node, "HELP_GROUP", None) or getattr(screen, "BINDING_GROUP_TITLE", None) or "Screen"
        for binding in own_bindings(node):
            if binding.id and binding.id in keymap:
                binding = dataclasses.replace(binding, key=keymap[binding.id])
            entry = groups.setdefault(group, {}).setdefault(binding.action,
                                                            ([], binding.description or binding.action, []))
            if binding.id and binding.id not in entry[2]:
                entry[2].append(binding.id)
            for key in binding.key.split(","):
                shown = key_display(dataclasses.replace(binding, key=key.strip()))
                if shown not in entry[0]:
                    entry[0].append(shown)
    return [(group, " ".join(keys), label, " ".join(binding_ids))
            for group, entries in groups.items() for keys, label, binding_ids in entries.values()]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close help", id="help.close"),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 100%; max-width: 110; height: 100%; max-height: 40;
        border: round $primary; background: $surface; padding: 0 1;
    }
    HelpScreen #help-title { text-style: bold; padding-bottom: 1; }
    HelpScreen DataTable { height: 1fr; }
    HelpScreen #help-hint { color: $text-muted; }
    """

    def __init__(self, title: str, rows: list[Row]) -> None:
        super().__init__()
        self.title_text = title
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(f"Keys — {self.title_text}"), id="help-title")
            table: DataTable = DataTable(cursor_type="row", zebra_stripes=True)
            table.add_columns("Pane", "Key", "Action", "Binding id")
            previous = None
            for group, keys, label, binding_id in self.rows:
                table.add_row(Text(group if group != previous else "", style="bold"), Text(keys), Text(label),
                              Text(binding_id))
                previous = group
            yield table
            yield Static(Content(f"escape closes · binding ids can be remapped in {paths.keymap_file()}"),
                         id="help-hint")

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
