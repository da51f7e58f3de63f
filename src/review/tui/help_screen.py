"""`?`: every key of the screen underneath, with what it does and its id (for remapping)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close help", id="help.close"),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 90%; max-width: 100; height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    HelpScreen #help-title { text-style: bold; padding-bottom: 1; }
    HelpScreen DataTable { height: 1fr; }
    HelpScreen #help-hint { color: $text-muted; }
    """

    def __init__(self, title: str, bindings: dict[str, ActiveBinding], key_display) -> None:
        super().__init__()
        self.title_text = title
        # One row per action: keys that share an action are listed together.
        rows: dict[tuple[str, str], list[str]] = {}
        for key, active in bindings.items():
            binding = active.binding
            if binding.action in ("help_quit",):
                continue
            label = binding.description or binding.action
            rows.setdefault((label, binding.id or ""), []).append(key_display(binding))
        self.rows = sorted(rows.items(), key=lambda item: item[0][0].lower())

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(f"Keys — {self.title_text}"), id="help-title")
            table: DataTable = DataTable(cursor_type="row", zebra_stripes=True)
            table.add_columns("Key", "Action", "Binding id")
            for (label, binding_id), keys in self.rows:
                table.add_row(Text(" ".join(dict.fromkeys(keys))), Text(label), Text(binding_id))
            yield table
            yield Static(Content("escape closes · binding ids can be remapped in ~/.config/review/keymap.toml"),
                         id="help-hint")

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
