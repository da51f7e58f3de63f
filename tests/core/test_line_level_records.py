"""Line-level records in the core: Agent Trace's contributors, revisions and content hashes, and
notes carried from rewritten commits by their text. Pure functions, and properties over any input."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from review.core.attribution import agent_trace, attribute, content_hash, parse_note, rewritten
from review.core.attribution.records import LineRecord, added_runs
from review.core.line_moves import COPY_MIN_ALNUM, MOVE_MIN_ALNUM, alnum


def test_murmur3_gives_what_the_writers_give():
    # The values the mmh3 package (and Bun's murmur32v3, which agent-trace's hooks call) give.
    for data, expected in [
        (b"", 0),
        (b"hello", 0x248BFA47),
        (b"foo", 0xF6A5C420),
        (b"abc\ndef", 0x3B7A1E57),
        (b"x" * 37, 0xC409EA7B),
    ]:
        assert content_hash.murmur3_32(data) == expected


def test_content_hashes_are_read_in_the_forms_writers_use():
    assert content_hash.parse("murmur3:9f2e8a1b") == ("murmur3", "9f2e8a1b")
    assert content_hash.parse("SHA-256:" + "AB" * 32) == ("sha256", "ab" * 32)
    assert content_hash.parse("fnv1a32:0badf00d") == ("fnv1a", "0badf00d")
    assert content_hash.parse("9f2e8a1b") is None and content_hash.parse("x:" + "a" * 300) is None
    assert not content_hash.known("xxh64")


def test_a_hashed_range_is_found_where_it_moved_and_the_search_is_bounded():
    lines = [f"line {n}".encode() for n in range(1, 41)]
    wanted = format(content_hash.murmur3_32(b"\n".join(lines[9:12])), "08x")
    assert content_hash.Search().find("murmur3", wanted, 3, [("a.mjs", 5, lines)]) == ("a.mjs", 14, 16)
    assert content_hash.Search(budget=100).find("murmur3", wanted, 3, [("a.mjs", 5, lines)]) is None


def trace_line(**record):
    return json.dumps({"version": "1.0", "id": "x", "timestamp": "t", **record})


def test_a_records_contributors_their_overrides_and_what_is_not_understood():
    text = (
        trace_line(
            tool={"name": "claude-code"},
            files=[
                {
                    "path": "a.mjs",
                    "conversations": [
                        {
                            "contributor": {"type": "ai"},
                            "ranges": [
                                {"start_line": 9, "end_line": 3},
                                {"start_line": 4, "end_line": 4, "contributor": {"type": "human"}},
                                {"start_line": "x", "end_line": 2},
                                {"start_line": 5, "end_line": 5, "contributor": {"type": "robot"}},
                            ],
                        }
                    ],
                },
                {
                    "path": ".sessions",
                    "conversations": [{"contributor": {"type": "ai"}, "ranges": [{"start_line": 1, "end_line": 1}]}],
                },
            ],
        )
        + "\n{not json\n"
    )
    trace = agent_trace.read_trace(text)
    assert [(r.path, r.start, r.end, r.kind, r.tool, r.own) for r in trace.ranges] == [
        ("a.mjs", 3, 9, "ai", "Claude Code", False),
        ("a.mjs", 4, 4, "human", None, True),
        ("a.mjs", 5, 5, "unknown", None, True),
    ]
    messages = [n.message for n in trace.notices]
    assert any("contributor type 'robot'" in m for m in messages)
    assert any("2 line(s) or range(s) are not records" in m for m in messages)


def test_within_a_trace_the_higher_order_wins_and_unknown_claims_nothing():
    blame = {"a.mjs": [("c" * 40, n, "a.mjs", "") for n in range(1, 11)]}
    records = [
        LineRecord("a.mjs", None, [(1, 10)], "Cursor", "conversation", "Agent Trace", 2),
        LineRecord("a.mjs", None, [(3, 4)], None, "handoff", "Agent Trace", 3),
        LineRecord("a.mjs", None, [(6, 6)], None, "unknown", "Agent Trace", 3, claims=False),
    ]
    result = attribute([], {"c" * 40: "Ann"}, parse_note(""), {"a.mjs": 10}, blame, records, "c" * 40)
    assert [result.claim("a.mjs", n).tool for n in range(1, 11)] == [
        "Cursor",
        "Cursor",
        None,
        None,
        "Cursor",
        None,
        "Cursor",
        "Cursor",
        "Cursor",
        "Cursor",
    ]
    assert result.claim("a.mjs", 3).layer == 3 and result.claim("a.mjs", 6).layer == 0  # unknown: the commit's
    assert result.conflicts == []


def test_a_revision_is_read_as_its_own_lines_or_its_childs_whichever_holds_them():
    parent, child, later = "a" * 40, "b" * 40, "c" * 40
    history = {parent: (), child: (parent,), later: (child,)}
    blame = {
        "f.mjs": [(parent, 1, "f.mjs", ""), (child, 2, "f.mjs", ""), (child, 3, "f.mjs", ""), (later, 4, "f.mjs", "")]
    }
    for revision, holder in ((parent, child), (child, child), (later, later)):
        trace = agent_trace.read_trace(
            trace_line(
                vcs={"type": "git", "revision": revision[:10]},
                files=[
                    {
                        "path": "f.mjs",
                        "conversations": [
                            {"contributor": {"type": "ai"}, "ranges": [{"start_line": 2, "end_line": 4}]}
                        ],
                    }
                ],
            )
        )
        [record] = agent_trace.place(trace, history, blame)
        assert record.commit == holder


BLOCK = st.lists(st.text(alphabet="abcdefghij(){}; =", min_size=1, max_size=30), min_size=1, max_size=8)
NOISE = st.lists(st.text(alphabet="klmnopqrst", min_size=0, max_size=12), max_size=10)


@settings(max_examples=150, deadline=None)
@given(block=BLOCK, before=NOISE, after=NOISE, old_before=NOISE, same_path=st.booleans())
def test_a_noted_block_is_carried_wherever_its_text_survives(block, before, after, old_before, same_path):
    """Whatever surrounds it, a note's block of at least the threshold found among the added lines
    is carried to exactly those lines (and only to lines whose text the block holds)."""
    data = [line.encode() for line in block]
    old = [line.encode() for line in old_before] + data
    note = rewritten.RewrittenNote(
        "d" * 40,
        "git-ai note",
        [LineRecord("old.mjs", "d" * 40, [(len(old_before) + 1, len(old))], "Claude Code", "note")],
    )
    path = "old.mjs" if same_path else "new.mjs"
    head = before + block + after
    runs = added_runs({path: [(n, text) for n, text in enumerate(head, start=1)]})
    carried = rewritten.carry([note], {("d" * 40, "old.mjs"): old}, runs)
    lines = {line for _, record in carried for start, end in record.ranges for line in range(start, end + 1)}
    if sum(map(alnum, data)) >= (MOVE_MIN_ALNUM if same_path else COPY_MIN_ALNUM):
        assert set(range(len(before) + 1, len(before) + len(block) + 1)) <= lines
    assert all(head[line - 1].encode() in data for line in lines)
    kept = rewritten.settle([note], carried, {}, {})
    assert note.carried == len(lines) and sum(end - start + 1 for r in kept for start, end in r.ranges) == len(lines)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(
                    st.sampled_from(
                        [
                            "files",
                            "path",
                            "conversations",
                            "ranges",
                            "contributor",
                            "type",
                            "start_line",
                            "end_line",
                            "content_hash",
                            "vcs",
                            "revision",
                            "tool",
                            "name",
                            "model_id",
                        ]
                    ),
                    inner,
                    max_size=4,
                )
            ),
            max_leaves=25,
        ),
        max_size=5,
    )
)
def test_any_trace_of_any_shape_reads_and_places_without_failing(values):
    text = "\n".join(json.dumps(value) for value in values)
    trace = agent_trace.read_trace(text)
    runs = added_runs({"a.mjs": [(1, "x"), (2, "y")]})
    found = agent_trace.find_by_hash(trace, runs)
    records = agent_trace.place(trace, {"a" * 40: ()}, {"a.mjs": [("a" * 40, 1, "a.mjs", "")]}, found)
    assert all(r.family == agent_trace.FAMILY for r in records)
