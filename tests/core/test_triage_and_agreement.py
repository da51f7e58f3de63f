"""Triage marks, the key's scope read from gateway records, the filter, and agreement statistics."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from review.core import agreement, triage
from review.core.scenarios import SCENARIOS


def record(process: int, call: int, key: str | None) -> dict:
    return {"process": process, "call": call, "key": key}


def test_marks_follow_the_suite_order_and_say_what_did_not_run():
    verdicts = {"happy": "ok", "first-503": "double-charge", "restart": "ok"}
    assert triage.marks(verdicts) == "✓✗····✓·"
    assert triage.spelled_marks(verdicts).startswith("ok ✓ · 503 ✗ double-charge · lost ·")


def test_key_scope_tells_the_seeded_bug_from_the_restart_gap():
    draft = {"first-503": [record(1, 1, "a"), record(1, 1, "b")], "restart": [record(1, 1, "c"), record(2, 1, "d")]}
    per_call = {"first-503": [record(1, 1, "a"), record(1, 1, "a")], "restart": [record(1, 1, "c"), record(2, 1, "d")]}
    persisted = {
        "first-503": [record(1, 1, "a"), record(1, 1, "a")],
        "restart": [record(1, 1, "k"), record(2, 1, "k")],
        "two-orders": [record(1, 1, "x"), record(1, 2, "y")],
    }
    per_amount = dict(persisted, **{"two-orders": [record(1, 1, "x"), record(1, 2, "x")]})
    assert triage.key_scope(draft) == "per-attempt"
    assert triage.key_scope(per_call) == "per-call"
    assert triage.key_scope(persisted) == "persisted"
    assert triage.key_scope(per_amount) == "per-amount"
    assert triage.key_scope({"happy": [record(1, 1, None)], "first-503": [record(1, 1, None)]}) == "none"
    assert triage.key_scope({}) == "unknown"
    assert triage.key_scope({"happy": [record(1, 1, "a")]}) == "no retry seen"  # nothing retried, no restart


@given(
    st.dictionaries(
        st.sampled_from([scenario.name for scenario in SCENARIOS]),
        st.lists(
            st.fixed_dictionaries(
                {
                    "process": st.integers(1, 2),
                    "call": st.integers(1, 3) | st.none(),
                    "key": st.sampled_from(["a", "b", None]),
                }
            ),
            max_size=6,
        ),
    )
)
def test_key_scope_always_answers_one_of_its_words(records):
    assert triage.key_scope(records) in triage.KEY_SCOPES


def test_disclosure_states():
    assert triage.disclosure_state(["Claude Code"], 0, 0, False) == "ok"
    assert triage.disclosure_state(["Claude Code"], 0, 2, False) == "unmapped"
    assert triage.disclosure_state(["Cursor"], 1, 0, True) == "conflict"
    assert triage.disclosure_state([], 0, 0, True) == "no-ai"
    assert triage.disclosure_state([], 0, 0, False) == "none"


def test_filter_fields_and_plain_words():
    terms, problems = triage.parse_filter("state:draft  Tool:Claude ada colour:red")
    assert terms == [triage.Term("state", "draft"), triage.Term("tool", "claude"), triage.Term("name", "ada")]
    assert problems == ["colour:red"]
    fields = {"name": ["ada-okafor"], "state": ["draft"], "tool": ["Claude Code"]}
    assert triage.matches(terms, fields)
    assert not triage.matches([triage.Term("name", "unreadable")], {"name": ["ada"], "state": ["unreadable"]})


def test_share_filters_compare_percentages_and_the_share_text_never_says_0_alone():
    terms, problems = triage.parse_filter("unknown:>0 ai:<=50 person:12 unknown:lots")
    assert problems == ["unknown:lots"]
    row = {"unknown": triage.share_values(0.4), "ai": triage.share_values(0.5), "person": triage.share_values(0.12)}
    assert triage.matches(terms, row)
    assert not triage.matches(terms, {**row, "unknown": triage.share_values(0.0)})
    assert not triage.matches(terms, {**row, "unknown": []})  # no share read yet: not "more than 0"
    assert triage.shares_text(0.0, 0.0, 1.0) == "AI 0% · unknown 100%"
    assert triage.shares_text(0.88, 0.12, 0.0) == "AI 88% · person 12%"
    assert triage.shares_text(None, None, None) is None


def test_submission_agreement_counts_signals_scored_by_two():
    same, compared = agreement.submission_agreement(
        [{"a": "weak", "b": "strong", "c": "no-decision"}, {"a": "weak", "b": "acceptable", "c": "weak"}],
        ["a", "b", "c", "d"],
    )
    assert (same, compared) == (1, 2)


def test_weighted_kappa_by_hand():
    assert agreement.cohen_kappa([(0, 0), (1, 1), (2, 2), (0, 1)]) == 0.8
    assert agreement.cohen_kappa([(0, 0), (2, 2)]) == 1.0
    assert agreement.cohen_kappa([]) is None and agreement.cohen_kappa([(1, 1), (1, 1)]) is None
    assert agreement.cohen_kappa([(0, 2), (2, 0)]) < 0  # systematic disagreement


def test_krippendorff_alpha_agrees_with_kappa_in_sign_and_bounds():
    assert agreement.krippendorff_alpha([[0, 0], [1, 1], [2, 2]]) == 1.0
    assert agreement.krippendorff_alpha([[1, 1], [1, 1]]) is None  # no spread: undefined
    value = agreement.krippendorff_alpha([[0, 0], [1, 1], [2, 2], [0, 1]])
    assert value is not None and 0.5 < value < 1
    assert agreement.krippendorff_alpha([[0, 2], [2, 0]]) < 0
    assert agreement.krippendorff_alpha([[0, 1, 1], [2, 2], [0]]) is not None  # three raters, missing values


def test_cohort_agreement_and_leans():
    scored = [
        {"ana": {"key-scope": "weak"}, "bob": {"key-scope": "acceptable"}},
        {"ana": {"key-scope": "acceptable"}, "bob": {"key-scope": "strong"}},
        {"ana": {"key-scope": "strong"}, "bob": {"key-scope": "strong"}},
    ]
    [result] = agreement.cohort_agreement(scored, ["key-scope"])
    assert (result.items, result.same) == (3, 1) and result.kappa is not None and result.alpha is not None
    leans = agreement.leans(scored, ["key-scope"])
    assert leans["ana"] < 0 < leans["bob"]  # ana is the stricter one


@pytest.mark.parametrize(
    ("first", "words"),
    [
        ({"verdict": "ok", "requests": 2, "distinct_keys": 1}, "one key for all attempts"),
        ({"verdict": "double-charge", "requests": 2, "distinct_keys": 2}, "a new key per attempt"),
        ({"verdict": "no-request", "requests": 0, "distinct_keys": 0}, "no request reached the gateway (no-request)"),
        ({"verdict": "no-entry", "requests": 0, "distinct_keys": 0}, "no request reached the gateway (no-entry)"),
        ({"verdict": "wrong-endpoint", "requests": 4, "distinct_keys": 1}, "no request reached POST /charge"),
        ({"verdict": "no-retry", "requests": 1, "distinct_keys": 1}, "one request, no retry"),
        ({"verdict": "ok", "requests": 4, "distinct_keys": 2}, "2 keys over 4 attempts"),
    ],
)
def test_the_first_503_key_hint_reads_what_the_gateway_counted_not_the_verdict(first, words):
    from review.core import evidence

    hints = evidence.gather(evidence.Inputs("", [], {}, {"first-503": first}, [], None))
    said = [hint.text for hint in hints["key-scope"] if hint.text.startswith("first-503")]
    assert len(said) == 1 and words in said[0]


def test_the_next_to_score_comes_after_the_cursor_round_to_the_first_and_is_never_the_cursor():
    from review.core.triage import next_to_score

    assert next_to_score([True, False, True, False], 0) == 2
    assert next_to_score([True, False, False, False], 2) == 0
    # Only the row at the cursor is left: none (save-and-next must not reopen it).
    assert next_to_score([False, True, False], 1) is None
    assert next_to_score([], 0) is None


def test_the_similar_filter_takes_a_share_or_the_other_submissions_name():
    terms, problems = triage.parse_filter("similar:>50 similar:hal-kim")
    assert problems == []
    row = {"similar": ["67", "hal-kim"]}
    assert triage.matches(terms, row)
    assert not triage.matches(terms, {"similar": ["40", "hal-kim"]})
    assert not triage.matches(terms, {"similar": ["67", "gia-roman"]})
