"""`?`: every key of the current screen, grouped, each once, with what it does and its binding id
(for remapping): first the keys that work where the focus is (the focused pane's, the screen's, the
app's), then each other pane's, marked as working once that pane is focused."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from rich.text import Text
from textual import actions
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static

from review.support import paths

Row = tuple[str, str, str, str]  # group, keys, action, binding ids (space-separated)


def own_bindings(node: DOMNode, keymap: dict[str, str]) -> list[Binding]:
    """Bindings this project declares on the node's classes (not Textual's own widgets' cursor keys),
    with the keys the keymap gives them."""
    found: list[Binding] = []
    for cls in type(node).__mro__:
        if cls.__module__.startswith("review.") and "BINDINGS" in cls.__dict__:
            found += [b for b in cls.__dict__["BINDINGS"] if isinstance(b, Binding)]
    return [dataclasses.replace(b, key=keymap[b.id]) if b.id and b.id in keymap else b for b in found]


def enabled(node: DOMNode, binding: Binding) -> bool | None:
    """Whether the binding does something now: True; None when it is disabled (its key goes through to
    the next binding); False when it does not exist here at all (A outside candidate-blind review)."""
    _, name, parameters = actions.parse(binding.action)
    state = node.check_action(name, parameters)
    # A key that acts only in a state of the pane (n/N after a search) is listed all the same.
    return None if state is False and name in getattr(node, "HELP_LISTED", ()) else state


def help_rows(screen: Screen, keymap: dict[str, str], key_display: Callable[[Binding], str]) -> list[Row]:
    """The keys that work where the focus is: the focused pane's, then the screen's own, then the app's;
    then each other pane's, in a group named "PANE — once focused" (they do nothing until then). One row per
    action with every key that does it listed once and every binding id beside it (`q ^q Quit app.quit
    app.quit-alt`: a key remapped onto another binding of the same action is not listed twice); a key
    the focused pane takes is not listed again under the screen. Keys remapped in the keymap are
    shown as remapped."""
    focused = screen.focused
    chain = list(focused.ancestors_with_self) if focused is not None else []
    nodes: list[DOMNode] = [n for n in chain if n is not screen and n is not screen.app]
    nodes += [screen, screen.app]
    groups: dict[str, Entries] = {}
    # Keys an earlier (nearer the focus) binding takes while it is enabled.
    taken: set[str] = set()
    for node in nodes:
        if node is screen:
            group = getattr(screen, "BINDING_GROUP_TITLE", None) or "Screen"
        elif node is screen.app:
            group = "Everywhere"
        else:
            group = getattr(node, "HELP_GROUP", None) or getattr(screen, "BINDING_GROUP_TITLE", None) or "Screen"
        claimed: set[str] = set()
        for binding in own_bindings(node, keymap):
            keys = [key.strip() for key in binding.key.split(",") if key.strip() not in taken]
            if not keys:
                continue
            state = enabled(node, binding)
            if state is False:
                continue
            if state:
                claimed.update(keys)
            _add(groups.setdefault(group, {}), binding, keys, key_display)
        taken |= claimed
    # A pane is its widget and the widgets inside it: those under the focused pane are listed above.
    focused_panes = {getattr(node, "HELP_GROUP", None) for node in chain}
    for node in screen.walk_children():
        pane = getattr(node, "HELP_GROUP", None)
        if pane is None or pane in focused_panes:
            continue
        _add_pane(groups.setdefault(f"{pane} — once focused", {}), node, keymap, key_display)
    return [
        (group, " ".join(keys), label, " ".join(binding_ids))
        for group, entries in groups.items()
        for keys, label, binding_ids in entries.values()
    ]


Entries = dict[str, tuple[list[str], str, list[str]]]  # action -> (keys shown, label, binding ids)


def _add(entries: Entries, binding: Binding, keys: list[str], key_display: Callable[[Binding], str]) -> None:
    """The binding's keys and id under its action, each once."""
    entry = entries.setdefault(binding.action, ([], binding.description or binding.action, []))
    if binding.id and binding.id not in entry[2]:
        entry[2].append(binding.id)
    for key in keys:
        shown = key_display(dataclasses.replace(binding, key=key))
        if shown not in entry[0]:
            entry[0].append(shown)


def _add_pane(entries: Entries, node: DOMNode, keymap: dict[str, str], key_display: Callable[[Binding], str]) -> None:
    """A pane that is not focused: its own bindings, as remapped."""
    for binding in own_bindings(node, keymap):
        _add(entries, binding, [key.strip() for key in binding.key.split(",") if key.strip()], key_display)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close help", id="help.close"),
        Binding("j", "move(1)", "Down", show=False, id="help.down"),
        Binding("k", "move(-1)", "Up", show=False, id="help.up"),
        # Before the table's own home/end (which scroll sideways).
        Binding("home,g", "edge(0)", "Top", show=False, id="help.top", priority=True),
        Binding("end,G", "edge(1)", "Bottom", show=False, id="help.bottom", priority=True),
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
    HelpScreen #help-browser { color: $warning; padding-bottom: 1; }
    """

    def __init__(self, title: str, rows: list[Row], browser_notes: list[str] | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.rows = rows
        self.browser_notes = browser_notes or []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(f"Keys — {self.title_text}"), id="help-title")
            if self.browser_notes:
                yield Static(Content("In this browser tab: " + " · ".join(self.browser_notes)), id="help-browser")
            table: DataTable = DataTable(cursor_type="row", zebra_stripes=True)
            # Each group's name on a row of its own above its keys, in the action column: as a column
            # of its own, or in the key column, the longest name left the binding ids cut at 80 columns.
            table.add_columns("Key", "Action", "Binding id")
            previous = None
            for group, keys, label, binding_id in self.rows:
                if group != previous:
                    table.add_row(Text(""), Text(group, style="bold"), Text(""))
                    previous = group
                table.add_row(Text(keys), Text(label), Text(binding_id))
            yield table
            yield Static(
                Content(
                    f"↑/↓ j/k, pgup/pgdn, home/end move · escape closes · binding ids can be "
                    f"remapped in {paths.keymap_file()}"
                ),
                id="help-hint",
            )

    def action_move(self, step: int) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=max(0, min(table.row_count - 1, table.cursor_row + step)))

    def action_edge(self, bottom: int) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=table.row_count - 1 if bottom else 0)

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
