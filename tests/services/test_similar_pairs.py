"""`review similar` on real repositories built from the sample starter: the disguised copy ranks
first, pairs sharing only the starter or the model draft rank below it and say why, and what an
assistant wrote in one history is said beside a submission that discloses none."""

from __future__ import annotations

import json
import shutil

from review.cli import main
from review.services import similar_report, similarity
from similarity_cohort import CHEN, commit, disguised, plant, plant_all


def similar_json(capsys, cohort, *options: str) -> dict:
    assert main(["similar", str(cohort), "--json", *options]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_disguised_copy_ranks_first_and_what_is_shared_by_all_is_left_out(sample_cohort, capsys):
    document = similar_json(capsys, plant_all(sample_cohort), "--all")
    first = document["pairs"][0]
    assert {first["a"], first["b"]} == {"chen-wei", "zed-copy"}
    assert first["share_a"] > 0.8 and first["share_b"] > 0.8
    longest = first["longest"]
    assert longest["a"]["path"] == "checkout.mjs" and longest["b"]["path"] == "checkout.mjs"
    assert longest["a"]["last"] - longest["a"]["first"] >= 10
    # No pair sharing only the starter or the draft ranks above it: they are scored nothing and say why.
    by_pair = {frozenset((p["a"], p["b"])): p for p in document["left_out_pairs"]}
    drafts = by_pair[frozenset(("ivy-draft", "jon-draft"))]
    assert drafts["similarity"] == 0 and drafts["why"].startswith("shares only the model draft")
    stubs = by_pair[frozenset(("kai-stub", "lee-stub"))]
    assert "the starter" in stubs["why"] and stubs["similarity"] == 0
    for pair in document["pairs"]:
        assert {"ivy-draft", "jon-draft"} != {pair["a"], pair["b"]}
    listed = {s["name"]: s for s in document["submissions"]}
    assert listed["ivy-draft"]["own"] == 0 and listed["ivy-draft"]["left_out"]["the model draft"] > 0
    assert listed["kai-stub"]["left_out"]["the starter"] > 0
    assert {"path": "NOTE.md", "reason": "not code"} in listed["chen-wei"]["not_compared"]
    assert listed["zed-copy"]["top"]["with"] == "chen-wei"


def test_text_fits_80_columns_and_names_the_pair_and_lines(sample_cohort, capsys):
    assert main(["similar", str(plant_all(sample_cohort))]) == 0
    out = capsys.readouterr().out
    assert all(len(line) <= 80 for line in out.splitlines())
    assert " 1  chen-wei ↔ zed-copy" in out
    assert "longest: checkout.mjs " in out and "Left out, per submission:" in out


def test_candidate_blind_output_names_no_candidate(sample_cohort, capsys):
    document = similar_json(capsys, plant_all(sample_cohort), "--anonymous")
    text = json.dumps(document)
    for name in ("chen-wei", "zed-copy", "Chen Wei"):
        assert name not in text
    assert document["pairs"][0]["a"].startswith("candidate-")


def test_an_assistants_fragment_beside_a_submission_that_discloses_none(sample_cohort, capsys):
    trailer = "Add payment client\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n"
    plant(sample_cohort, "mia", commit({"checkout.mjs": CHEN}, trailer, "Mia"))
    plant(sample_cohort, "noa", commit({"checkout.mjs": disguised(CHEN)}, "payment client", "Noa"))
    pairs = similar_json(capsys, sample_cohort)["pairs"]
    pair = next(p for p in pairs if {p["a"], p["b"]} == {"mia", "noa"})
    said = " ".join(pair["authors"])
    assert "in mia's history this fragment (checkout.mjs " in said and "noa discloses no assistant" in said
    # Evidence, not a flag: chen-wei (who discloses Codex) is said of no one.
    assert all("chen-wei discloses" not in " ".join(p["authors"] or []) for p in pairs)


def test_an_arrival_is_compared_without_reading_the_others_again(sample_cohort):
    index = similarity.build(sample_cohort)
    before = {name: entry.prints for name, entry in index.entries.items()}
    arrived = plant(sample_cohort, "zed-copy", commit({"checkout.mjs": disguised(CHEN)}))
    index.add(arrived)
    assert all(index.entries[name].prints is prints for name, prints in before.items())
    assert similar_report.report(index, authorship=False)["pairs"][0]["b"] == "zed-copy"


def test_a_cohort_that_does_not_exist_is_a_usage_error(tmp_path, capsys):
    assert main(["similar", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_an_unreadable_submission_is_its_own_entry(sample_cohort, capsys):
    (sample_cohort / "broken").mkdir()
    (sample_cohort / "broken" / "file.txt").write_text("not a repository")
    listed = {s["name"]: s for s in similar_json(capsys, sample_cohort)["submissions"]}
    assert listed["broken"]["problem"] and listed["chen-wei"]["problem"] is None


def test_the_export_gives_each_submission_its_top_pair(sample_cohort, capsys):
    import csv
    import io

    cohort = plant_all(sample_cohort)
    assert main(["export", str(cohort), "--format", "csv"]) == 0
    rows = {r["submission"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out.partition("\r\n\r\n")[0]))}
    assert rows["zed-copy"]["similar_to"] == "chen-wei" and float(rows["zed-copy"]["similar"]) > 0.8
    assert rows["ivy-draft"]["similar_to"] == "" and rows["ivy-draft"]["similar"] == ""
    assert main(["export", str(cohort), "--format", "json", "--anonymous"]) == 0
    blind = json.loads(capsys.readouterr().out)["rows"]
    assert all(r["similar_to"] is None or r["similar_to"].startswith("candidate-") for r in blind)
    assert any(r["similar_to"] for r in blind)


def test_review_show_lists_the_submissions_pairs_as_review_similar_ranks_them(sample_cohort, capsys):
    cohort = plant_all(sample_cohort)
    ranked = similar_json(capsys, cohort)["pairs"]
    assert main(["show", str(cohort / "zed-copy"), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["similar_problem"] is None
    first = document["similar"][0]
    assert {first["a"], first["b"]} == {"chen-wei", "zed-copy"} and first["rank"] == 1
    assert first["share_a"] == ranked[0]["share_a"] and first["longest"] == ranked[0]["longest"]
    # A pair that shares only the draft is not one of the submission's pairs.
    assert main(["show", str(cohort / "ivy-draft"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["similar"] == []
    assert main(["show", str(cohort / "zed-copy")]) == 0
    text = capsys.readouterr().out
    assert "#1 chen-wei: " in text and "of this submission's own code is in chen-wei's" in text
    assert all(len(line) <= 80 for line in text.splitlines())


def test_a_warm_index_is_the_cohorts_one_pack_and_a_moved_head_is_read_again(sample_cohort):
    zed = plant(sample_cohort, "zed", commit({"lib/own.mjs": "export const one = () => 1;\n"}))
    cold = similar_report.report(similarity.build(sample_cohort), authorship=False)
    warm = similarity.build(sample_cohort)
    # Every submission came from the pack (its files' prints are read only for a pair's fragments)...
    assert all(entry.lean for entry in warm.entries.values() if not entry.problem)
    # ...and the document is the same to the last fragment.
    assert similar_report.report(warm, authorship=False) == cold
    shutil.rmtree(zed)
    plant(sample_cohort, "zed", commit({"checkout.mjs": disguised(CHEN)}, "payment client", "Zed"))
    again = similarity.build(sample_cohort)
    assert not again.entries["zed"].lean and again.entries["zed"].head != warm.entries["zed"].head
    top = similar_report.report(again, authorship=False)["pairs"][0]
    assert {top["a"], top["b"]} == {"chen-wei", "zed"}


def test_a_pack_that_cannot_be_read_is_only_slower(sample_cohort):
    cold = similar_report.report(similarity.build(sample_cohort), authorship=False)
    pack = similarity.Pack.read(sample_cohort, similarity.Index(sample_cohort).base)
    for data in pack.entries.values():
        data["hashes"] = "not base64 at all!"
    similarity._write_cached(pack.key, {"entries": pack.entries, "starters": pack.starters})
    index = similarity.build(sample_cohort)
    assert not any(entry.lean for entry in index.entries.values())
    assert similar_report.report(index, authorship=False) == cold


def test_the_triage_table_gives_the_shares_and_the_top_pair_within_80_columns(sample_cohort, capsys):
    plant_all(sample_cohort)
    top = {s["name"]: s["top"] for s in similar_json(capsys, sample_cohort)["submissions"]}
    assert main(["triage", str(sample_cohort)]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0]

    def cell(line: str, label: str) -> str:
        """The value under a right-aligned header, within the first 80 columns."""
        end = header.index(f" {label} ") + 1 + len(label)
        assert end <= 80
        return line[end - 4 : end].strip()

    zed = next(line for line in lines if line.startswith("zed-copy "))
    share = f"{round(100 * top['zed-copy']['share'])}%"
    # The facts the console's columns show: the AI's share, the unknown share, the similar share.
    assert [cell(zed, label) for label in ("AI", "unkn", "sim")] == ["0%", "100%", share]
    own = next(s["own"] for s in similar_json(capsys, sample_cohort)["submissions"] if s["name"] == "zed-copy")
    # The share with its base, as the console's detail gives it.
    assert f"similar: {share} of its {own} own fingerprints are in chen-wei" in zed
    ivy = next(line for line in lines if line.startswith("ivy-draft "))
    assert cell(ivy, "sim") == "—"  # nothing of its own: no share
    assert all(len(line) <= 80 for line in lines[-3:])
