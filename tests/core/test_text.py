from textual.app import App, ComposeResult
from textual.widgets import Static

from review.core import text
from review.tui import display

HOSTILE = (
    "note\x1b]52;c;cGF3bmVk\x1b\\ title\x1b]0;PWNED\x07 clear\x1b[2J c1\x9b31m osc\x9d0;x"
    " bidi\u202eevil\u2066 zw\u200bx [@click=app.quit]CLICK[/]"
)


def test_escapes_and_c1_controls_become_visible():
    cleaned = text.safe_text(HOSTILE)
    assert "\x1b" not in cleaned and "\x9b" not in cleaned and "\x9d" not in cleaned and "\x07" not in cleaned
    assert "␛]52;c;cGF3bmVk␛\\" in cleaned  # OSC 52 shown, not executed
    assert "␛[2J" in cleaned
    assert "\\x9b31m" in cleaned and "\\x07" in cleaned


def test_bidi_and_zero_width_are_flagged():
    cleaned = text.safe_text("a\u202eb\u2066c\u200bd\ufeffe\u2028f")
    assert cleaned == "a<U+202E>b<U+2066>c<U+200B>d<U+FEFF>e<U+2028>f"


def test_tabs_and_newlines_survive_but_not_in_single_line_fields():
    assert text.safe_text("a\tb\nc") == "a\tb\nc"
    assert text.safe_line("Name\nFake row\r") == "Name⏎Fake row\\x0d"


def test_markup_stays_literal():
    assert text.safe_text("[@click=app.quit]x[/]") == "[@click=app.quit]x[/]"
    assert display.content("[b]bold?[/b]").plain == "[b]bold?[/b]"


def test_decode_replaces_invalid_utf8():
    assert text.decode(b"ok \xff\xfe \x1b[31m") == "ok \ufffd\ufffd ␛[31m"


def test_clip_says_what_was_cut():
    assert text.clip("abcdef", 3) == "abc… [3 more characters]"
    assert text.clip_lines("1\n2\n3", 2) == "1\n2\n… [1 more lines]"


class NoteApp(App):
    def __init__(self, note: str) -> None:
        super().__init__()
        self.note = note
        self.quit_attempts = 0

    def compose(self) -> ComposeResult:
        yield Static(display.content(self.note), id="note")

    async def action_quit(self) -> None:
        self.quit_attempts += 1


async def test_click_markup_in_a_note_is_inert():
    app = NoteApp("[@click=app.quit]CLICK ME[/] and [@click=app.bell]me[/]")
    async with app.run_test(size=(60, 5)) as pilot:
        static = app.query_one("#note", Static)
        assert "[@click=app.quit]CLICK ME[/]" in str(static.render())
        await pilot.click("#note", offset=(3, 0))
        await pilot.click("#note", offset=(20, 0))
        await pilot.pause()
        assert app.quit_attempts == 0
        assert app.is_running
