"""What the diff pane's header says about the range on screen: its name, how the view shows it, its
counts and AI share, the model draft's survival, what was not read, and the coverage overlay."""

from __future__ import annotations

from review.core import diff, triage
from review.services.analysis import Analysis

# A coverage run: (the commit it ran, what ran, path -> HEAD-side line -> times it ran).
Coverage = tuple[str, str, dict[str, dict[int, int]]]


def range_parts(label: str, diff: diff.Diff, analysis: Analysis | None, whole: bool) -> list[str]:
    """The range's own counts (whatever the view hides of it), and what was cut or not understood."""
    totals = diff.totals()
    share = totals.ai_share
    parts = [label, f"+{totals.added} lines"]
    if share is not None:
        said = triage.shares_text(share, totals.person_share, totals.unknown_share) if diff.claimed else f"{share:.0%}"
        parts.append(f"AI-attributed {totals.code_ai_added} of {totals.counted} lines of code ({said})")
    if totals.code_base_added:
        parts.append(f"⌂ {totals.code_base_added} added lines from the base (the starter's code): not counted")
    left_out = totals.added - totals.code_added
    if left_out:
        reasons = sorted({f.excluded for f in diff.files if f.excluded and f.added})
        parts.append(f"{left_out} added lines not counted ({', '.join(reasons)})")
    if analysis and analysis.draft and diff.target == analysis.head:
        parts.append(
            f"draft {analysis.draft[:7]}: {analysis.draft_surviving} of its "
            f"{analysis.draft_added} added lines survive at HEAD"
        )
    if analysis and analysis.base_problem and whole:
        parts.append(analysis.base_problem)
    if analysis and whole:
        # What was not read or counted: said, never silent.
        parts += [f"⚠ {what}" for what in analysis.cut]
    if diff.problem:
        parts.append(diff.problem)
    return parts


def coverage_text(coverage: Coverage | None, shown: bool, target: str, diff: diff.Diff) -> list[str]:
    if coverage is None:
        return []
    commit, what, counts = coverage
    if not shown:
        return ["coverage hidden (c shows it)"]
    if commit != target:
        return [f"coverage ({what}) is for {commit[:7]}, not this range's commit"]
    ran = missed = ai_ran = ai_missed = 0
    for file_diff in diff.files:
        file_counts = counts.get(file_diff.path, {})
        for hunk in file_diff.hunks:
            for line in hunk.lines:
                count = file_counts.get(line.new_no) if line.kind == "+" and line.new_no else None
                if count is None:
                    continue
                ran, missed = ran + (count > 0), missed + (count == 0)
                if line.tool:
                    ai_ran, ai_missed = ai_ran + (count > 0), ai_missed + (count == 0)
    text = f"coverage ({what}): {ran} added line(s) ran, {missed} did not"
    if ai_ran or ai_missed:
        text += f"; AI-attributed: {ai_ran} ran, {ai_missed} did not"
    return [text + " (counts in the gutter, as V8 reported them inside the sandbox)"]
