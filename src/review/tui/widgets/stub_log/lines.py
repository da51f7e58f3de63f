"""The stub log's lines: one style per idempotency key, numbered beside its colour, so a second key
for one order jumps out in 256 colours, in 16, under NO_COLOR and to colour-blind eyes alike.
Colours come from the theme (review.tui.palette).

Every line is wrapped to the pane's width, the rows after its first indented under its text, and
wrapped again when the width changes: at 80 columns a request's status and charge are on screen, not
past its edge. A long key is folded to its number and its first characters (`[k2] cda64685…`); the
key in full is what the selected line's detail shows. A ScrollView drawing rows on demand (Toolong's
shape): a line is wrapped when first drawn at a width, and its rows kept in an LRU cache."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from rich.cells import cell_len, get_character_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from review.tui import palette
from review.tui.lifetimes import empty

KEY_IN_LINE = re.compile(r"key=(\(no key\)|[^\s(]+)")
NO_KEY = "(no key)"
# A key longer than this is folded to its first FOLDED characters (a UUID is 36).
FOLD_PAST, FOLDED = 12, 8
# Rows after a line's first start under its text, past its time stamp (and its side, in before/after).
INDENT_AFTER = re.compile(r"^(?:\S+ *│ )?\[[^\]]{1,20}\] ")
PLAIN_INDENT = 2
WORDS = re.compile(r"\S+\s*")


@dataclass
class Entry:
    text: Text
    # The key this line names, in full, and its number (folded in the text when long).
    key: str | None = None
    number: int | None = None
    # The first row's note that earlier lines were dropped.
    dropped_note: bool = False


def wrap_offsets(text: str, width: int, indent: int) -> list[int]:
    """Where `text` breaks into rows of at most `width` cells, the rows after the first `indent` cells
    narrower (they are drawn indented): before the last word that fits, or inside a word longer than
    a row. Spaces at a break stay at the end of the row above."""
    breaks: list[int] = []
    room = max(1, width)
    used = cell_len(text[: len(text) - len(text.lstrip())])
    for match in WORDS.finditer(text):
        word, start = match.group(), match.start()
        length = cell_len(word.rstrip())
        if used + length <= room:
            used += cell_len(word)
            continue
        if used > 0 and start > (breaks[-1] if breaks else 0):
            breaks.append(start)
            room, used = max(1, width - indent), 0
        # A word longer than a whole row is cut where the row ends.
        position = start
        while length > room:
            cut, taken = position, 0
            while cut < start + len(word.rstrip()) and taken + get_character_cell_size(text[cut]) <= room:
                taken += get_character_cell_size(text[cut])
                cut += 1
            cut = max(cut, position + 1)
            breaks.append(cut)
            room, used = max(1, width - indent), 0
            length -= cell_len(text[position:cut])
            position = cut
        used += cell_len(text[position : start + len(word)])
    return [offset for offset in breaks if 0 < offset < len(text)]


def indent_for(plain: str, width: int) -> int:
    found = INDENT_AFTER.match(plain)
    indent = cell_len(found.group()) if found else PLAIN_INDENT
    return min(indent, width // 3)


class LogLines(ScrollView, can_focus=True):
    """Raw run lines, styled by what they are (focusable, so the pane's keys work from it). Up and down
    select a line (its key in full shows under the log); end goes back to following the log."""

    HELP_GROUP = "Stub log"
    COMPONENT_CLASSES = {"log-lines--selected"}
    DEFAULT_CSS = """
    LogLines {
        background: $surface;
        color: $foreground;
        overflow-y: scroll;
        overflow-x: hidden;
        &:focus { background-tint: $foreground 5%; }
        & > .log-lines--selected { background: $primary 30%; text-style: bold; }
    }
    """
    BINDINGS = [
        Binding("up,k", "select(-1)", "Previous line", show=False, id="log.line-up"),
        Binding("down,j", "select(1)", "Next line", show=False, id="log.line-down"),
        Binding("pageup", "select_page(-1)", "Page up", show=False, id="log.page-up"),
        Binding("pagedown", "select_page(1)", "Page down", show=False, id="log.page-down"),
        Binding("home", "select_first", "First line", show=False, id="log.first"),
        Binding("end", "follow", "Follow the log", show=False, id="log.follow"),
    ]

    # The selected line (its index), or None while the log follows its end.
    selected: reactive[int | None] = reactive(None, init=False)

    @dataclass
    class Selected(Message):
        """A line was selected (None: the log follows its end again)."""

        log: LogLines
        entry: Entry | None

    def __init__(self, *, max_lines: int = 20_000, auto_scroll: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.max_lines = max_lines
        self.auto_scroll = auto_scroll
        self.entries: list[Entry] = []
        # Lines dropped from the front past max_lines (said in the first row).
        self.dropped = 0
        self.key_numbers: dict[str, int] = {}  # key -> 1, 2, … in the order the keys appeared
        # Where each line's rows start, at the width they were wrapped for.
        self._starts: list[int] = []
        self._rows_total = 0
        self._width = 0
        # Entries are numbered for the cache from the first ever written, so dropping some keeps the rest.
        self._first_id = 0
        self._cache: LRUCache[tuple[int, int, bool], list[Strip]] = LRUCache(1024)

    # ----------------------------------------------------------------- what the lines say

    def forget_keys(self) -> None:
        self.key_numbers = {}

    def key_style(self, key: str) -> Style:
        if key == NO_KEY:
            return palette.style(self.app, "bad", bold=True)
        number = self.key_numbers.setdefault(key, len(self.key_numbers) + 1)
        return palette.key_style(self.app, number - 1)

    def styled(self, text: str, kind: str) -> Entry:
        client = "client stdout" in text or "client stderr" in text
        match = None if client else KEY_IN_LINE.search(text)
        entry = Entry(Text(text))
        if match and kind in ("response", "cached"):
            key = match.group(1)
            key_style = self.key_style(key)
            number = self.key_numbers.get(key)
            shown = key if key == NO_KEY or len(key) <= FOLD_PAST else f"{key[:FOLDED]}…"
            tag = f"[k{number}] " if number else ""
            entry = Entry(Text(text[: match.start()] + "key " + tag + shown + text[match.end() :]), key, number)
            entry.text.stylize(key_style, match.start() + 4, match.start() + 4 + len(tag) + len(shown))
        line = entry.text
        app = self.app
        if kind in ("stdout", "stderr") or client:
            line.stylize(Style(dim=True, italic=True))  # the client's own words: shown, never believed
        elif kind in ("scenario-done", "cached") and "verdict " in text:
            line.stylize(palette.style(app, "ok" if "verdict ok" in text else "bad", bold=True))
        elif kind == "summary" or '"distinctKeys"' in text:
            line.stylize(Style(bold=True))
        elif kind == "coverage":
            line.stylize(palette.style(app, "info", bold=True))
        elif kind == "timeline":
            line.stylize(palette.style(app, "bad", bold=True) if "RED" in text else Style(bold=True))
        return entry

    def add(self, text: str, kind: str = "info") -> None:
        self.append(self.styled(text, kind))

    def write(self, text: Text) -> None:
        """A line styled already (a heading, the job's end)."""
        self.append(Entry(text.copy()))

    def append(self, entry: Entry) -> None:
        self.entries.append(entry)
        if len(self.entries) > self.max_lines:
            self._drop(len(self.entries) - self.max_lines + self.max_lines // 10)
        elif self._width:
            self._starts.append(self._rows_total)
            self._rows_total += self._row_count(len(self.entries) - 1, self._width)
            self.virtual_size = Size(self._width, self._rows_total)
        if self.auto_scroll and self.selected is None:
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def _drop(self, count: int) -> None:
        """The oldest lines go (the first row then says how many); `w` still writes the whole log."""
        if self.entries and self.entries[0].dropped_note:
            self.entries.pop(0)
            self._first_id += 1
        self.dropped += count
        del self.entries[:count]
        self._first_id += count
        note = Text(f"⋯ {self.dropped} earlier lines are not shown here (w writes the whole log)", style="dim")
        self.entries.insert(0, Entry(note, dropped_note=True))
        self._first_id -= 1
        if self.selected is not None:
            self.selected = max(0, self.selected - count + 1)
        self._relayout()

    def clear(self) -> None:
        self.entries = []
        self.dropped = 0
        empty(self._cache)
        self._first_id = 0
        self.selected = None
        self._relayout()
        self.scroll_to(y=0, animate=False, immediate=True)

    def plain_lines(self) -> list[str]:
        """Every line as shown (keys folded), unwrapped."""
        return [entry.text.plain for entry in self.entries]

    # ----------------------------------------------------------------- rows

    def on_resize(self, event: events.Resize) -> None:
        self._relayout()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        empty(self._cache)

    def _relayout(self) -> None:
        """Every line's rows at the width the log has now."""
        self._width = self.scrollable_content_region.width
        self._starts, total = [], 0
        if self._width:
            for index in range(len(self.entries)):
                self._starts.append(total)
                total += self._row_count(index, self._width)
        self._rows_total = total
        self.virtual_size = Size(self._width, total)
        self.refresh()
        if self.auto_scroll and self.selected is None:
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def _row_count(self, index: int, width: int) -> int:
        """How many rows line `index` takes at `width` (counted without drawing them)."""
        plain = self.entries[index].text.plain
        return len(wrap_offsets(plain, width, indent_for(plain, width))) + 1

    def _rows(self, index: int, width: int) -> list[Strip]:
        """Line `index` drawn at `width`: its first row, then the others indented under its text."""
        selected = index == self.selected
        cache_key = (self._first_id + index, width, selected)
        found = self._cache.get(cache_key)
        if found is not None:
            return found
        text = self.entries[index].text
        indent = indent_for(text.plain, width)
        pieces = text.divide(wrap_offsets(text.plain, width, indent))
        console = self.app.console
        style = self.get_component_rich_style("log-lines--selected") if selected else None
        strips = []
        for number, piece in enumerate(pieces):
            segments = list(piece.render(console))
            if number:
                segments.insert(0, Segment(" " * indent))
            strip = Strip(segments).crop_extend(0, width, None)
            strips.append(strip.apply_style(style) if style is not None else strip)
        self._cache[cache_key] = strips
        return strips

    def drawn(self, index: int) -> list[str]:
        """Line `index` as its rows read at the log's width now."""
        return [strip.text for strip in self._rows(index, self._width)] if self._width else []

    def entry_at_row(self, row: int) -> int | None:
        """The line drawn on `row` of the whole log."""
        if not self.entries or not self._starts or row < 0:
            return None
        return min(bisect_right(self._starts, row) - 1, len(self.entries) - 1)

    def row_of(self, index: int) -> int:
        return self._starts[index] if 0 <= index < len(self._starts) else 0

    def top_entry(self) -> int | None:
        """The line at the top of what is on screen."""
        return self.entry_at_row(self.scroll_offset.y)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if width != self._width:
            self._relayout()
        row = self.scroll_offset.y + y
        index = self.entry_at_row(row)
        if index is None or row >= self._rows_total:
            return Strip.blank(width, self.rich_style)
        return self._rows(index, width)[row - self._starts[index]].apply_style(self.rich_style)

    # ----------------------------------------------------------------- selecting a line

    def scroll_to_entry(self, index: int) -> None:
        """Line `index` at the top."""
        self.scroll_to(y=self.row_of(index), animate=False, immediate=True)

    def watch_selected(self, after: int | None) -> None:
        self.refresh()
        if after is not None and self._starts:
            top, rows = self.row_of(after), self._row_count(after, self._width)
            if top < self.scroll_offset.y:
                self.scroll_to(y=top, animate=False, immediate=True)
            elif top + rows > self.scroll_offset.y + self.scrollable_content_region.height:
                self.scroll_to(y=top + rows - self.scrollable_content_region.height, animate=False, immediate=True)
        self.post_message(self.Selected(self, self.entries[after] if after is not None else None))

    def action_select(self, step: int) -> None:
        if not self.entries:
            return
        if self.selected is None:
            # The first key press selects the last line on screen (or the first, going down from the top).
            bottom = self.entry_at_row(self.scroll_offset.y + self.scrollable_content_region.height - 1)
            start = bottom if bottom is not None else len(self.entries) - 1
            self.selected = start if step < 0 else (self.top_entry() or 0)
            return
        self.selected = max(0, min(len(self.entries) - 1, self.selected + step))

    def action_select_page(self, step: int) -> None:
        height = max(1, self.scrollable_content_region.height - 1)
        current = self.selected if self.selected is not None else self.top_entry() or 0
        row = self.row_of(current) + step * height
        found = self.entry_at_row(max(0, min(row, self._rows_total - 1)))
        if found is not None:
            self.selected = found

    def action_select_first(self) -> None:
        if self.entries:
            self.selected = 0

    def action_follow(self) -> None:
        self.selected = None
        self.scroll_end(animate=False, immediate=True, x_axis=False)

    def on_click(self, event: events.Click) -> None:
        found = self.entry_at_row(self.scroll_offset.y + event.y)
        if found is not None:
            self.selected = found
