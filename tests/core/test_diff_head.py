"""The first screen of a diff before the whole patch is parsed: `diff.head_of` keeps a prefix that
parses on its own, into exactly the rows the whole patch begins with."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from review.core import diff

LINES = st.lists(st.sampled_from(["a", "b", "c", "const x = 1;", "", "  return y;", "\\ not a marker"]), max_size=30)
FILES = st.lists(st.tuples(LINES, LINES), min_size=1, max_size=4)


def patch_of(files: list[tuple[list[str], list[str]]]) -> bytes:
    """A git-style patch of these (old, new) file contents, as git would print it."""
    out = []
    for number, (old, new) in enumerate(files):
        hunks = list(difflib.unified_diff(old, new, f"a/f{number}.mjs", f"b/f{number}.mjs", n=1, lineterm=""))
        if not hunks:
            continue
        out.append(f"diff --git a/f{number}.mjs b/f{number}.mjs\nindex 1111111..2222222 100644\n")
        out.append("".join(line + "\n" for line in hunks))
    return "".join(out).encode()


def rows(parsed: diff.Diff) -> list[tuple[str, str, str, int | None, int | None]]:
    return [
        (f.path, line.kind, line.text, line.old_no, line.new_no)
        for f in parsed.files
        for h in f.hunks
        for line in h.lines
    ]


@settings(max_examples=300, deadline=None)
@given(FILES, st.integers(min_value=1, max_value=200))
def test_a_head_parses_alone_into_the_rows_the_whole_patch_begins_with(files, max_lines):
    patch = patch_of(files)
    head = diff.head_of(patch, max_lines)
    if head is None:  # the patch is that short (parse it whole), or the cut kept nothing
        assert patch.count(b"\n") < max_lines or not patch.startswith(b"diff --git") or max_lines < 6
        return
    assert patch.startswith(head.split(b"\n@@")[0])  # the file headers are kept as written
    assert head.count(b"\n") <= max_lines
    parsed, whole = diff.parse(head), diff.parse(patch)
    assert parsed.problem is None and whole.problem is None
    assert rows(whole)[: len(rows(parsed))] == rows(parsed)


def test_a_huge_added_file_shows_its_first_lines_at_once():
    body = b"".join(b"+line %d\n" % i for i in range(130_000))
    patch = (
        b"diff --git a/big.mjs b/big.mjs\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n"
        b"+++ b/big.mjs\n@@ -0,0 +1,130000 @@\n" + body
    )
    head = diff.head_of(patch, 2000)
    assert head is not None and b"@@ -0,0 +1,1994 @@" in head
    parsed = diff.parse(head)
    assert [f.path for f in parsed.files] == ["big.mjs"] and parsed.added == 1994
    assert parsed.files[0].hunks[0].lines[-1].text == "line 1993"
    assert diff.head_of(patch, 200_000) is None  # shorter than that: parsed whole, no head
