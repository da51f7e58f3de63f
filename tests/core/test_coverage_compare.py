"""The pure parts behind the stub log's overlays: V8 coverage → line counts, and before/after."""

from __future__ import annotations

import json

from review.harness import compare, coverage
from review.harness.runner import ScenarioResult

SOURCE = """// header comment
export function f(x) {
  if (x > 1) {
    return "big";
  }

  return "small";
}
"""


def offsets(text: str) -> tuple[int, int]:
    start = SOURCE.index(text)
    return start, start + len(text)


def test_a_branch_that_never_ran_counts_zero_inside_a_function_that_ran_twice():
    func_start, func_end = offsets(SOURCE[SOURCE.index("function f") : SOURCE.rindex("}") + 1])
    branch_start, branch_end = offsets('{\n    return "big";\n  }')
    functions = [
        {"functionName": "", "ranges": [{"startOffset": 0, "endOffset": len(SOURCE), "count": 1}]},
        {
            "functionName": "f",
            "ranges": [
                {"startOffset": func_start, "endOffset": func_end, "count": 2},
                {"startOffset": branch_start, "endOffset": branch_end, "count": 0},
            ],
        },
    ]
    counts = coverage.line_counts(SOURCE, functions)
    # The branch's closing brace is inside the branch; no count for the comment or the blank line.
    assert counts == {2: 1, 3: 2, 4: 0, 5: 0, 7: 2, 8: 2}
    assert coverage.ran_lines(counts) == 4


def test_offsets_are_utf16_so_an_emoji_does_not_shift_the_lines_after_it():
    source = "// 💳 card\nexport const a = 1;\n"
    start = len("// 💳 card\n") + 1  # the emoji is two UTF-16 units
    counts = coverage.line_counts(source, [{"ranges": [{"startOffset": start, "endOffset": start + 19, "count": 3}]}])
    assert counts == {2: 3}


def test_reports_from_the_sandbox_are_read_defensively():
    good = {
        "result": [
            {
                "url": "file:///sub/checkout.mjs",
                "functions": [{"ranges": [{"startOffset": 0, "endOffset": len(SOURCE), "count": 1}]}],
            },
            {"url": "file:///etc/passwd", "functions": [{"ranges": []}]},
            {"url": "file:///sub/other.mjs", "functions": "not a list"},
            {"url": 42},
        ]
    }
    reports = [
        json.dumps(good).encode(),
        b"{not json",
        b"[]",
        json.dumps({"result": "x"}).encode(),
        json.dumps(
            {"result": [{"url": "file:///sub/checkout.mjs", "functions": [{"ranges": [{"startOffset": "a"}]}]}]}
        ).encode(),
    ]
    parsed = coverage.parse_reports(reports, {"checkout.mjs": SOURCE, "other.mjs": ""}, "file:///sub/")
    assert set(parsed) == {"checkout.mjs"}
    assert parsed["checkout.mjs"][2] == 1


def result(name: str, verdict: str, requests=1, keys=1, charges=1) -> ScenarioResult:
    return ScenarioResult(name, requests, keys, charges, [], [], verdict, [], [])


def test_before_after_names_what_was_fixed_what_broke_and_what_stayed():
    before = [
        result("first-503", "double-charge", 2, 2, 1),
        result("happy", "ok"),
        result("restart", "double-charge"),
        result("decline", "ok"),
    ]
    after = [
        result("first-503", "ok", 2, 1, 1),
        result("happy", "ok"),
        result("restart", "double-charge"),
        result("decline", "retried-decline"),
        result("timeout", "ok"),
    ]
    changes = {c.scenario: c for c in compare.compare(before, after)}
    assert changes["first-503"].kind == "fixed" and changes["first-503"].text == "double-charge → ok"
    assert changes["first-503"].before_facts == "2 req seen · 2 keys · 1 charge created"
    assert changes["restart"].kind == "same" and changes["decline"].kind == "broke"
    assert changes["timeout"].kind == "missing" and changes["timeout"].before_facts == "not run"
    assert compare.headline(list(changes.values())) == "1 fixed, 1 broke, 2 same, 1 missing"
