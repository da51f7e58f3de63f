"""The rubric form: five signals × Weak / Acceptable / Strong, flags, comments, and beside each
signal the evidence the console observed. The console never picks a tier; the reviewer does."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Static, TextArea

from review.core.evidence import Hint
from review.core.rubric import Rubric
from review.core.text import safe_line
from review.services import score_merge, store
from review.tui.widgets.rubric_rows import FlagBox, SignalRow
from review.tui.widgets.text_box import TextBoxArea


class RubricForm(VerticalScroll, can_focus=False):
    """Never focused itself (focus on the container left the tier keys with nothing to act on): a
    signal or a flag always has it, and ↑/↓ move between them."""

    HELP_GROUP = "Rubric"
    HELP_LISTED = {"leave_comment": "while typing in a box"}

    BINDINGS = [
        Binding("F", "toggle_final", "Final/draft", id="rubric.toggle-final"),
        # Named in the form itself, beside the box: the footer has no room left for it.
        Binding("o", "overall_comment", "Overall comment", show=False, id="rubric.overall-comment"),
        Binding("escape", "leave_comment", "Leave comment", show=False, id="rubric.leave-comment"),
        # Through the signals, then the flags; at either end focus stays where it is.
        Binding("down,j", "move(1)", "Next", show=False, id="rubric.next"),
        Binding("up,k", "move(-1)", "Previous", show=False, id="rubric.previous"),
    ]
    DEFAULT_CSS = """
    RubricForm { height: 1fr; padding: 0 1; }
    RubricForm #rubric-header { dock: top; padding-bottom: 1; background: $background; }
    RubricForm #rubric-status { color: $warning; margin-bottom: 1; }
    RubricForm .flag-hints { color: $text-muted; padding-left: 4; }
    /* A long label wraps in a narrow pane rather than being cut ("a full rewrite that also d"). */
    RubricForm FlagBox { width: 1fr; height: auto; text-wrap: wrap; text-overflow: fold; }
    RubricForm #overall { height: 5; margin-bottom: 1; }
    RubricForm #others { color: $text-muted; margin-bottom: 1; }
    RubricForm #anchored { padding-left: 2; margin-bottom: 1; }
    """

    @dataclass
    class Edited(Message):
        """Anything the reviewer changed (a tier, a comment, a flag, the overall comment): the screen
        saves a draft a moment later, so a crash or an SSH drop loses nothing typed."""

        form: RubricForm

    @dataclass
    class StateAsked(Message):
        """F: final or draft asked for (saved with the next ctrl+s; the screen says what that will write)."""

        form: RubricForm

    def __init__(self, rubric: Rubric, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rubric = rubric
        self.state = "draft"
        # The status line's text, as last set (a re-review adds what changed to it).
        self.status = ""
        # Comments anchored to a diff hunk or a scenario's log.
        self.anchored: list[dict[str, str]] = []
        # Where `o` was pressed: escape from the overall comment goes back there.
        self.before_overall: Widget | None = None
        self.header = Static(id="rubric-header")
        self.status_line = Static(id="rubric-status")
        self.signal_rows = [SignalRow(signal) for signal in rubric.signals]
        self.flag_boxes = {flag.id: FlagBox(Content(flag.label), id=f"flag-{flag.id}") for flag in rubric.flags}
        self.flag_hints = {flag.id: Static(classes="flag-hints", id=f"flag-hints-{flag.id}") for flag in rubric.flags}
        self.anchored_list = Static(id="anchored")
        self.overall = TextBoxArea(id="overall", soft_wrap=True, show_line_numbers=False)
        self.others = Static(id="others")

    def compose(self) -> ComposeResult:
        yield self.header
        yield self.status_line
        yield from self.signal_rows
        yield Static(Content("Failure modes (space toggles)"), classes="signal-title")
        for flag in self.rubric.flags:
            yield self.flag_boxes[flag.id]
            yield self.flag_hints[flag.id]
        yield Static(Content("Line comments (m in the diff or the stub log adds one)"), classes="signal-title")
        yield self.anchored_list
        yield Static(Content("Overall comment (o to write; escape leaves it)"), classes="signal-title")
        yield self.overall
        yield self.others

    # ----------------------------------------------------------------- values

    def rows(self) -> list[SignalRow]:
        return list(self.signal_rows)

    def fill(self, review: store.Review | None) -> None:
        self.apply(review.values() if review else score_merge.EMPTY)
        # Drawn whatever it holds: an empty list says "none yet" (apply redraws it only on a change).
        self.show_anchored()
        self.set_baseline()

    def apply(self, values: dict, from_elsewhere: bool = False) -> None:
        """Show `values`, touching only what differs: focus, an open comment box and the overall
        comment's cursor stay where they were. `from_elsewhere`: another console's save, so each
        signal it changes says so beside its name."""
        self.state = values.get("state") or "draft"
        for row in self.rows():
            tier = values["tiers"].get(row.signal.id, "")
            comment = values["comments"].get(row.signal.id, "")
            if row.tier == tier and row.comment_box.value == comment:
                continue
            if row.comment_box.value != comment:
                row.comment_box.value = comment
            row.tier = tier
            row.taken = from_elsewhere
            row.refresh_text()
        for flag in self.rubric.flags:
            box = self.flag_boxes[flag.id]
            if box.value != (flag.id in values["flags"]):
                box.value = flag.id in values["flags"]
        if self.overall.text != values["comment"]:
            self.overall.text = values["comment"]
        anchored = [dict(a) for a in values.get("anchored", [])]
        if anchored != self.anchored:
            self.anchored = anchored
            self.show_anchored()

    def show_conflicts(self, signal_ids: set[str]) -> None:
        for row in self.rows():
            if row.in_conflict != (row.signal.id in signal_ids):
                row.in_conflict = row.signal.id in signal_ids
                row.refresh_text()

    def anchored_at(self, at: str) -> str:
        """The line comment kept at `at` ("" when none)."""
        return next((a["text"] for a in self.anchored if a["at"] == at), "")

    def set_anchored(self, at: str, text: str) -> None:
        """The line comment at `at` becomes `text` (added when new); an empty text removes it."""
        kept = [a for a in self.anchored if a["at"] != at]
        where = next((i for i, a in enumerate(self.anchored) if a["at"] == at), len(kept))
        if text:
            kept.insert(min(where, len(kept)), {"at": at, "text": text})
        if kept == self.anchored:
            return
        self.anchored = kept
        self.show_anchored()
        self.post_message(self.Edited(self))

    def show_anchored(self) -> None:
        lines = [f"{a['at']}: {a['text']}" for a in self.anchored] or ["none yet"]
        self.anchored_list.update(Content("\n".join(safe_line(line, 300) for line in lines)))

    def set_baseline(self, values: dict | None = None) -> None:
        """`values`: what was saved (the form may have changed since the save began)."""
        self._baseline = values if values is not None else self.values()

    @property
    def dirty(self) -> bool:
        """Unsaved changes: compared with what was loaded or saved, not tracked through events."""
        return self.dirty_as(self.state)

    def dirty_as(self, state: str) -> bool:
        """Unsaved changes were the form's state `state` (a final refused is saved as a draft)."""
        baseline = getattr(self, "_baseline", None)
        return baseline is None or not score_merge.same({**self.values(), "state": state}, baseline)

    def values(self) -> dict:
        return {
            "tiers": {row.signal.id: row.tier for row in self.rows() if row.tier},
            "comments": {row.signal.id: row.comment_box.value for row in self.rows() if row.comment_box.value},
            "flags": [flag.id for flag in self.rubric.flags if self.flag_boxes[flag.id].value],
            "comment": self.overall.text,
            "anchored": [dict(a) for a in self.anchored],
            "state": self.state,
        }

    def missing(self) -> list[str]:
        return [row.signal.name for row in self.rows() if not row.tier]

    def set_evidence(self, hints: dict[str, list[Hint]]) -> None:
        for row in self.rows():
            row.hints = hints.get(row.signal.id, [])
            row.next_hint = 0
            row.refresh_text()
        for flag in self.rubric.flags:
            found = hints.get(flag.id, [])
            text = "\n".join(f"observed: {h.text} ({h.where})" for h in found)
            self.flag_hints[flag.id].update(Content(safe_line(text, 600) if found else ""))

    def set_header(self, text: str) -> None:
        self.header.update(Content(text))

    def set_status(self, text: str) -> None:
        self.status = text
        status = self.status_line
        status.update(Content(text))
        # An empty status would leave a gap above the first signal.
        status.display = bool(text)

    def set_others(self, text: str) -> None:
        self.others.update(Content(text))

    # ----------------------------------------------------------------- actions

    def action_toggle_final(self) -> None:
        self.state = "draft" if self.state == "final" else "final"
        self.post_message(self.StateAsked(self))

    def focus_stops(self) -> list[Widget]:
        """Where ↑/↓ go, in order: the signals, then the flags. Never into the overall comment: j held
        down would type into it (o goes there, escape comes back)."""
        return [*self.rows(), *self.flag_boxes.values()]

    def focused_stop(self) -> Widget | None:
        """The signal row or flag that holds the focus (its comment box counts as the row), if any."""
        focused = self.app.focused
        return next(
            (stop for stop in self.focus_stops() if focused is not None and stop in focused.ancestors_with_self), None
        )

    def action_overall_comment(self) -> None:
        self.before_overall = self.focused_stop()
        # At the end of what is written, as `c` in a signal's comment: a reopened review is added to, not
        # typed in front of.
        self.overall.move_cursor(self.overall.document.end)
        self.overall.focus()
        self.call_after_refresh(self.overall.scroll_visible, animate=False)

    def action_move(self, delta: int) -> None:
        stops = self.focus_stops()
        focused = self.app.focused
        here = self.focused_stop()
        if here is None:
            target = stops[0] if stops else None
        else:
            index = stops.index(here) + delta
            # At either end: stay (focus never leaves the form's rows by ↑/↓).
            target = stops[index] if 0 <= index < len(stops) else here
        if target is not None and target is not focused:
            self.screen.set_focus(target)

    @on(SignalRow.Changed)
    @on(Checkbox.Changed)
    @on(TextArea.Changed, "#overall")
    @on(Input.Changed, ".signal-comment")
    def edited(self) -> None:
        self.post_message(self.Edited(self))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_comment":
            # Outside a text box, escape belongs to the screen (back to triage).
            return isinstance(self.app.focused, (Input, TextArea))
        return True

    def action_leave_comment(self) -> None:
        focused = self.app.focused
        if isinstance(focused, (Input, TextArea)):
            parent = focused.parent
            if isinstance(focused, Input) and isinstance(parent, SignalRow):
                parent.comment_done()
            elif self.before_overall is not None and self.before_overall.is_mounted:
                self.before_overall.focus()
            else:
                self.rows()[0].focus()
