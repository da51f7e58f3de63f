"""`?`: every key of the current screen, grouped, each once, with what it does and its binding id
(for remapping): first the keys that work where the focus is (the focused pane's, the screen's, the
app's), then each other pane's, marked as working once that pane is focused."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from rich.text import Text
from textual import actions, events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Input, Static, TextArea

from review.support import paths
from review.tui.keymap import types_text

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
    return None if state is False and acts_when(node, binding) else state


def acts_when(node: DOMNode, binding: Binding) -> str:
    """When a key listed though disabled acts ("while a search has matches"), as its node's HELP_LISTED
    says, by the binding's whole action (`ask('cancel')`) or by the action's name (`fragment`)."""
    listed: dict[str, str] = getattr(node, "HELP_LISTED", {})
    return listed.get(binding.action) or listed.get(actions.parse(binding.action)[1], "")


def help_rows(screen: Screen, keymap: dict[str, str], key_display: Callable[[Binding], str]) -> list[Row]:
    """The keys that work where the focus is: the focused pane's, then the screen's own, then the app's;
    then each other pane's, in a group named "PANE — once focused" (they do nothing until then). One row per
    action with every key that does it listed once and every binding id beside it (`q ^q Quit app.quit
    app.quit-alt`: a key remapped onto another binding of the same action is not listed twice); a key
    the focused pane takes is not listed again under the screen. A key that acts only in a state (n
    while a search has matches) and otherwise falls through to another binding is one row saying both
    (`n  Next match while a search has matches, else next hunk`). Keys remapped in the keymap are
    shown as remapped."""
    focused = screen.focused
    chain = list(focused.ancestors_with_self) if focused is not None else []
    nodes: list[DOMNode] = [n for n in chain if n is not screen and n is not screen.app]
    nodes += [screen, screen.app]
    groups: dict[str, Entries] = {}
    # Keys an earlier (nearer the focus) binding takes while it is enabled.
    taken: set[str] = set()
    # In a text box (the filter, a comment) a letter or sign types itself: no binding of it acts.
    typing = isinstance(focused, (Input, TextArea))
    if typing:
        first = getattr(focused, "HELP_GROUP", None) or getattr(screen, "BINDING_GROUP_TITLE", None) or "Screen"
        groups[first] = {"": (["letters, digits, signs"], "Type into the box", [])}
    # Keys of a binding that acts only in a state: the row where what the key does otherwise is said.
    falls_through: dict[str, tuple[Entries, str]] = {}
    for node in nodes:
        if node is screen:
            group = getattr(screen, "BINDING_GROUP_TITLE", None) or "Screen"
        elif node is screen.app:
            group = "Everywhere"
        else:
            group = getattr(node, "HELP_GROUP", None) or getattr(screen, "BINDING_GROUP_TITLE", None) or "Screen"
        claimed: set[str] = set()
        # Over a modal screen the app's keys act only where Textual lets them through (ctrl+c).
        reaches = screen.active_bindings if node is screen.app and isinstance(screen, ModalScreen) else None
        for binding in own_bindings(node, keymap):
            keys = [key for key in _keys(binding, taken, typing) if reaches is None or _reaches(reaches, key, node)]
            if not keys:
                continue
            state = enabled(node, binding)
            if state is False:
                continue
            if state:
                claimed.update(keys)
            for key in [key for key in keys if key in falls_through]:
                keys.remove(key)
                _else(*falls_through.pop(key), binding)
            if not keys:
                continue
            entries = groups.setdefault(group, {})
            _add(entries, binding, keys, key_display)
            if state is None and (when := acts_when(node, binding)):
                _when(entries, binding.action, when)
                falls_through.update((key, (entries, binding.action)) for key in keys)
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


def _keys(binding: Binding, taken: set[str], typing: bool) -> list[str]:
    """The binding's keys not taken nearer the focus (in a text box, a key that types is taken by it)."""
    keys = [key.strip() for key in binding.key.split(",") if key.strip() not in taken]
    return [key for key in keys if not (typing and types_text(key))]


def _reaches(reaches: dict, key: str, node: DOMNode) -> bool:
    return key in reaches and reaches[key].node is node


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


def _when(entries: Entries, action: str, when: str) -> None:
    keys, label, binding_ids = entries[action]
    if when not in label:
        entries[action] = (keys, f"{label} {when}", binding_ids)


