"""Note hints read whole words and quote them: never a word inside another ("hang" in "change"), and
never a line cited that lacks the words quoted from it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from review.core import evidence, note_words

SAMPLES = Path(__file__).resolve().parents[2] / "sample_submissions"

# Every note hint on the bundled cohort's notes, written out: (signal, what it says, lines, words matched).
EXPECTED = {
    "ada-okafor": [("evidence", "the note says it passes", [4], ["passes"])],
    "ben-larsen": [
        ("explanation", "names idempotency", [5], ["idempotency"]),
        ("explanation", "mentions the restart / in-memory key gap", [13, 14], ["process dies", "in memory"]),
        # Line 8 says "after the change": no timeouts hint.
    ],
    "chen-wei": [
        ("found-defect", "the note says a test failed", [5, 7], ["went red", "not ok"]),
        ("explanation", "names idempotency", [7, 30], ["idempotency", "idempotency"]),
        (
            "explanation",
            "mentions the restart / in-memory key gap",
            [20, 22, 23],
            ["restart", "restarted", "in memory", "restart"],
        ),
        ("blast-radius", "mentions timeouts", [28], ["Timeouts", "abort", "timed out"]),
        ("blast-radius", "mentions partial writes", [24, 31, 32], ["rename", "Partial", "rename", "disk"]),
        ("blast-radius", "mentions key expiry", [30], ["windows", "expire", "24 h"]),
        ("blast-radius", "mentions order identity", [33, 34], ["order id", "order id"]),
    ],
    "dev-patel": [
        # "network failures" and "never crashes" are neither a failed test nor a partial write.
        ("blast-radius", "mentions duplicates", [4], ["double charges"]),
    ],
    "eve-santos": [],
    "finn-mueller": [
        ("explanation", "mentions the restart / in-memory key gap", [8], ["Restarts"]),
        ("blast-radius", "mentions duplicates", [5], ["deduplicated"]),
    ],
    "gia-romano": [
        ("explanation", "mentions the restart / in-memory key gap", [5, 9], ["Killed", "restart"]),
        ("blast-radius", "mentions timeouts", [10], ["Timeouts", "hangs", "aborted"]),
    ],
    "hal-kim": [
        ("explanation", "names idempotency", [5], ["idempotency", "Idempotency"]),
        ("explanation", "mentions the restart / in-memory key gap", [9], ["Restarts", "in memory"]),
        # Lines 4 and 13 say "change": only line 8 speaks of timeouts.
        ("blast-radius", "mentions timeouts", [8], ["never answers", "timeout", "hang"]),
    ],
}


def note_hints(note: str) -> list[tuple[str, str, list[int], list[str]]]:
    hints = evidence.gather(evidence.Inputs(note, [], {}, None, [], None))
    return [
        (signal, hint.text.split(":")[0], [q.line for q in hint.quotes], [w for q in hint.quotes for w in q.words])
        for signal, found in hints.items()
        for hint in found
        if hint.quotes
    ]


@pytest.mark.parametrize("candidate", sorted(EXPECTED))
def test_the_sample_notes_hints_written_out(candidate):
    (note_file,) = SAMPLES.glob(f"{candidate}/*/tree/NOTE.md")
    assert note_hints(note_file.read_text()) == EXPECTED[candidate]


def test_a_hint_quotes_the_words_it_matched_with_their_line():
    note = "# Note\n\n- If the request times out, the retry reuses the key.\n"
    (hint,) = [h for h in evidence.gather(evidence.Inputs(note, [], {}, None, [], None))["blast-radius"]]
    assert hint.text == "mentions timeouts: “If the request times out, the retry reuses the”"
    assert hint.where == "note line 3"


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("It hangs forever.", ["hangs"]),
        ("a time-out; a time out; a TIMEOUT; two timeouts", ["time-out", "time out", "TIMEOUT", "timeouts"]),
        ("the call timed out, or timed-out, or times out", ["timed out", "timed-out", "times out"]),
        ("**Timeouts** and _hung_ calls", ["Timeouts", "hung"]),
        ("`AbortSignal.timeout(5000)` aborts it", ["timeout", "aborts"]),
        ("after the change, it changed; exchange; Shanghai; abortive", []),
        ("stall: it stalled", ["stall", "stalled"]),
    ],
)
def test_timeouts_as_candidates_write_them(line, words):
    assert [w for q in note_words.find(line, "timeouts") for w in q.words] == words


@pytest.mark.parametrize(
    ("topic", "line", "words"),
    [
        (
            "duplicates",
            "no double-charge, no double charging, de-duplicated, dedupe",
            ["double-charge", "double charging", "de-duplicated", "dedupe"],
        ),
        (
            "restart",
            "if the server crashes or the process exits or restarts",
            ["server crashes", "process exits", "restarts"],
        ),
        ("restart", "in-memory only; the orchestrator", ["in-memory"]),
        ("test-failed", "hundreds covered; the test went red first, then failing", ["went red", "failing"]),
        ("order-identity", "an order_id or orderId or order IDs", ["order_id", "orderId", "order IDs"]),
        ("key-expiry", "keys expire after a TTL; bottles", ["expire", "TTL"]),
    ],
)
def test_other_topics_as_candidates_write_them(topic, line, words):
    assert [w for q in note_words.find(line, topic) for w in q.words] == words


PIECES = st.sampled_from(
    [
        "timeout",
        "time-out",
        "Timed out",
        "hang",
        "change",
        "hangs",
        "**restart**",
        "in memory",
        "idempotency",
        "order id",
        "went red",
        "fails",
        "twice",
        "disk",
        "expire",
        "`x`",
        "_",
        "-",
        " ",
        "\n",
        "ab",
        "é",
    ]
)


@settings(deadline=None, max_examples=300)
@given(st.lists(PIECES, max_size=40).map("".join))
def test_no_hint_cites_a_line_that_lacks_its_quoted_words(note):
    lines = note.splitlines()
    for hints in evidence.gather(evidence.Inputs(note, [], {}, None, [], None)).values():
        for hint in hints:
            if not hint.quotes:
                continue
            assert isinstance(hint.source, evidence.NoteLines)
            assert list(hint.source.lines) == [q.line for q in hint.quotes]
            for quote in hint.quotes:
                line = lines[quote.line - 1]
                assert quote.text in line
                assert all(word in line for word in quote.words)
                assert quote.words[0] in quote.text
