"""Reading git's patch into files, hunks and lines: every line where git put it, whatever the
candidate's text looks like (a line that reads like a patch header, a form feed, U+2028, a lone
carriage return, no newline at the end), on real git output and on fuzzed patches."""

from __future__ import annotations

import difflib
import subprocess
from pathlib import Path

import unidiff
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import commit_as, make_repo
from review.core import diff
from review.core.attribution import Claim

# Lines a hostile file can hold that look like parts of a patch, or end a line for some readers.
TRICKY = [
    "diff --git a/x.mjs b/x.mjs",
    "@@ -1,2 +1,2 @@",
    "--- a/x.mjs",
    "+++ b/x.mjs",
    "\\ No newline",
    "",
    "\r",
    "a\u2028b",
    "page\x0cbreak",
    "  const key = randomUUID();",
    "index 1111111..2222222",
]


def patch_of(old: list[str], new: list[str], path: str = "x.mjs", context: int = 3) -> bytes:
    body = list(difflib.unified_diff(old, new, f"a/{path}", f"b/{path}", n=context, lineterm=""))
    if not body:
        return b""
    return (
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n" + "".join(line + "\n" for line in body)
    ).encode()


def sides(parsed: diff.Diff) -> tuple[dict[int, str], dict[int, str]]:
    """Each side's lines as the parse numbered them."""
    old: dict[int, str] = {}
    new: dict[int, str] = {}
    for file_diff in parsed.files:
        for hunk in file_diff.hunks:
            for line in hunk.lines:
                if line.old_no is not None:
                    old[line.old_no] = line.text
                if line.new_no is not None:
                    new[line.new_no] = line.text
    return old, new


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(TRICKY), max_size=30),
    st.lists(st.sampled_from(TRICKY), max_size=30),
    st.integers(min_value=0, max_value=3),
)
def test_every_line_of_both_sides_is_read_at_its_own_number(old, new, context):
    parsed = diff.parse(patch_of(old, new, context=context))
    assert parsed.problem is None
    old_seen, new_seen = sides(parsed)
    assert all(old[number - 1] == text for number, text in old_seen.items())
    assert all(new[number - 1] == text for number, text in new_seen.items())
    # Every changed line, once, in the order git wrote it.
    changed = [(line.kind, line.text) for f in parsed.files for h in f.hunks for line in h.lines if line.kind in "+-"]
    expected = [
        (line[0], line[1:])
        for line in difflib.unified_diff(old, new, n=context, lineterm="")
        if line[:1] in "+-" and not line.startswith(("+++ ", "--- "))
    ]
    assert changed == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(TRICKY), max_size=20), st.lists(st.sampled_from(TRICKY), max_size=20))
def test_lines_and_counts_are_what_unidiff_reads(old, new):
    patch = patch_of(old, new)
    parsed = diff.parse(patch)
    reference = unidiff.PatchSet(patch.decode())
    ours = [
        (h.old_start, h.old_len, h.new_start, h.new_len, [(x.kind, x.text, x.old_no, x.new_no) for x in h.lines])
        for f in parsed.files
        for h in f.hunks
    ]
    theirs = [
        (
            h.source_start,
            h.source_length,
            h.target_start,
            h.target_length,
            [(x.line_type or " ", x.value.rstrip("\n"), x.source_line_no, x.target_line_no) for x in h],
        )
        for f in reference
        for h in f
    ]
    assert ours == theirs


def test_real_git_output_keeps_every_odd_line_and_each_files_status(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"x.mjs": "one\n", "gone.txt": "bye\n", "old name.txt": "same\n" * 5})
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    (repo / "gone.txt").unlink()
    (repo / "old name.txt").rename(repo / "new name.txt")
    (repo / "bin.dat").write_bytes(b"\0\1\2")
    (repo / "new.mjs").write_bytes(b"+plus\n-minus\n last, no newline")
    text = "one\r\ndiff --git a/y b/y\n@@ -1 +1 @@\na\u2028b\n\n--- a/z\nlast, no newline"
    (repo / "x.mjs").write_bytes(text.encode())
    commit_as(repo, "odd lines")
    patch = subprocess.run(["git", "diff", "-M", base, "HEAD"], cwd=repo, capture_output=True).stdout
    parsed = diff.parse(patch, base, "HEAD")
    assert parsed.problem is None
    statuses = {f.path: (f.status, f.binary, f.old_path) for f in parsed.files}
    assert statuses == {
        "bin.dat": ("added", True, None),
        "gone.txt": ("deleted", False, None),
        "new.mjs": ("added", False, None),
        "new name.txt": ("renamed", False, "old name.txt"),
        "x.mjs": ("modified", False, None),
    }
    (code,) = [f for f in parsed.files if f.path == "x.mjs"]
    _old, new = sides(diff.Diff("", "", [code]))
    assert [new[n] for n in sorted(new)] == text.split("\n")
    assert code.added == 7 and code.removed == 1
    assert code.hunks[0].lines[-1].kind == "\\"
    (added,) = [f for f in parsed.files if f.path == "new.mjs"]
    assert [(line.kind, line.text, line.new_no) for line in added.hunks[0].lines] == [
        ("+", "+plus", 1),
        ("+", "-minus", 2),
        ("+", " last, no newline", 3),
        ("\\", " No newline at end of file", None),
    ]
    (gone,) = [f for f in parsed.files if f.path == "gone.txt"]
    assert [(line.kind, line.text, line.old_no) for line in gone.hunks[0].lines] == [("-", "bye", 1)]


def test_a_patch_cut_inside_a_hunk_says_it_could_not_be_read():
    patch = patch_of(["a", "b", "c"], ["a", "B", "c", "d"])
    cut = patch[: patch.rindex(b"\n", 0, len(patch) - 1) + 1]
    parsed = diff.parse(cut)
    assert parsed.problem is not None and "shorter" in parsed.problem
    assert parsed.files == []


# A winning claim of each state: an assistant's, the person's, no source's, the base's.
CLAIMS = {
    "Claude Code": Claim("Claude Code", "said by Claude Code", 1),
    "Cursor": Claim("Cursor", "said by Cursor", 3),
    "person": Claim(None, "note line 3", 2),
    "unknown": Claim(None, "commit abc by Pat", 0, unknown=True),
    "base": Claim(None, "from the base: a.mjs:1 (abc)", 0, base=True),
}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 4), st.sampled_from(sorted(CLAIMS))), max_size=12),
    st.integers(1, 40),
    st.integers(1, 30),
    st.sampled_from(["", "person"]),
)
def test_a_hunk_read_without_its_lines_counts_its_claimed_lines_as_marking_them_would(widths, start, count, default):
    runs, line = [], 1
    for width, said in widths:
        runs.append((line, line + width - 1, CLAIMS[said]))
        line += width + (width % 2)  # some lines no run claims: `default` says their state
    patch = patch_of(["x"] * (start - 1), ["x"] * (start - 1) + ["new"] * count, context=0)
    lean, whole = diff.parse(patch, keep_lines=False), diff.parse(patch)
    (hunk,) = lean.files[0].hunks
    assert hunk.added_at == range(start, start + count) and not hunk.lines
    hunk.count_claims(runs, [first for first, _, _ in runs], default)
    by_line = {n: claim for first, last, claim in runs for n in range(first, last + 1)}
    (marked,) = whole.files[0].hunks
    marked.put_claims(by_line, default)
    tally = marked.counts()
    states = [line.tool or line.state or "unknown" for line in marked.lines]
    assert (tally.person_added, tally.base_added) == (states.count("person"), states.count("base"))
    assert hunk.counts() == marked.counts()
