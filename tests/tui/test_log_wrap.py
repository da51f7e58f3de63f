"""The stub log's wrapping: every row fits the pane, nothing is lost or reordered, whatever the text
(wide characters, runs of spaces, a word longer than a row)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from review.tui.widgets.stub_log.lines import indent_for, wrap_offsets

LINE = (
    "[   258.6 ms] first-503: #1 p1 call 1 POST /charge key [k1] 590c362b… (body) amount=1999 → 200 · "
    "charge ch_0001 created"
)


def rows(text: str, width: int) -> list[str]:
    indent = indent_for(text, width)
    offsets = wrap_offsets(text, width, indent)
    return [text[a:b] for a, b in zip([0, *offsets], [*offsets, len(text)])]


def test_a_request_line_at_80_columns_breaks_between_words_under_its_time_stamp():
    first, second = rows(LINE, 78)
    assert first.endswith("(body) ") and second == "amount=1999 → 200 · charge ch_0001 created"
    assert indent_for(LINE, 78) == len("[   258.6 ms] ")
    assert rows(LINE, 200) == [LINE]


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("ab  c→·日本[]ms")), max_size=300), st.integers(min_value=1, max_value=120)
)
def test_rows_fit_and_join_back_to_the_line(text, width):
    found = rows(text, width)
    assert "".join(found) == text
    indent = indent_for(text, width)
    for number, row in enumerate(found):
        room = width if number == 0 else max(1, width - indent)
        # A character wider than the room is the only thing that may stick out.
        assert cell_len(row.rstrip()) <= max(room, 2), (row, width, indent)


def test_a_huge_line_loses_nothing():
    huge = ("word " * 40_000) + "x" * 100_000
    found = rows(huge, 80)
    assert "".join(found) == huge and all(len(row.rstrip()) <= 80 for row in found)


async def test_a_log_past_its_cap_says_how_many_lines_it_left_out():
    from textual.app import App

    from review.tui.widgets.stub_log.lines import LogLines

    class OneLog(App[None]):
        def compose(self):
            yield LogLines(max_lines=10)

    app = OneLog()
    async with app.run_test(size=(60, 12)) as pilot:
        log = app.query_one(LogLines)
        for number in range(25):
            log.add(f"[ {number:5d} ms] happy: line {number}")
        await pilot.pause()
        shown = log.plain_lines()
        assert shown[0].startswith("⋯ ") and "earlier lines are not shown" in shown[0]
        dropped = int(shown[0].split()[1])
        assert shown[-1].endswith("line 24") and dropped + len(shown) - 1 == 25
        # Following the end: the last line is on screen.
        assert "line 24" in "".join(log.render_line(y).text for y in range(log.size.height))
