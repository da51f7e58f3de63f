"""The attribution merge works on stretches of lines (blocks of blame, claim intervals, a sweep); it
must say of every line exactly what the merge written line by line says: the same winner, the same
conflicts and spans, the same unmapped note lines. Checked on random histories, records and notes
against that plain version (tests/core/per_line_attribution.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from per_line_attribution import attribute_per_line

from review.core.attribution import LineRecord, NoteEntry, Prepared, attribute, commit_signals, segments
from review.core.attribution.note import NoteDisclosure

SHAS = [f"{n:x}" * 40 for n in range(1, 7)]
HEAD_SHA = SHAS[-1]
PATHS = ["checkout.mjs", "lib/retry.mjs", "test/checkout.test.mjs"]
TOOLS = ["Claude Code", "GitHub Copilot", "Cursor", "an agent (git-ai)", None]
TRAILERS = [
    "",
    "\n\nCo-authored-by: Claude <noreply@anthropic.com>",
    "\n\nCo-authored-by: Copilot <175728472+Copilot@users.noreply.github.com>",
]


@st.composite
def blame_of(draw, path_count: int) -> dict[str, list[tuple[str, int, str, str]]]:
    """Each path's HEAD lines as runs: one commit's consecutive lines of one file there, some moved."""
    blame = {}
    for path in PATHS[:path_count]:
        origins: list[tuple[str, int, str, str]] = []
        for _ in range(draw(st.integers(0, 5))):
            sha = draw(st.sampled_from(SHAS + ["f" * 40]))  # one commit not in the history
            there = draw(st.sampled_from(PATHS))
            start = draw(st.integers(1, 12))
            mover = draw(st.sampled_from(["", "", SHAS[2]]))
            step = draw(st.sampled_from([1, 1, 1, 2]))  # 2: lines there that are not consecutive
            origins += [(sha, start + step * i, there, mover) for i in range(draw(st.integers(1, 8)))]
        blame[path] = origins
    return blame


RECORD = st.builds(
    LineRecord,
    path=st.sampled_from(PATHS),
    commit=st.sampled_from([None, None, HEAD_SHA, *SHAS[:4], SHAS[1][:7], "1"]),
    ranges=st.lists(
        st.tuples(st.integers(-1, 14), st.integers(0, 3)).map(lambda p: (p[0], p[0] + p[1])), min_size=1, max_size=3
    ),
    tool=st.sampled_from(TOOLS),
    source=st.sampled_from(["git-ai note", "agent trace", "whogitit"]),
    family=st.sampled_from(["", "trace", "trace", "notes"]),
    order=st.integers(0, 2),
    claims=st.sampled_from([True, True, True, False]),
)

ENTRY = st.one_of(
    st.builds(
        NoteEntry,
        line_no=st.integers(1, 30),
        raw=st.just("Claude wrote lines 2-6 of checkout.mjs"),
        kind=st.just("range"),
        file=st.sampled_from(["", "AI-DECLARATION.md"]),
        path=st.sampled_from(PATHS + ["gone.mjs"]),
        start=st.integers(0, 12),
        end=st.integers(0, 16),
        who=st.sampled_from(["Claude", "I", ""]),
        tool=st.sampled_from(TOOLS),
    ),
    st.builds(
        NoteEntry,
        line_no=st.integers(1, 30),
        raw=st.just("Copilot wrote lib/retry.mjs"),
        kind=st.just("file"),
        path=st.sampled_from(PATHS),
        who=st.just("Copilot"),
        tool=st.sampled_from(TOOLS),
    ),
    st.builds(
        NoteEntry,
        line_no=st.integers(1, 30),
        raw=st.just("commit 2222222 was Cursor's"),
        kind=st.just("commit"),
        commit=st.sampled_from([s[:7] for s in SHAS[:4]] + ["9999999"]),
        who=st.just("Cursor"),
        tool=st.sampled_from(TOOLS),
    ),
    st.builds(
        NoteEntry,
        line_no=st.integers(1, 30),
        raw=st.just("Claude wrote the tests"),
        kind=st.just("tests"),
        who=st.just("Claude"),
        tool=st.sampled_from(TOOLS),
    ),
    st.builds(NoteEntry, line_no=st.integers(1, 30), raw=st.just("I used no assistant"), kind=st.just("none")),
    st.builds(NoteEntry, line_no=st.integers(1, 30), raw=st.just("AI helped a bit"), kind=st.just("prose")),
)


def outcome(result) -> tuple:
    lines = sorted(
        (path, line, c.tool, c.source, c.layer, c.moved)
        for path, by_line in result.lines.items()
        for line, c in by_line.items()
    )
    return (
        lines,
        # The reference knows no line states (person, unknown): the lines' claims say the rest.
        [{k: v for k, v in s.to_json().items() if k != "state"} for s in result.spans],
        [c.to_json() for c in result.conflicts],
        [u.to_json() for u in result.unmapped],
        [n.to_json() for n in result.notices],
        result.tools,
        result.unknown_tools,
    )


@settings(max_examples=600, deadline=None)
@given(
    st.integers(1, 3).flatmap(blame_of),
    st.lists(RECORD, max_size=8),
    st.lists(ENTRY, max_size=4),
    st.lists(st.sampled_from(range(len(TRAILERS))), min_size=len(SHAS), max_size=len(SHAS)),
    st.sets(st.sampled_from(SHAS[:3])),
)
def test_the_merge_by_stretches_says_what_the_merge_line_by_line_says(
    blame, records, entries, trailers, unknown_authors
):
    commits = [
        commit_signals(
            sha, f"commit {n}{TRAILERS[trailers[n]]}", ("Pat Doe", "pat@example.com"), ("Pat Doe", "pat@example.com")
        )
        for n, sha in enumerate(SHAS)
    ]
    authors = {sha: "Pat Doe" for sha in SHAS if sha not in unknown_authors}
    head_lines = {path: len(origins) for path, origins in blame.items()}
    head_lines["notes.txt"] = 9  # named by the note, never traced
    note = NoteDisclosure("## AI use", entries)
    subjects = {sha: f"commit {n}" for n, sha in enumerate(SHAS)}
    args = (commits, authors, note, head_lines, blame, records, HEAD_SHA, subjects)
    expected = outcome(attribute_per_line(*args))
    assert outcome(attribute(*args)) == expected
    # Read ahead of the lines' origins, with the records known then (the first ones): the same.
    early = Prepared(commits, authors, records[: len(records) // 2])
    assert outcome(attribute(*args, prepared=early)) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 6)), max_size=8))
def test_each_stretch_holds_exactly_the_intervals_over_each_of_its_lines(spans):
    intervals = [
        segments.Interval(start, start + length, segments.RECORD, n, n) for n, (start, length) in enumerate(spans)
    ]
    seen: dict[int, list[int]] = {}
    last_end = None
    for first, last, holding in segments.sweep(intervals):
        assert first <= last and (last_end is None or first > last_end)
        last_end = last
        for line in range(first, last + 1):
            seen[line] = [iv.claim for iv in holding]
    expected = {line: [n for n, iv in enumerate(intervals) if iv.start <= line <= iv.end] for line in range(0, 40)}
    assert seen == {line: found for line, found in expected.items() if found}
