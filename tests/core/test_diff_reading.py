"""What the diff model adds for reading a diff: moved blocks found within one diff, whitespace-only
changes hidden (`git diff -w`), the words a changed line changed, and side-by-side rows. Pure; the
random patches are fuzzed for shape and time (each runs in linear time on what it is given)."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from review.core import diff
from review.core.diff_moves import find_moves
from review.core.whitespace import hide_whitespace_changes
from review.core.word_diff import changed_spans, hunk_words

PARSE_AMOUNT = [
    "export function parseAmount(text) {",
    "  const value = Number.parseFloat(text);",
    "  return Math.round(value * 100);",
    "}",
]


def patch_of(files: dict[str, tuple[list[str], list[str]]], context: int = 3) -> bytes:
    """A git-style patch of these (old, new) file contents."""
    out = []
    for path, (old, new) in files.items():
        hunks = list(difflib.unified_diff(old, new, f"a/{path}", f"b/{path}", n=context, lineterm=""))
        if hunks:
            out.append(f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n")
            out.append("".join(line + "\n" for line in hunks))
    return "".join(out).encode()


def changed(diff: diff.Diff) -> list[tuple[str, str, str]]:
    return [
        (f.path, line.kind, line.text) for f in diff.files for h in f.hunks for line in h.lines if line.kind in "+-"
    ]


# ----------------------------------------------------------------- moved blocks


def test_a_function_moved_to_another_file_is_one_move_with_both_ends_named():
    parsed = diff.parse(
        patch_of(
            {
                "money.mjs": (
                    ["export const rounding = 'half-up';"],
                    ["export const rounding = 'half-up';", "", *PARSE_AMOUNT],
                ),
                "util.mjs": (
                    ["export const currency = 'EUR';", "", *PARSE_AMOUNT, "", "export const cents = 1;"],
                    ["export const currency = 'EUR';", "", "export const cents = 1;"],
                ),
            }
        )
    )
    assert find_moves(parsed) == 1
    money, util = parsed.files
    ((came_at, came),) = money.hunks[0].moves
    ((gone_at, gone),) = util.hunks[0].moves
    assert came.text == "moved from util.mjs:3 (4 lines)" and gone.text == "moved to money.mjs:3 (4 lines)"
    assert came.other is gone and gone.other is came
    assert money.hunks[0].lines[came_at].text == PARSE_AMOUNT[0] == util.hunks[0].lines[gone_at].text
    moved = [(line.kind, line.text) for f in parsed.files for h in f.hunks for line in h.lines if line.move]
    assert sorted(moved) == sorted([("+", text) for text in PARSE_AMOUNT] + [("-", text) for text in PARSE_AMOUNT])
    # The blank line removed after the function is not part of the move.
    assert not any(line.move for line in util.hunks[0].lines if line.kind == "-" and not line.text)


def test_small_blocks_edits_and_reindented_lines_are_no_move():
    parsed = diff.parse(
        patch_of(
            {
                # 9 letters and digits: under the 20 a move within a file needs.
                "a.mjs": (
                    ["let x = 1;", "a();", "b();", "c();", "d();"],
                    ["a();", "b();", "c();", "d();", "let x = 1;"],
                ),
                # one word changed, and a line re-indented
                "b.mjs": (
                    ["  return charge(amount, key);", "  const total = sum(items);"],
                    ["  return charge(amount, orderKey);", "    const total = sum(items);"],
                ),
            }
        )
    )
    assert find_moves(parsed) == 0
    assert not any(line.move for f in parsed.files for h in f.hunks for line in h.lines)


def test_a_block_moved_within_its_file_needs_20_letters_and_digits_and_another_file_40():
    block = ["const retries = computeRetries(config);"]  # 33 letters and digits
    inside = diff.parse(
        patch_of(
            {"a.mjs": ([*block, "x();", "y();", "z();", "w();"], ["x();", "y();", "z();", "w();", *block])}, context=0
        )
    )
    assert find_moves(inside) == 1
    across = diff.parse(patch_of({"a.mjs": ([*block, "x();"], ["x();"]), "b.mjs": (["y();"], ["y();", *block])}))
    assert find_moves(across) == 0


# ----------------------------------------------------------------- whitespace

REFORMAT = {
    "backoff.mjs": (
        ["function backoff(n) {", "  const base = 100 * 2 ** n;", "  return base;", "}"],
        ["function backoff(n) {", "    const base = 100 * 2 ** n;", "    return base;", "}"],
    ),
    "checkout.mjs": (
        ["a();", "  send(amount, { maxAttempts: 3 });", "b();"],
        ["a();", "send(amount, {maxAttempts: 3});", "  send(amount, { maxRetries: 3 });", "b();"],
    ),
}


def test_whitespace_only_changes_are_hidden_as_git_diff_w_hides_them():
    parsed = diff.parse(patch_of(REFORMAT))
    for line in parsed.files[1].hunks[0].lines:
        if line.kind == "+" and "maxRetries" in line.text:
            line.tool = "Claude Code"
    parsed.files[1].hunks[0].retally()
    before = changed(parsed)
    hidden = hide_whitespace_changes(parsed)
    # The reformat's two lines, and the one line of checkout.mjs whose words only lost spaces.
    assert hidden.whitespace_hidden == 3
    backoff, checkout = hidden.files
    assert backoff.hunks == [] and backoff.whitespace_hidden == 2
    assert changed(hidden) == [("checkout.mjs", "+", "  send(amount, { maxRetries: 3 });")]
    # The line shown once as context keeps both its numbers; the real change keeps its number and its mark.
    lines = checkout.hunks[0].lines
    context = next(line for line in lines if line.text == "send(amount, {maxAttempts: 3});")
    assert (context.kind, context.old_no, context.new_no) == (" ", 2, 2)
    added = next(line for line in lines if line.kind == "+")
    assert (added.new_no, added.tool) == (3, "Claude Code")
    assert checkout.hunks[0].ai_added == 1 and checkout.ai_added == 1
    # The diff it was made from is as it was.
    assert changed(parsed) == before and parsed.whitespace_hidden is None


def test_moved_blocks_keep_their_notes_when_whitespace_is_hidden():
    files = dict(REFORMAT)
    files["util.mjs"] = (["export const currency = 'EUR';", *PARSE_AMOUNT], ["export const currency = 'EUR';"])
    files["money.mjs"] = (["  export const rounding = 1;"], ["export const rounding = 1;", *PARSE_AMOUNT])
    parsed = diff.parse(patch_of(files))
    assert find_moves(parsed) == 1
    hidden = hide_whitespace_changes(parsed)
    money = next(f for f in hidden.files if f.path == "money.mjs")
    ((index, end),) = money.hunks[0].moves
    assert money.hunks[0].lines[index] is end.first and end.text == "moved from util.mjs:2 (4 lines)"


# ----------------------------------------------------------------- changed words


def test_one_changed_word_is_marked_on_both_lines_and_nothing_else():
    old, new = (
        "    const response = await send(amount, { maxAttempts: limit });",
        "    const response = await send(amount, { maxRetries: limit });",
    )
    spans = changed_spans(old, new)
    assert spans is not None
    (old_span,), (new_span,) = spans
    assert old[slice(*old_span)] == "maxAttempts" and new[slice(*new_span)] == "maxRetries"


def test_lines_with_little_in_common_are_no_pair():
    assert changed_spans("const a = 1;", "throw new Error(`gave up after ${n}`);") is None
    words = hunk_words(["-", "+"], ["const a = 1;", "throw new Error(`gave up after ${n}`);"])
    assert words == {}


def test_a_removed_line_pairs_with_the_most_similar_of_the_added_lines():
    kinds = ["-", "+", "+", "+", " "]
    texts = ["x = compute(a, b)", "log('start')", "x = compute(a, c)", "log('end')", "done()"]
    words = hunk_words(kinds, texts)
    assert set(words) == {0, 2}
    assert texts[2][slice(*words[2][0])] == "c"
    # Side by side, lines pair by position: the first added line faces the removed one.
    assert hunk_words(kinds, texts, in_order=True) == {}


# ----------------------------------------------------------------- side by side, and fuzzing

LINES = st.lists(
    st.sampled_from(
        [
            "a",
            "b",
            "  b",
            "const x = 1;",
            "const  x = 1;",
            "",
            "return y;",
            "export function parseAmount(text) {",
            "  return Math.round(value);",
        ]
    ),
    max_size=25,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(LINES, LINES), min_size=1, max_size=4))
def test_reading_aids_hold_on_any_patch(files):
    parsed = diff.parse(patch_of({f"f{n}.mjs": pair for n, pair in enumerate(files)}, context=1))
    find_moves(parsed)
    for file_diff in parsed.files:
        for hunk in file_diff.hunks:
            rows = hunk.side_by_side()
            assert len(rows) == hunk.counts().paired
            # Every line on exactly one row's side (context lines on both).
            shown = sorted(i for row in rows for i in set(row) if i >= 0)
            assert shown == list(range(len(hunk.lines)))
            for index, end in hunk.moves:
                assert hunk.lines[index] is end.first and end.other is not None and end.other.other is end
            words = hunk_words([line.kind for line in hunk.lines], [line.text for line in hunk.lines])
            assert all(hunk.lines[i].kind in "+-" for i in words)
    hidden = hide_whitespace_changes(parsed)
    # What is hidden is whitespace only: without whitespace, the removed and the added texts are the same.
    gone = [(kind, text) for _path, kind, text in changed(parsed)]
    kept = [(kind, text) for _path, kind, text in changed(hidden)]
    assert len(gone) - len(kept) == 2 * (hidden.whitespace_hidden or 0)
    for kind in "+-":
        assert all(pair in gone for pair in kept if pair[0] == kind)


def test_a_large_reformat_is_read_line_by_line_past_the_aligned_size():
    old = [f"  const value{i} = compute({i});" for i in range(20_000)]
    new = [f"    const value{i} = compute({i + (i % 7 == 0)});" for i in range(20_000)]
    parsed = diff.parse(patch_of({"big.mjs": (old, new)}))
    find_moves(parsed)
    hidden = hide_whitespace_changes(parsed)
    hunk = parsed.files[0].hunks[0]
    hunk_words([line.kind for line in hunk.lines], [line.text for line in hunk.lines])
    assert hidden.whitespace_hidden == 20_000 - len(range(0, 20_000, 7))