def _else(entries: Entries, action: str, binding: Binding) -> None:
    """What the key of a binding acting only in a state does otherwise, said on that binding's row."""
    keys, label, binding_ids = entries[action]
    otherwise = binding.description or binding.action
    # "Next hunk" reads "next hunk" mid-sentence; "AI only" keeps its capitals.
    if otherwise[:2].istitle():
        otherwise = otherwise[0].lower() + otherwise[1:]
    entries[action] = (keys, f"{label}, else {otherwise}", binding_ids + ([binding.id] if binding.id else []))


def _add_pane(entries: Entries, node: DOMNode, keymap: dict[str, str], key_display: Callable[[Binding], str]) -> None:
    """A pane that is not focused: its own bindings, as remapped (a key acting only in a state on one row)."""
    falls_through: dict[str, str] = {}
    for binding in own_bindings(node, keymap):
        keys = [key.strip() for key in binding.key.split(",") if key.strip()]
        for key in [key for key in keys if key in falls_through]:
            keys.remove(key)
            _else(entries, falls_through.pop(key), binding)
        if not keys:
            continue
        _add(entries, binding, keys, key_display)
        if when := acts_when(node, binding):
            _when(entries, binding.action, when)
            falls_through.update((key, binding.action) for key in keys)


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
        width: 100%; max-width: 110; height: 100%; max-height: 40;  /* BOX_WIDTH */
        border: round $primary; background: $surface; padding: 0 1;
    }
    HelpScreen #help-title { text-style: bold; padding-bottom: 1; }
    HelpScreen DataTable { height: 1fr; }
    HelpScreen #help-hint { color: $text-muted; }
    HelpScreen #help-browser { color: $warning; padding-bottom: 1; }
    HelpScreen .help-note { padding-bottom: 1; }
    """

    BOX_WIDTH = 110

    def __init__(
        self, title: str, rows: list[Row], browser_notes: list[str] | None = None, notes: list[str] | None = None
    ) -> None:
        super().__init__()
        self._filled_for = 0
        self.title_text = title
        self.rows = rows
        self.browser_notes = browser_notes or []
        self.notes = notes or []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(f"Keys — {self.title_text}"), id="help-title")
            if self.browser_notes:
                yield Static(Content("In this browser tab: " + " · ".join(self.browser_notes)), id="help-browser")
            for note in self.notes:
                yield Static(Content(note), classes="help-note")
            table: DataTable = DataTable(cursor_type="row", zebra_stripes=True)
            self.fill(table, self.app.size.width)
            yield table
            yield Static(
                Content(
                    f"↑/↓ j/k, pgup/pgdn, home/end move · escape closes · binding ids can be "
                    f"remapped in {paths.keymap_file()}"
                ),
                id="help-hint",
            )

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._filled_for:
            self.fill(self.query_one(DataTable), event.size.width)

    def fill(self, table: DataTable, screen_width: int) -> None:
        """The rows, in columns that fit the box: a binding id is what a reviewer copies into the keymap,
        so every id is whole on a line of its own and the action wraps in the room left."""
        self._filled_for = screen_width
        # The box's border and padding, the table's scrollbar and each column's padding either side.
        room = min(screen_width, self.BOX_WIDTH) - 4 - table.styles.scrollbar_size_vertical - 6 * table.cell_padding
        id_width = max((len(binding_id) for *_, ids in self.rows for binding_id in ids.split()), default=10)
        key_width = min(12, max((len(keys) for _, keys, _, _ in self.rows), default=3))
        action_width = max(12, room - id_width - key_width)
        row = table.cursor_row
        table.clear(columns=True)
        # Each group's name on a row of its own above its keys, in the action column: as a column of
        # its own, or in the key column, the longest name left less room for the rest.
        table.add_column("Key", width=key_width)
        table.add_column("Action", width=action_width)
        table.add_column("Binding id", width=id_width)
        previous = None
        for group, keys, label, binding_ids in self.rows:
            if group != previous:
                table.add_row(Text(""), Text(group, style="bold"), Text(""), height=None)
                previous = group
            table.add_row(Text(keys), Text(label), Text("\n".join(binding_ids.split())), height=None)
        table.move_cursor(row=min(row, table.row_count - 1))

    def action_move(self, step: int) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=max(0, min(table.row_count - 1, table.cursor_row + step)))

    def action_edge(self, bottom: int) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=table.row_count - 1 if bottom else 0)

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
