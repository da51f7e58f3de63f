"""The rubric as data, evidence hints, and export with known data."""

import csv
import io
import json

import pytest

from review.cli import main
from review.core import evidence, rubric, triage
from review.services import export, store


def test_article_rubric_and_cohort_override():
    assert [s.name for s in rubric.ARTICLE.signals] == [
        "Found the defect",
        "Key scope",
        "Evidence",
        "Explanation",
        "Blast radius",
    ]
    assert rubric.ARTICLE.signal("key-scope").strong == "Per call, persisted before the request"
    custom = rubric.from_settings(
        {
            "rubric": {
                "version": "v2",
                "signals": [{"id": "a", "name": "A", "weak": "w", "acceptable": "ok", "strong": "s"}],
            }
        }
    )
    assert custom.version == "v2" and custom.flags == rubric.ARTICLE.flags
    with pytest.raises(rubric.RubricError, match="version"):
        rubric.from_settings({"rubric": {"signals": []}})
    with pytest.raises(rubric.RubricError, match="lacks strong"):
        rubric.from_settings(
            {"rubric": {"version": "x", "signals": [{"id": "a", "name": "A", "weak": "w", "acceptable": "o"}]}}
        )


def test_evidence_hints_cite_where_and_never_choose():
    note = (
        'Before: {"charges":2,"distinctKeys":2}\nAfter: {"charges":2,"distinctKeys":1}\n'
        "The key dies with the process on restart.\nIdempotency keys.\nTimeouts may still charge.\n"
    )
    hints = evidence.gather(
        evidence.Inputs(
            note,
            [("a" * 40, "draft"), ("b" * 40, "test"), ("c" * 40, "fix")],
            {"a" * 40: ["checkout.mjs"], "b" * 40: ["test/x.test.mjs"], "c" * 40: ["checkout.mjs"]},
            {
                "first-503": {"verdict": "ok", "requests": 2, "distinct_keys": 1},
                "restart": {"verdict": "double-charge", "requests": 2, "distinct_keys": 2},
            },
            [],
            ("a" * 40, 16, 2),
        )
    )
    # The runs in the note's own order, each with its line (the "before" one is not sorted after).
    assert any(
        h.text
        == 'the note quotes 2 different runs, in its order: {"charges":2,"distinctKeys":2}, '
        'then {"charges":2,"distinctKeys":1}'
        and h.where == "note lines 1, 2"
        for h in hints["evidence"]
    )
    assert any("restart" in h.text for h in hints["explanation"])
    assert any(h.text.startswith("a test was committed (bbbbbbb)") for h in hints["found-defect"])
    assert any("did not survive the restart" in h.text for h in hints["key-scope"])
    assert any("2 of the model draft's 16 lines" in h.text for h in hints["deleted-model-work"])
    assert any("timeouts" in h.text for h in hints["blast-radius"])
    assert all(isinstance(h, evidence.Hint) for hs in hints.values() for h in hs)


def scored(path, who, tiers, state="final", commit="0" * 40):
    return store.save(path, store.Review([who], commit, state=state, rubric_version="article-v1", tiers=tiers))


