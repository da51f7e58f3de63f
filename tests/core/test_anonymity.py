"""Candidate-blind review: the mask over every name, e-mail and folder name of a candidate."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from review.core import anonymity, text


def masker() -> anonymity.Masker:
    m = anonymity.Masker()
    m.add(
        "candidate-1",
        anonymity.identity_parts(
            "ada-okafor", [("Ada Okafor", "ada.okafor@example.org"), ("Claude Opus 4.5", "noreply@anthropic.com")]
        ),
    )
    m.add("candidate-2", anonymity.identity_parts("dev-patel", [("Dev Patel", "dev@patel.io")]))
    return m


def test_names_emails_and_folder_names_become_the_alias_and_assistants_stay():
    m = masker()
    assert m.mask("Ada Okafor wrote this with Claude Code") == "candidate-1 wrote this with Claude Code"
    assert (
        m.mask("ada.okafor@example.org, or OKAFOR, or ada@gmail.com")
        == "candidate-1, or candidate-1, or candidate-1@gmail.com"
    )
    assert m.mask("cohort/ada-okafor/checkout.mjs") == "cohort/candidate-1/checkout.mjs"
    assert (
        m.mask("Co-Authored-By: Claude Opus 4.5 <noreply@anthropic.com>")
        == "Co-Authored-By: Claude Opus 4.5 <noreply@anthropic.com>"
    )
    assert m.mask("Patel ran npm run dev") == "candidate-2 ran npm run dev"  # "dev" is a word here, not a name
    assert m.mask("Adams and Adaline") == "Adams and Adaline"  # whole words only


def test_the_sanitiser_masks_everything_it_shows_while_a_session_is_blind():
    m = masker()
    text.set_mask(m.mask)
    try:
        assert text.safe_line("Ada Okafor\u202e") == "candidate-1<U+202E>"
        assert text.masking()
    finally:
        text.set_mask(None)
    assert text.safe_line("Ada Okafor") == "Ada Okafor" and not text.masking()


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=2000), st.lists(st.text(min_size=1, max_size=30), max_size=20))
def test_any_identities_and_any_text_mask_without_error(body, names):
    m = anonymity.Masker()
    m.add("candidate-1", anonymity.identity_parts("x", [(name, f"{name}@x.org") for name in names]))
    m.mask(body)
