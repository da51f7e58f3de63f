"""A modal list of the fault scenarios: pick one to run alone, or to run with coverage."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from review.harness import scenarios


class ScenarioPicker(ModalScreen[str | None]):
    BINDINGS = [
        Binding("escape,q", "dismiss_none", "Close", id="picker.close"),
        # A modal screen takes no key of the app's: help is asked for here.
        Binding("question_mark,f1", "app.help", "Keys", id="picker.help"),
        Binding("j", "move(1)", "Down", show=False, id="picker.down"),
        Binding("k", "move(-1)", "Up", show=False, id="picker.up"),
    ]
    DEFAULT_CSS = """
    ScenarioPicker { align: center middle; }
    ScenarioPicker > Vertical {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    ScenarioPicker #picker-title { text-style: bold; padding-bottom: 1; }
    ScenarioPicker OptionList { height: auto; max-height: 20; }
    ScenarioPicker #picker-hint { color: $text-muted; }
    """

    def __init__(self, title: str, last_verdicts: dict[str, str] | None = None, preferred: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.last_verdicts = last_verdicts or {}
        self.preferred = preferred

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(self.title_text), id="picker-title")
            options = []
            for scenario in scenarios.SCENARIOS:
                last = self.last_verdicts.get(scenario.name)
                text = f"{scenario.name:14} gateway: {scenario.gateway_does}" + (f"  [last: {last}]" if last else "")
                options.append(Option(Content(text), id=scenario.name))
            yield OptionList(*options, id="picker-options")
            # The highlight is a colour only: the words say which scenario enter runs.
            yield Static(id="picker-hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        names = [s.name for s in scenarios.SCENARIOS]
        options.highlighted = names.index(self.preferred) if self.preferred in names else 0
        options.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.query_one("#picker-hint", Static).update(Content(f"enter runs {event.option.id} · escape closes"))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if step > 0:
            options.action_cursor_down()
        else:
            options.action_cursor_up()

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