def test_export_counts_and_agreement(sample_cohort, capsys):
    ada = sample_cohort / "ada-okafor"
    same = {s.id: "weak" for s in rubric.ARTICLE.signals}
    scored(ada, "ana", same)
    scored(ada, "bob", {**same, "evidence": "acceptable"})
    scored(sample_cohort / "ben-larsen", "ana", same, state="draft")
    assert main(["export", str(sample_cohort), "--format", "csv"]) == 0
    every = list(csv.DictReader(io.StringIO(capsys.readouterr().out.partition("\r\n\r\n")[0])))
    # Every submission no one scored is listed too, with its state: an export leaves none out.
    unscored = [r for r in every if r["state"] == export.NOT_SCORED]
    assert sorted(r["submission"] for r in unscored) == sorted(
        p.name for p in sample_cohort.iterdir() if p.is_dir() and p.name not in ("ada-okafor", "ben-larsen")
    )
    assert all(r["reviewers"] == "" and len(r["commit"]) == 40 and r["stale"] == "no" for r in unscored)
    rows = [r for r in every if r["state"] != export.NOT_SCORED]
    assert len(rows) == 3
    ada_rows = [r for r in rows if r["submission"] == "ada-okafor"]
    assert {r["agreement"] for r in ada_rows} == {"0.80"}  # 4 of 5 signals agree
    assert all(r["stale"] == "yes" for r in rows)  # scored at a commit that is not HEAD
    assert [r["agreement"] for r in rows if r["submission"] == "ben-larsen"] == [""]
    assert main(["export", str(sample_cohort), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["signals"][0] == "found-defect" and len(document["rows"]) == 3 + len(unscored)
    assert main(["export", str(sample_cohort), "--format", "md"]) == 0
    markdown = capsys.readouterr().out
    # header, rule, three reviews, one row per submission not scored
    assert markdown.split("\n## Agreement")[0].count("\n") == 5 + len(unscored)
    assert markdown.count("| new |") == len(unscored)


def test_export_of_a_pair_carries_both_comments_runs_and_agreement(sample_cohort, capsys):
    from helpers import BEN_HEAD, seed_ben_suite

    seed_ben_suite()  # a real suite of ben-larsen's HEAD, cached: its verdicts travel with the review
    ben = sample_cohort / "ben-larsen"
    ana = {
        "found-defect": "weak",
        "key-scope": "acceptable",
        "evidence": "weak",
        "explanation": "acceptable",
        "blast-radius": "weak",
    }
    bob = {**ana, "key-scope": "strong", "explanation": "strong"}
    store.save(
        ben,
        store.Review(
            ["ana"], BEN_HEAD, state="final", tiers=ana, comments={"key-scope": "key per call; =SUM(A1) not persisted"}
        ),
    )
    store.save(
        ben, store.Review(["bob"], BEN_HEAD, state="final", tiers=bob, comments={"key-scope": "hoisted, good enough"})
    )
    assert main(["export", str(sample_cohort), "--format", "csv"]) == 0
    text = capsys.readouterr().out
    reviews, _, totals = text.partition("\r\n\r\n")
    rows = {r["reviewers"]: r for r in csv.DictReader(io.StringIO(reviews))}
    assert rows["ana"]["comment:key-scope"] == "key per call; =SUM(A1) not persisted"
    assert rows["bob"]["comment:key-scope"] == "hoisted, good enough"
    assert rows["ana"]["stale"] == "no" and rows["ana"]["agreement"] == "0.60"
    assert rows["ana"]["key_scope"] == "per-call" and rows["ana"]["scenario:restart"] == "double-charge"
    assert rows["ana"]["scenario:happy"] == "ok" and rows["ana"]["disclosure"] in triage.DISCLOSURES
    # The three states of the lines Ben wrote in the range: Copilot's draft, his own fix, none unknown.
    shares = [rows["ana"][f] for f in ("ai_share", "person_share", "unknown_share", "base_lines")]
    assert shares == ["0.88", "0.12", "0.00", "0"]
    signals = {r["signal"]: r for r in csv.DictReader(io.StringIO(totals))}
    assert signals["found-defect"]["same tier"] == "1" and signals["key-scope"]["same tier"] == "0"
    assert signals["lean of ana"]["alpha (ordinal)"] == "-0.40"  # two of five signals one tier lower
    assert main(["export", str(sample_cohort), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    by_signal = {a["signal"]: a for a in document["agreement"]}
    assert by_signal["key-scope"]["items"] == 1 and document["leans"] == {"ana": -0.4, "bob": 0.4}
    assert {r["comments"].get("key-scope") for r in document["rows"]} >= {"hoisted, good enough"}
    assert {r["unknown_share"] for r in document["rows"] if r["submission"] == "ben-larsen"} == {0.0}
    # A submission no one scored carries what the harness saw at its HEAD too.
    store.read_scores(ben).path.unlink()
    assert main(["export", str(sample_cohort), "--format", "csv"]) == 0
    unscored = {
        r["submission"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out.partition("\r\n\r\n")[0]))
    }
    assert unscored["ben-larsen"]["state"] == "new" and unscored["ben-larsen"]["key_scope"] == "per-call"
    assert unscored["ben-larsen"]["scenario:restart"] == "double-charge"


def test_agreement_needs_two_finals():
    review = store.Review(["a"], "c", state="final", tiers={"x": "weak"})
    assert export.agreement([review], ["x"]) is None
    assert export.agreement([review, store.Review(["b"], "c", state="final", tiers={"x": "weak"})], ["x"]) == 1.0


def test_two_runs_quoted_on_one_note_line_are_both_counted():
    note = '- Stub before: `{"charges":2,"distinctKeys":2}`; after: `{"charges":2,"distinctKeys":1}`.\n'
    hints = evidence.gather(evidence.Inputs(note, [], {}, None, [], None))
    assert hints["evidence"][0].text == (
        'the note quotes 2 different runs, in its order: {"charges":2,"distinctKeys":2}, '
        'then {"charges":2,"distinctKeys":1}'
    )


def test_the_key_is_sent_where_a_request_carries_it_not_where_it_is_first_named():
    from review.core import code_reading, evidence

    def key_scope(source: str) -> list[str]:
        reading = code_reading.read_file("checkout.mjs", source.encode())
        return [h.text for h in evidence.gather(evidence.Inputs("", [], {}, None, [], None, code=reading))["key-scope"]]

    chen = (
        "function pendingKey(amount) {\n"
        "  const pending = readPending();\n"
        "  if (pending.amount === amount) return pending.idempotencyKey;\n"
        "  const key = crypto.randomUUID();\n"
        "  return key;\n"
        "}\n"
        "export async function chargeWithRetry(amount) {\n"
        "  const idempotencyKey = pendingKey(amount);\n"
        "  const res = await fetch(`${BASE}/charges`, {\n"
        "    body: JSON.stringify({ amount, idempotencyKey }),\n"
        "  });\n"
        "}\n"
    )
    assert key_scope(chen)[:3] == [
        "the key is made at checkout.mjs:4: const key = crypto.randomUUID();",
        "the key is taken from a value read at checkout.mjs:3: if (pending.amount === amount) return "
        "pending.idempotencyKey;",
        "the key is sent at checkout.mjs:10: body: JSON.stringify({ amount, idempotencyKey }),",
    ]
    # Named only, no request sending it: said as that, not as sent.
    alone = "const saved = { idempotencyKey: crypto.randomUUID() };\nwriteFileSync(PATH, JSON.stringify(saved));\n"
    assert key_scope(alone)[0].startswith("the key is named at checkout.mjs:1 (no request sends it there)")
    # Made inside the request itself (the model draft's defect): said as one line.
    draft = (
        'const res = await fetch("http://localhost:8099/charge", {\n'
        "  body: JSON.stringify({\n"
        "    idempotencyKey: crypto.randomUUID(), // fresh key per attempt\n"
        "  }),\n"
        "});\n"
    )
    assert key_scope(draft)[0].startswith("the key is made and sent on one line at checkout.mjs:3")
    assert key_scope("export const charge = (amount) => fetch(URL, { body: String(amount) });\n")[:1] == [
        "no line of the code names an idempotency key (header or body field)"
    ]


def test_hints_carry_typed_sources_the_console_navigates_by():
    from review.core import evidence

    inputs = evidence.Inputs(
        "It passes.\nIdempotency keys matter.\n",
        [("a" * 40, "draft"), ("b" * 40, "tests")],
        {"a" * 40: ["checkout.mjs"], "b" * 40: ["test/x.test.mjs"]},
        {"first-503": {"verdict": "double-charge", "requests": 2, "distinct_keys": 2}},
        [],
        None,
    )
    hints = evidence.gather(inputs)
    assert hints["key-scope"][0].source == evidence.LogLines("first-503")
    assert hints["key-scope"][0].where == "harness: first-503"
    assert hints["explanation"][0].source == evidence.NoteLines((2,))
    assert hints["evidence"][-1].source == evidence.NoteLines((1,))
    assert hints["found-defect"][0].source == evidence.CommitRef("b" * 40)
    assert evidence.DiffLine("checkout.mjs", 4).label == "checkout.mjs:4"


def test_a_blind_export_names_candidates_by_alias_even_in_comments(sample_cohort, capsys):
    import re

    from review.cli import main
    from review.services import cohort, store

    head = cohort.load_row(sample_cohort / "ada-okafor").head
    store.save(
        sample_cohort / "ada-okafor",
        store.Review(
            ["ana"],
            head,
            state="draft",
            comment="Ada Okafor named the restart gap",
            tiers={"explanation": "strong"},
            comments={"evidence": "okafor ran the stub twice"},
        ),
    )
    assert main(["export", str(sample_cohort), "--anonymous", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert not re.search(r"okafor|ada-", out, re.IGNORECASE)
    ada = _alias(sample_cohort, "ada-okafor")
    assert f"{ada},ana,draft" in out and f"{ada} named the restart gap" in out
    assert f"{ada} ran the stub twice" in out
    assert main(["export", str(sample_cohort), "--format", "csv"]) == 0
    assert "ada-okafor,ana,draft" in capsys.readouterr().out  # only when asked


def test_a_cohort_marked_anonymous_exports_blind_until_revealed(sample_cohort, capsys):
    from review.cli import main
    from review.services import store

    store.save(sample_cohort / "ada-okafor", store.Review(["ana"], "a" * 40, comment="Okafor was careful"))
    (sample_cohort / "cohort.toml").write_text("anonymous = true\n")
    assert main(["export", str(sample_cohort), "--format", "md"]) == 0
    blind = capsys.readouterr().out
    assert "okafor" not in blind.lower() and f"{_alias(sample_cohort, 'ada-okafor')} was careful" in blind
    assert main(["export", str(sample_cohort), "--format", "csv", "--reveal"]) == 0
    assert "ada-okafor" in capsys.readouterr().out


def _alias(cohort_dir, name: str) -> str:
    """The candidate-N a blind console or export of this cohort calls the folder `name`."""
    from review.core import anonymity
    from review.services import cohort
    from review.services.blind_order import blind_order_key

    names = [path.name for path in cohort.list_submissions(cohort_dir)]
    return anonymity.alias_for(anonymity.blind_order(names, blind_order_key(cohort_dir)).index(name) + 1)


def test_the_key_scope_hint_counts_one_request_as_one():
    from review.core import evidence

    for requests, said in ((1, "first-503: 1 request,"), (3, "first-503: 3 requests,")):
        inputs = evidence.Inputs(
            "", [], {}, {"first-503": {"verdict": "no-retry", "requests": requests, "distinct_keys": 1}}, [], None
        )
        assert evidence.gather(inputs)["key-scope"][0].text.startswith(said)
