"""The three-way merge of one reviewer's entry, without files: what only one side changed is taken,
a field both changed is a conflict that keeps this console's value."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from review.services import score_merge
from review.services.score_merge import Conflict, merge, same


def form(tiers=None, comments=None, flags=(), comment="", anchored=(), state="draft") -> dict:
    return {
        "tiers": dict(tiers or {}),
        "comments": dict(comments or {}),
        "flags": list(flags),
        "comment": comment,
        "anchored": [{"at": at, "text": text} for at, text in anchored],
        "state": state,
    }


def test_fields_only_one_side_changed_are_merged():
    base = form({"found-defect": "weak"})
    mine = form({"found-defect": "weak", "explanation": "strong"}, flags=["fixed-symptom"])
    theirs = form(
        {"found-defect": "weak", "evidence": "strong"}, comments={"evidence": "ran it twice"}, comment="overall"
    )
    merged = merge(base, mine, theirs)
    assert merged.conflicts == ()
    assert merged.values["tiers"] == {"found-defect": "weak", "explanation": "strong", "evidence": "strong"}
    assert merged.values["comments"] == {"evidence": "ran it twice"} and merged.values["comment"] == "overall"
    assert merged.values["flags"] == ["fixed-symptom"]
    assert set(merged.taken) == {("tier", "evidence"), ("comment", "evidence"), ("overall", "")}


def test_a_field_both_changed_differently_is_a_conflict_and_keeps_mine():
    base = form({"explanation": "weak"})
    merged = merge(base, form({"explanation": "strong"}), form({"explanation": "acceptable"}))
    assert merged.conflicts == (Conflict(("tier", "explanation"), "strong", "acceptable"),)
    assert merged.values["tiers"] == {"explanation": "strong"}
    # Both changed it to the same value: no conflict.
    assert merge(base, form({"explanation": "strong"}), form({"explanation": "strong"})).conflicts == ()
    # One cleared it, the other changed it: a conflict too ("" is "no value").
    cleared = merge(base, form(), form({"explanation": "strong"}))
    assert cleared.conflicts == (Conflict(("tier", "explanation"), "", "strong"),)


def test_a_field_still_undecided_stays_a_conflict_while_the_sides_differ():
    # After an autosave during a conflict, the base holds theirs for it: it is still undecided.
    base = form({"explanation": "weak"})
    merged = merge(
        base, form({"explanation": "strong"}), form({"explanation": "weak"}), pending=[("tier", "explanation")]
    )
    assert [c.field for c in merged.conflicts] == [("tier", "explanation")]
    assert (
        merge(
            base, form({"explanation": "weak"}), form({"explanation": "weak"}), pending=[("tier", "explanation")]
        ).conflicts
        == ()
    )


def test_with_theirs_puts_the_other_consoles_value_in_each_conflicting_field():
    values = form({"explanation": "strong", "evidence": "weak"}, flags=["fixed-symptom"])
    chosen = score_merge.with_theirs(
        values, [Conflict(("tier", "explanation"), "strong", ""), Conflict(("flag", "fixed-symptom"), "on", "")]
    )
    assert chosen["tiers"] == {"evidence": "weak"} and chosen["flags"] == []


def test_line_comments_merge_as_a_list_and_never_conflict():
    base = form(anchored=[("a.mjs:1", "one")])
    mine = form(anchored=[("a.mjs:1", "one"), ("b.mjs:2", "mine")])
    theirs = form(anchored=[("c.mjs:3", "theirs")])
    merged = merge(base, mine, theirs)
    assert merged.conflicts == ()
    assert merged.values["anchored"] == [{"at": "c.mjs:3", "text": "theirs"}, {"at": "b.mjs:2", "text": "mine"}]


TIER = st.sampled_from(["", "weak", "acceptable", "strong", "no-decision"])
FORMS = st.builds(
    lambda tiers, flags, comment, state: form(
        {k: v for k, v in tiers.items() if v}, flags=sorted(flags), comment=comment, state=state
    ),
    st.dictionaries(st.sampled_from(["found-defect", "key-scope", "evidence"]), TIER),
    st.sets(st.sampled_from(["fixed-symptom", "undisclosed-ai"])),
    st.sampled_from(["", "x", "y"]),
    st.sampled_from(["draft", "final"]),
)


@given(FORMS, FORMS)
def test_a_side_that_changed_nothing_gives_the_other_sides_values(base, changed):
    for merged in (merge(base, base, changed), merge(base, changed, base)):
        assert merged.conflicts == () and same(merged.values, changed)


@given(FORMS, FORMS, FORMS)
def test_every_field_is_mine_theirs_or_a_conflict_named(base, mine, theirs):
    merged = merge(base, mine, theirs)
    got, ours, other = (score_merge.fields(v) for v in (merged.values, mine, theirs))
    named = {c.field for c in merged.conflicts}
    for field in got.keys() | ours.keys() | other.keys():
        value = got.get(field, "")
        assert value in (ours.get(field, ""), other.get(field, ""))
        if field in named:
            assert value == ours.get(field, "") != other.get(field, "")
