"""`review lint-prompt`: the task text, checked against the article's advice before it goes out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from review.cli import main
from review.core import prompt_lint

STARTER = Path(__file__).resolve().parents[2] / "sample_submissions" / "_starter" / "tree" / "README.md"


def kinds(text: str) -> set[tuple[str, str]]:
    return {(w.kind, w.name) for w in prompt_lint.lint(text)}


def test_the_articles_own_prompt_is_clean():
    assert prompt_lint.lint(STARTER.read_text()) == []


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("Send an Idempotency-Key header with every charge.", "idempotency"),
        ("Make the client idempotent.", "idempotency"),
        ("Use the same key for every retry of an order.", "reuse the key"),
        ("Persist the key before the first request.", "reuse the key"),
        ("The draft generates a new UUID for each attempt.", "key per attempt"),
        ("Note that fresh keys per retry are the bug.", "key per attempt"),
    ],
)
def test_naming_the_mechanism_is_a_leak_with_its_line(line, name):
    text = STARTER.read_text() + "\n" + line + "\n"
    found = [w for w in prompt_lint.lint(text) if w.kind == "leak"]
    assert [(w.name, w.line) for w in found] == [(name, line)]
    assert found[0].line_no == len(text.splitlines())
    assert "vocabulary quiz" in found[0].why or "Key scope" in found[0].why or "defect" in found[0].why


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("The stub's first request always returns 503.", "first attempt fails"),
        ("The first attempt will fail.", "first attempt fails"),
        ("The stub records every key it sees and prints distinctKeys.", "keys recorded"),
        ("A second request with the same header gets Idempotent-Replayed: true.", "replay semantics"),
    ],
)
def test_describing_the_gateway_exactly_is_a_giveaway(line, name):
    assert ("giveaway", name) in kinds(STARTER.read_text() + "\n" + line + "\n")


def test_what_the_rubric_grades_but_the_text_does_not_ask_for_is_named():
    bare = "TASK: Implement chargeWithRetry(amount) in checkout.mjs.\n"
    missing = {w.name for w in prompt_lint.lint(bare) if w.kind == "omits"}
    assert missing == {
        "the note",
        "what was verified and what could not be",
        "the disclosure of assistant use",
        "which parts of the diff it wrote",
        "the requirement: never two charges",
        "the restart",
        "retries",
    }
    text = STARTER.read_text().replace("- Assume the process can be restarted between attempts.\n", "")
    assert {w.name for w in prompt_lint.lint(text)} == {"the restart"}


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=3000))
def test_any_text_is_linted_without_error(text):
    for warning in prompt_lint.lint(text):
        assert len(warning.line) <= prompt_lint.LINE_CAP


def test_the_command_exits_0_clean_1_with_warnings_2_unreadable(tmp_path, capsys):
    assert main(["lint-prompt", str(STARTER)]) == 0
    assert "no warnings" in capsys.readouterr().out
    leaky = tmp_path / "task.md"
    leaky.write_text("Implement it with an idempotency key.\n")
    assert main(["lint-prompt", str(leaky)]) == 1
    out = capsys.readouterr().out
    assert f"{leaky}:1: leak (idempotency): Implement it with an idempotency key." in out
    assert "omits the note" in out and "why:" in out
    assert main(["lint-prompt", str(leaky), "--json"]) == 1
    assert '"kind": "leak"' in capsys.readouterr().out
    (tmp_path / "latin1.md").write_bytes(b"caf\xe9\n")
    assert main(["lint-prompt", str(tmp_path / "latin1.md")]) == 2
    os.mkfifo(tmp_path / "fifo")
    assert main(["lint-prompt", str(tmp_path / "fifo")]) == 2  # never blocks on a pipe
    assert main(["lint-prompt", str(tmp_path / "missing.md")]) == 2
    assert "cannot be read" in capsys.readouterr().err
