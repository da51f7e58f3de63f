"""Code similarity, pure: the tokens a disguise cannot change, winnowing's guarantee, and pair scores
that renaming and reformatting never lower."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from js_disguise import disguise, swap_blocks
from review.core import similarity
from review.core.similarity import authors
from review.core.similarity.winnow import winnow

SAMPLES = Path(__file__).resolve().parents[2] / "sample_submissions"
CHEN = (SAMPLES / "chen-wei" / "03-persist-key" / "tree" / "checkout.mjs").read_text()
DEV = (SAMPLES / "dev-patel" / "02-handle-errors" / "tree" / "checkout.mjs").read_text()
EVE = (SAMPLES / "eve-santos" / "02-rewrite" / "tree" / "checkout.mjs").read_text()
DRAFT = (SAMPLES / "_draft" / "checkout.mjs").read_text()


def prints(name: str, source: str, path: str = "checkout.mjs") -> similarity.Prints:
    ids, lines = similarity.tokenize(source.encode())
    return similarity.Prints(name, [similarity.fingerprint(path, ids, lines)])


def pair(cohort: list[similarity.Prints], a: str, b: str, excluded=None) -> similarity.Pair | None:
    found = similarity.compare(cohort, excluded or {})
    return next((p for p in found.pairs if {p.a, p.b} == {a, b}), None)


def test_names_literals_comments_and_layout_are_not_tokens():
    one = "const total = price * 2; // double\nlog('total', total);\n"
    other = 'let  sum=cost*7\n/* a comment */ ;print("sum",\n  sum);'
    ids_one, _ = similarity.tokenize(one.encode())
    ids_other, _ = similarity.tokenize(other.encode())
    # `const` and `let` are different keywords: the one difference the tokens keep.
    assert ids_one[1:] == ids_other[1:] and ids_one[0] != ids_other[0]
    assert similarity.tokenize(b"a + b")[0] != similarity.tokenize(b"a - b")[0]


def test_each_token_carries_the_line_it_starts_on():
    _, lines = similarity.tokenize(b"const a = 1;\n\n\nreturn `x\ny`;\n")
    # The template starts on line 4 and ends on 5; the `;` after it is on line 5.
    assert lines == [1, 1, 1, 1, 1, 4, 4, 5]


def test_a_file_that_does_not_parse_still_gives_its_tokens():
    ids, _ = similarity.tokenize(b"const = = {{ function (")
    assert len(ids) >= 5


@given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=200), st.integers(1, 12))
def test_winnowing_keeps_the_smallest_hash_of_every_window(hashes, window):
    kept = winnow(hashes, window)
    assert kept == sorted(set(kept))
    for start in range(max(1, len(hashes) - window + 1)):
        part = hashes[start : start + window]
        assert any(start <= at < start + window and hashes[at] == min(part) for at in kept)


def test_a_shared_run_of_window_plus_k_tokens_is_always_found():
    # The guarantee the parameters are chosen for: w + k - 1 tokens in common, a fingerprint in common.
    run = "x = y(1, 2) + z[3];"  # 14 tokens
    assert 3 * 14 >= similarity.WINDOW + similarity.K - 1
    one = prints("one", "if (a) { b(); }\n" + run * 3 + "\nwhile (q) { r--; }")
    other = prints("other", "class K { m() { return 1; } }\n" + run * 3)
    assert pair([one, other], "one", "other") is not None


def test_a_copy_renamed_reformatted_and_reordered_is_found_whole():
    swapped = swap_blocks(CHEN, "// The key must", "const backoff")
    copy = disguise(swapped, lambda name: "q" + name[::-1], lambda i, _: "\n  " if i % 4 == 0 else " ")
    found = pair([prints("chen", CHEN), prints("copy", copy), prints("dev", DEV)], "chen", "copy")
    # Only the k-grams across the two moves are lost (a k-gram of 20 tokens each side of each seam).
    assert found is not None and found.share_a > 0.7 and found.share_b > 0.7
    ranked = similarity.compare([prints("chen", CHEN), prints("copy", copy), prints("dev", DEV)], {}).pairs
    assert {ranked[0].a, ranked[0].b} == {"chen", "copy"}


def test_fragments_name_the_lines_in_each_file():
    copy = "// header\n\n\n" + CHEN
    a, b = prints("chen", CHEN), prints("copy", copy, "src/pay.mjs")
    found = similarity.compare([a, b], {})
    longest = similarity.fragments(a, b, found.own_hashes["chen"] & found.own_hashes["copy"])[0]
    assert longest.path_b == "src/pay.mjs"
    assert longest.lines_a[0] <= 3 and longest.lines_a[1] >= 50
    assert longest.lines_b == (longest.lines_a[0] + 3, longest.lines_a[1] + 3)


def test_what_is_excluded_is_not_scored_and_is_said():
    draft = {h for f in prints("d", DRAFT).files for h, *_ in f.prints}
    one, other = prints("one", DRAFT), prints("other", DRAFT + "\n")
    assert pair([one, other], "one", "other").share_a == 1.0
    assert pair([one, other], "one", "other", {"the model draft": draft}) is None
    everything = similarity.compare([one, other], {"the model draft": draft}, everything=True)
    assert everything.left_out_pairs[0].why().startswith("shares only the model draft")


def test_fingerprints_most_of_the_cohort_holds_are_common_not_scored():
    shared = "for (const item of items) { total += item.price * item.count; }\n" * 2
    cohort = [prints(f"c{n}", shared + f"function own{n}() {{ {'x(); ' * n} }}") for n in range(1, 6)]
    found = similarity.compare(cohort, {})
    assert found.common_at == 3
    assert all(found.left_out[p.name]["common"] > 0 for p in cohort)
    assert found.common_to["c1"] == 5


def test_a_side_with_little_code_of_its_own_does_not_outrank_a_copy():
    small = prints("small", "const k = crypto.randomUUID(); send(k, amount, 3);" + "\n")
    copy = prints("copy", CHEN.replace("PENDING", "PEND"))
    ranked = similarity.compare([prints("chen", CHEN), copy, small, prints("eve", EVE + "\n" + CHEN[:300])], {})
    assert {ranked.pairs[0].a, ranked.pairs[0].b} == {"chen", "copy"}


def test_a_fragment_is_credited_to_the_tool_covering_most_of_its_lines():
    spans = [
        {"path": "checkout.mjs", "start": 1, "end": 10, "tool": "Claude Code"},
        {"path": "checkout.mjs", "start": 11, "end": 12, "tool": None},
    ]
    assert authors.fragment_tool(spans, "checkout.mjs", 3, 12) == "Claude Code"
    assert authors.fragment_tool(spans, "checkout.mjs", 10, 14) is None
    assert authors.fragment_tool(spans, "other.mjs", 1, 5) is None


names = st.from_regex(r"[a-z][a-zA-Z0-9]{0,7}", fullmatch=True)
gaps = st.sampled_from([" ", "  ", "\t", "\n", "\n    ", "\n\n"])


@settings(max_examples=40, deadline=None)
@given(
    source=st.sampled_from([CHEN, DEV, EVE]),
    renames=st.dictionaries(names, names, max_size=20),
    spaces=st.lists(gaps, min_size=1, max_size=50),
)
def test_renaming_identifiers_and_reformatting_never_lower_a_pairs_share(source, renames, spaces):
    def rename(name: str) -> str:
        # A fresh name, never a keyword: a prefix of its own.
        return "r_" + renames.get(name, name)

    copy = disguise(source, rename, lambda i, _: spaces[i % len(spaces)])
    other = DRAFT + "\n" + CHEN[:400]
    before = pair([prints("orig", source), prints("same", source), prints("other", other)], "orig", "same")
    after = pair([prints("orig", source), prints("same", copy), prints("other", other)], "orig", "same")
    assert before is not None and after is not None
    assert after.share_a >= before.share_a and after.share_b >= before.share_b


def test_the_similar_filter_compares_the_share_as_a_number():
    from review.core import triage

    fields = {"similar": ["83", "zed-copy"], "name": ["chen-wei"]}
    for typed, wanted in (
        ("similar:>50", True),
        ("similar:>83", False),
        ("similar:>=83", True),
        ("similar:<10", False),
        ("similar:=83%", True),
        ("similar:zed", True),
        ("similar:ada", False),
    ):
        terms, problems = triage.parse_filter(typed)
        assert problems == [] and triage.matches(terms, fields) is wanted, typed
    # A row with nothing of its own to compare matches no comparison.
    assert not triage.matches(triage.parse_filter("similar:>0")[0], {"similar": []})
