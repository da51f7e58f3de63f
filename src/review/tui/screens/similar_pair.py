"""Two submissions side by side with the code they share marked (`m` on a triage row): both files at
160 columns, one above the other below that; `]` and `[` step through the shared fragments, longest
first, `p` and `P` through the submission's pairs, highest first. Every text is the submission's own,
shown as plain text; a candidate-blind session masks both names."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from review.core import similarity as core
from review.core.text import safe_line
from review.services import similarity
from review.tui import palette
from review.tui.context import ConsoleContext
from review.tui.widgets.footer import KeysFooter

# At this width and more the two files stand side by side.
SIDE_BY_SIDE = 160


class SimilarPairScreen(Screen[None]):
    BINDING_GROUP_TITLE = "Similar code"
    BINDINGS = [
        Binding("right_square_bracket", "fragment(1)", "Next fragment", id="similar.next-fragment"),
        Binding("left_square_bracket", "fragment(-1)", "Previous fragment", id="similar.previous-fragment"),
        Binding("p", "pair(1)", "Next pair", id="similar.next-pair"),
        Binding("P", "pair(-1)", "Previous pair", id="similar.previous-pair"),
        Binding("escape,backspace", "back", "Back", id="similar.back"),
        # As in the submission's screen: q goes back, never out of the console from here.
        Binding("q", "back", "Back", show=False, id="similar.close"),
        Binding("j,down", "scroll(1)", "Scroll down", show=False, id="similar.scroll-down"),
        Binding("k,up", "scroll(-1)", "Scroll up", show=False, id="similar.scroll-up"),
        Binding("pagedown,space", "page(1)", "Page down", show=False, id="similar.page-down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="similar.page-up"),
        Binding("tab,shift+tab", "other_side", "Other file", show=False, id="similar.other-side"),
    ]
    DEFAULT_CSS = """
    #similar-title { height: auto; padding: 0 1; background: $panel; }
    #similar-sides { layout: horizontal; height: 1fr; }
    #similar-sides.-stacked { layout: vertical; }
    .similar-side { width: 1fr; height: 1fr; }
    .similar-head { height: 1; padding: 0 1; background: $boost; text-style: bold; }
    .similar-code { height: 1fr; }
    /* One row per line of the file, never wrapped: the rows stay the file's lines. */
    .similar-code-text { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    pair_index: reactive[int] = reactive(0, init=False)
    fragment_index: reactive[int] = reactive(0, init=False)

    @dataclass
    class PairRead(Message):
        """A pair's fragments and both sides' files, read in the worker."""

        pair: core.Pair
        fragments: list[core.Fragment]
        texts: tuple[dict[str, str], dict[str, str]]
        problem: str | None = None

    def __init__(
        self, context: ConsoleContext, index: similarity.Index, comparison: core.Comparison, name: str
    ) -> None:
        super().__init__()
        self.context = context
        self.index = index
        self.name_ = name
        self.pairs = comparison.pairs_of(name)
        self.comparison = comparison
        self.read: SimilarPairScreen.PairRead | None = None
        self.title_bar = Static(id="similar-title")
        self.heads = (Static(classes="similar-head"), Static(classes="similar-head"))
        self.codes = (Static(classes="similar-code-text"), Static(classes="similar-code-text"))
        self.scrolls = tuple(VerticalScroll(code, classes="similar-code") for code in self.codes)

    def compose(self) -> ComposeResult:
        yield self.title_bar
        with Container(id="similar-sides"):
            for head, scroll in zip(self.heads, self.scrolls):
                with Vertical(classes="similar-side"):
                    yield head
                    yield scroll
        yield KeysFooter()

    def on_mount(self) -> None:
        self.lay_out(self.size.width)
        self.scrolls[0].focus()
        # Said at once when there is no pair to read (never a blank screen).
        self.show()
        self.read_pair()

    def on_resize(self, event: events.Resize) -> None:
        self.lay_out(event.size.width)

    def lay_out(self, width: int) -> None:
        self.query_one("#similar-sides").set_class(width < SIDE_BY_SIDE, "-stacked")

    # ----------------------------------------------------------------- reading

    def sides(self, pair: core.Pair) -> tuple[str, str]:
        """This submission first, then the other."""
        return (pair.a, pair.b) if pair.a == self.name_ else (pair.b, pair.a)

    @work(thread=True, exclusive=True, group="similar-pair", name="similar-pair")
    def read_pair(self) -> None:
        if not self.pairs:
            return
        pair = self.pairs[self.pair_index]
        mine, other = self.sides(pair)
        found = similarity.pair_fragments(self.index, self.comparison, mine, other)
        try:
            texts = (
                similarity.file_texts(self.index.entries[mine], {f.path_a for f in found}),
                similarity.file_texts(self.index.entries[other], {f.path_b for f in found}),
            )
        # A submission that cannot be read again is said on this screen, never a traceback.
        except Exception as error:
            self.post_message(self.PairRead(pair, found, ({}, {}), str(error)))
            return
        self.post_message(self.PairRead(pair, found, texts))

    @on(PairRead)
    def pair_read(self, message: PairRead) -> None:
        self.read = message
        self.fragment_index = 0
        self.show()
        self.refresh_bindings()

    # ----------------------------------------------------------------- drawing

    def watch_fragment_index(self) -> None:
        self.show()

    def show(self) -> None:
        if not self.pairs:
            # In `review similar`'s words: its own code counted, what was left out, and why no pair.
            comparison = self.comparison
            own = core.own_text(
                comparison.own.get(self.name_, 0),
                comparison.left_out.get(self.name_),
                comparison.common_to.get(self.name_),
            )
            self.title_bar.update(
                Text(safe_line(f"{self.name_}: {own} · shares no fragment with any other submission", 400))
            )
            return
        read = self.read
        if read is None:
            self.title_bar.update(Text("reading…"))
            return
        mine, other = self.sides(read.pair)
        pair = read.pair
        (share_mine, own_mine), (share_other, own_other) = (
            ((pair.share_a, pair.own_a), (pair.share_b, pair.own_b))
            if pair.a == mine
            else ((pair.share_b, pair.own_b), (pair.share_a, pair.own_a))
        )
        count = len(read.fragments)
        at = min(self.fragment_index, max(0, count - 1))
        # Each share with its base, and the similarity `review similar` ranks the pairs by, worked out.
        title = (
            f"pair {self.pair_index + 1}/{len(self.pairs)}: {share_mine:.0%} of {mine}'s {own_mine} own "
            f"fingerprints are in {other}; {share_other:.0%} of {other}'s {own_other} are in {mine} · "
            f"similarity {pair.similarity:.0%} (2 × {pair.shared} shared over {own_mine} + {own_other} own) · "
            f"fragment {at + 1 if count else 0}/{count}"
        )
        if read.problem:
            title += f" · cannot read the files: {read.problem}"
        self.title_bar.update(Text(safe_line(title, 400)))
        if not count:
            return
        current = read.fragments[at]
        for side, (name, texts) in enumerate(zip((mine, other), read.texts)):
            path = current.path_a if side == 0 else current.path_b
            lines = current.lines_a if side == 0 else current.lines_b
            marked = [
                (f.lines_a if side == 0 else f.lines_b)
                for f in read.fragments
                if (f.path_a if side == 0 else f.path_b) == path
            ]
            self.heads[side].update(Text(safe_line(f"{name} · {path} {lines[0]}–{lines[1]}", 200)))
            self.codes[side].update(self.painted(texts.get(path, ""), marked, lines))
            self.scrolls[side].scroll_to(y=max(0, lines[0] - 3), animate=False)

    def painted(self, source: str, marked: list[tuple[int, int]], current: tuple[int, int]) -> Text:
        """The file, one row per line (never wrapped: the rows stay the lines), shared lines marked,
        the current fragment's more strongly."""
        shared = palette.style(self.app, "warn")
        here = palette.style(self.app, "info", bold=True)
        out = Text(no_wrap=True, overflow="ellipsis")
        for number, line in enumerate(source.splitlines() or [""], start=1):
            if number > 1:
                out.append("\n")
            in_current = current[0] <= number <= current[1]
            in_shared = any(first <= number <= last for first, last in marked)
            mark = "▌" if in_current else "│" if in_shared else " "
            out.append(f"{number:>4}{mark} ", style=here if in_current else shared if in_shared else "dim")
            out.append(safe_line(line, 400), style=here if in_current else shared if in_shared else "")
        return out

    # ----------------------------------------------------------------- actions

    # What only a pair's files have: none of it exists in a view with no pair (neither footer nor `?`).
    PAIR_ACTIONS = frozenset({"fragment", "pair", "scroll", "page", "other_side"})

    # When the keys that act only in a state act (docs/keys.md says it of every pair view).
    HELP_WHEN = {"fragment": "once a pair's shared fragments are read", "pair": "when there is more than one pair"}

    @property
    def HELP_LISTED(self) -> dict[str, str]:  # the name help reads on every node
        """Listed by `?` even while they do nothing, with when they act (only where there is a pair)."""
        return self.HELP_WHEN if self.pairs else {}

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers only what acts: no fragment keys before a pair's fragments are read, no pair
        keys for a single pair, and in a view with no pair nothing but back and help."""
        if action in self.PAIR_ACTIONS and not self.pairs:
            return False
        if action == "fragment":
            return bool(self.read and self.read.fragments)
        if action == "pair":
            return len(self.pairs) > 1
        return True

    def action_fragment(self, step: int) -> None:
        if self.read and self.read.fragments:
            self.fragment_index = (self.fragment_index + step) % len(self.read.fragments)

    def action_pair(self, step: int) -> None:
        if len(self.pairs) > 1:
            self.pair_index = (self.pair_index + step) % len(self.pairs)
            self.read = None
            self.show()
            self.read_pair()

    def side(self) -> VerticalScroll:
        """The file pane with focus (the first when neither has it)."""
        return next((scroll for scroll in self.scrolls if scroll.has_focus), self.scrolls[0])

    def action_scroll(self, step: int) -> None:
        self.side().scroll_relative(y=step, animate=False)

    def action_page(self, step: int) -> None:
        side = self.side()
        side.scroll_relative(y=step * max(1, side.scrollable_content_region.height - 1), animate=False)

    def action_other_side(self) -> None:
        self.scrolls[1 if self.side() is self.scrolls[0] else 0].focus()

    def action_back(self) -> None:
        self.dismiss(None)
