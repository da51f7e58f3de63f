"""`review show SUBMISSION`: the submission screen's evidence, headless, from the same document the
screen's rubric form shows (services.evidence_document.build)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import BEN_HEAD, make_repo, open_submission, seed_ben_suite
from review.cli import main
from review.tui.app import ReviewApp

SAMPLES = Path(__file__).resolve().parents[2] / "sample_submissions"


def show_json(capsys, *args: str) -> dict:
    assert main(["show", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def section(document: dict, section_id: str) -> dict:
    return next(s for s in document["sections"] if s["id"] == section_id)


def test_show_prints_every_hint_with_where_it_points_and_the_cached_suite(sample_cohort, capsys):
    seed_ben_suite()
    document = show_json(capsys, str(sample_cohort / "ben-larsen"))
    assert document["format"] == 1
    summary = document["summary"]
    assert summary["name"] == "ben-larsen" and summary["commit"] == summary["head"] == BEN_HEAD
    assert summary["key_scope"] == "per-call" and summary["runs"]["restart"] == "double-charge"
    assert [s["id"] for s in document["sections"]] == [
        "found-defect",
        "key-scope",
        "evidence",
        "explanation",
        "blast-radius",
        "fixed-symptom",
        "deleted-model-work",
        "undisclosed-ai",
    ]
    key_scope = section(document, "key-scope")["hints"]
    assert key_scope[0]["text"].startswith(
        "the key is made at checkout.mjs:3: const idempotencyKey = crypto.randomUUID"
    )
    assert key_scope[0]["where"] == {"label": "checkout.mjs:3", "kind": "file", "path": "checkout.mjs", "line": 3}
    assert any(
        h["where"] == {"label": "harness: restart", "kind": "scenario", "scenario": "restart"} for h in key_scope
    )
    named = section(document, "explanation")["hints"][0]
    assert named["where"]["kind"] == "note" and named["where"]["lines"] == [5]
    assert named["quotes"] == [{"line": 5, "words": ["idempotency"], "text": named["quotes"][0]["text"]}]
    draft = section(document, "deleted-model-work")["hints"][0]
    assert draft["where"]["kind"] == "commit" and len(draft["where"]["commit"]) == 40
    assert document["suite"]["cached"] and len(document["suite"]["scenarios"]) == 8
    assert {"kind": "request", "path": "checkout.mjs", "line": 5} in [
        {k: site[k] for k in ("kind", "path", "line")} for site in document["code"]["sites"]
    ]
    # The same, as text: every line within 80 columns, the suite's verdicts and the hints' sources.
    assert main(["show", str(sample_cohort / "ben-larsen")]) == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "restart: double-charge" in text and "→ checkout.mjs:3" in text and "→ note line 5" in text


def test_show_says_when_no_suite_is_cached_and_never_runs_one(sample_cohort, capsys):
    document = show_json(capsys, str(sample_cohort / "hal-kim"))
    assert document["suite"]["cached"] is False and document["suite"]["scenarios"] == []
    assert document["suite"]["said"].startswith("no suite is cached for ")
    assert document["summary"]["key_scope"] is None
    assert section(document, "key-scope")["hints"][-1]["text"] == "the harness has not run on this commit (r runs it)"


def test_show_at_an_earlier_commit_reads_that_commit(sample_cohort, capsys):
    # HEAD~1 is the hoisted key before the note; HEAD~2 is the model draft, key made in the body.
    draft = show_json(capsys, str(sample_cohort / "ben-larsen"), "--commit", "HEAD~2")
    assert draft["summary"]["commit"] != draft["summary"]["head"] == BEN_HEAD
    assert section(draft, "key-scope")["hints"][0]["text"].startswith(
        "the key is made and sent on one line at checkout.mjs:9"
    )
    assert section(draft, "evidence")["hints"][0]["text"].startswith("no raw stub output")  # no note yet


def test_show_refuses_what_it_cannot_read_with_exit_2(sample_cohort, tmp_path, capsys):
    assert main(["show", str(tmp_path / "absent")]) == 2
    assert "no such folder" in capsys.readouterr().err
    (tmp_path / "plain").mkdir()
    assert main(["show", str(tmp_path / "plain")]) == 2
    assert capsys.readouterr().err.startswith("review: ")
    assert main(["show", str(sample_cohort / "ben-larsen"), "--commit", "no-such-branch"]) == 2
    assert "no such revision: no-such-branch" in capsys.readouterr().err


def test_a_huge_or_binary_client_file_is_said_not_parsed(tmp_path, capsys):
    from review.services import analysis

    repo = make_repo(
        tmp_path / "sub",
        {
            "README.md": "# Task\n",
            "checkout.mjs": "export async function chargeWithRetry() {}\n",
            "vendor.js": "// idempotency\n" + "x = 1;\n" * (analysis.MAX_CODE_BYTES // 7 + 10),
            "blob.js": "\0\1idempotency",
        },
    )
    document = show_json(capsys, str(repo))
    assert document["code"]["problems"] == [
        "blob.js: binary, not JavaScript; not read for where the key is made",
        f"vendor.js: over {analysis.MAX_CODE_BYTES >> 20} MB; not read for where the key is made",
    ]


def test_no_sample_note_hint_cites_a_line_without_its_words(sample_cohort, capsys):
    for folder in sorted(p for p in sample_cohort.iterdir() if p.is_dir()):
        (note_file,) = SAMPLES.glob(f"{folder.name}/*-note/tree/NOTE.md")
        lines = note_file.read_text().splitlines()
        document = show_json(capsys, str(folder))
        for hint in (h for s in document["sections"] for h in s["hints"] if h["quotes"]):
            assert hint["where"]["lines"] == [q["line"] for q in hint["quotes"]]
            for quote in hint["quotes"]:
                line = lines[quote["line"] - 1]
                assert quote["text"] in line and all(word in line for word in quote["words"]), (folder.name, quote)


async def test_the_screen_shows_the_hints_review_show_prints(sample_cohort, capsys):
    seed_ben_suite()
    printed = show_json(capsys, str(sample_cohort / "ben-larsen"))
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 50)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        shown = {row.signal.id: [h.text for h in row.hints] for row in screen.form.rows()}
        for signal in ("found-defect", "key-scope", "evidence", "explanation", "blast-radius"):
            assert shown[signal] == [h["text"] for h in section(printed, signal)["hints"]]
        observed = str(screen.form.rows()[1].observed.render())
        assert "the key is made at checkout.mjs:3" in observed


def test_show_gives_the_three_states_and_the_lines_from_the_base(tmp_path, capsys):
    """A submission that discloses nothing reads 'AI 0% · unknown 100%', never a bare 0%; a block copied
    from the starter is counted apart, not in the share."""
    from helpers import commit_as

    helper = (
        "export function backoffDelay(attempt, baseMilliseconds = 100) {\n"
        "  const exponential = baseMilliseconds * 2 ** attempt;\n"
        "  const jitter = Math.floor(Math.random() * baseMilliseconds);\n"
        "  return Math.min(exponential + jitter, 5000);\n"
        "}\n"
    )
    repo = make_repo(tmp_path / "s", {"README.md": "# Task\n", "checkout.mjs": "// starter\n" + helper}, "starter")
    commit_as(repo, "Copy the helper\n", {"copy.mjs": "// my copy\n" + helper})
    summary = show_json(capsys, str(repo))["summary"]
    assert (summary["ai_share"], summary["person_share"], summary["unknown_share"]) == (0.0, 0.0, 1.0)
    assert summary["base_lines"] == 5
    assert main(["show", str(repo)]) == 0
    text = capsys.readouterr().out
    assert "AI 0% · unknown 100% · 5 lines from the base, not counted" in text
