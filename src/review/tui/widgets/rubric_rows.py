"""The rows a rubric form is made of: a signal (its tiers with the article's descriptions, the
reviewer's choice and comment, the evidence the console observed) and a failure-mode flag."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Static

from review.core.evidence import Hint
from review.core.rubric import NO_DECISION, TIER_LABELS, TIERS, Signal
from review.core.text import safe_line
from review.tui.widgets.text_box import TextBox


class SignalRow(Vertical, can_focus=True):
    """One signal: its tiers with the article's descriptions, the reviewer's choice, the evidence."""

    HELP_GROUP = "Rubric signal"

    BINDINGS = [
        # Letters, never digits: on this screen digits always mean "go to pane N", so a digit meant
        # for a pane can never change a score.
        Binding("w", "tier('weak')", "Weak", id="rubric.weak"),
        Binding("a", "tier('acceptable')", "Acceptable", id="rubric.acceptable"),
        Binding("s", "tier('strong')", "Strong", id="rubric.strong"),
        Binding("n", "tier('no-decision')", "No decision", id="rubric.no-decision"),
        Binding("right,l", "step(1)", "Next tier", show=False, id="rubric.tier-up"),
        Binding("left,h", "step(-1)", "Previous tier", show=False, id="rubric.tier-down"),
        Binding("backspace,delete", "tier('')", "Clear", show=False, id="rubric.clear"),
        Binding("c", "comment", "Comment", id="rubric.comment"),
        Binding("g", "go_to_evidence", "Go to evidence", id="rubric.go-to-evidence"),
        # ↑/↓ (k/j) are the form's: they move between the signals and flags and never leave them.
    ]
    DEFAULT_CSS = """
    SignalRow { height: auto; padding: 0 1; margin-bottom: 1; border-left: blank; }
    SignalRow:focus { border-left: thick $primary; background: $boost; }
    SignalRow .signal-title { text-style: bold; }
    SignalRow .signal-hints { color: $text-muted; }
    SignalRow Input { height: 3; display: none; }
    SignalRow Input.open { display: block; }
    """

    @dataclass
    class Changed(Message):
        row: SignalRow

    @dataclass
    class GoTo(Message):
        """Show where a hint came from: note lines, a scenario's log lines, a commit, a diff line."""

        row: SignalRow
        hint: Hint

    def __init__(self, signal: Signal) -> None:
        super().__init__(id=f"signal-{signal.id}")
        self.signal = signal
        self.tier = ""
        # Set by another console's save of this review (what it changed here), until the reviewer
        # touches the signal: said beside its name, where the reviewer is looking.
        self.taken = False
        # Both consoles changed this signal and the reviewer has not decided yet.
        self.in_conflict = False
        self.hints: list[Hint] = []
        # g cycles through the hints' sources.
        self.next_hint = 0
        self.title = Static(classes="signal-title")
        self.tiers = Static(classes="signal-tiers")
        self.observed = Static(classes="signal-hints")
        # Never select on focus: the first key typed would replace the comment written before (o and m
        # append too).
        self.comment_box = TextBox(
            placeholder=f"comment on {signal.name} (enter or escape to leave)",
            classes="signal-comment",
            select_on_focus=False,
        )

    def compose(self) -> ComposeResult:
        yield self.title
        yield self.tiers
        yield self.observed
        yield self.comment_box

    def on_mount(self) -> None:
        self.refresh_text()

    def refresh_text(self) -> None:
        chosen = TIER_LABELS.get(self.tier, "not scored yet")
        if self.in_conflict:
            said = "  ≠ your other console saved another (ctrl+s keeps yours, R takes theirs)"
        else:
            said = "  ← changed in your other console" if self.taken else ""
        self.title.update(Content(f"{self.signal.name}: {chosen}{said}"))
        parts = []
        for key, tier in zip("was", TIERS):
            mark = "●" if self.tier == tier else "○"
            parts.append(f"{mark} {key} {TIER_LABELS[tier]}: {self.signal.description(tier)}")
        parts.append(("● " if self.tier == NO_DECISION else "○ ") + "n No decision yet")
        self.tiers.update(Content("\n".join(safe_line(p, 200) for p in parts)))
        hints = [f"observed: {h.text} ({h.where})" for h in self.hints] or ["observed: nothing yet"]
        if self.hints:
            hints[-1] += "  · g goes there"
        comment = self.comment_box.value
        if comment and not self.comment_box.has_class("open"):
            hints.append(f"comment: {comment}")
        self.observed.update(Content("\n".join(safe_line(h, 300) for h in hints)))

    def action_tier(self, tier: str) -> None:
        self.tier = tier
        self.taken = False
        self.refresh_text()
        self.post_message(self.Changed(self))

    def action_step(self, delta: int) -> None:
        """← / →: Weak ↔ Acceptable ↔ Strong, starting from nothing at the near end."""
        order = list(TIERS)
        if self.tier in order:
            index = max(0, min(len(order) - 1, order.index(self.tier) + delta))
        else:
            index = 0 if delta > 0 else len(order) - 1
        self.action_tier(order[index])

    def action_go_to_evidence(self) -> None:
        if not self.hints:
            self.app.notify("Nothing observed for this signal yet.", markup=False)
            return
        hint = self.hints[self.next_hint % len(self.hints)]
        self.next_hint += 1
        self.post_message(self.GoTo(self, hint))

    def action_comment(self) -> None:
        self.comment_box.add_class("open")
        # Focused now: keys typed in the same burst as c land in the box.
        self.screen.set_focus(self.comment_box, scroll_visible=False)
        self.comment_box.action_end()
        # The box shows only now: into view once it is laid out (typing into a box off screen).
        self.call_after_refresh(self.comment_box.scroll_visible, animate=False)

    def on_resize(self) -> None:
        # The row grows as the box opens or the hints change (an autosave, a suite's verdicts): an
        # open box stays in view, wherever the last layout put it.
        if self.comment_box.has_focus:
            self.call_after_refresh(self.comment_box.scroll_visible, animate=False)

    @on(Input.Submitted)
    def comment_done(self) -> None:
        self.comment_box.remove_class("open")
        self.focus()
        self.refresh_text()
        self.post_message(self.Changed(self))

    def on_descendant_blur(self) -> None:
        if self.comment_box.has_class("open") and not self.comment_box.has_focus:
            self.comment_box.remove_class("open")
            self.refresh_text()


class FlagBox(Checkbox):
    """A failure-mode flag whose state reads without colour: `[x]` on, `[ ]` off (Textual's `▐X▌`
    is the same glyph either way, told apart by colour alone — nothing under NO_COLOR)."""

    HELP_GROUP = "Rubric flag"
    # Textual's own binding, given an id and a name so help lists it and a keymap can move it.
    BINDINGS = [
        Binding("space,enter", "toggle_button", "Toggle flag", show=False, id="rubric.toggle-flag"),
        # As on a signal, ⌫ clears: it never leaves the submission from inside the rubric.
        Binding("backspace,delete", "clear", "Clear flag", show=False, id="rubric.clear-flag"),
    ]

    def action_clear(self) -> None:
        self.value = False

    def render(self) -> Content:
        text = self.get_visual_style("toggle--label")
        # The brackets in the label's colours (Textual's "off" colour is meant to vanish).
        mark = Content.assemble(
            ("[", text), ("x" if self.value else " ", self.get_visual_style("toggle--button")), ("]", text)
        )
        return Content.assemble(mark, self.label.pad(1, 1).stylize_before(text))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # As many rows as the label wraps to in a narrow pane (Textual's toggle is always one row).
        return Widget.get_content_height(self, container, viewport, width)
