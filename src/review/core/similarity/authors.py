"""Who wrote a shared fragment, from the attribution a submission's history already has (its spans:
runs of HEAD lines and the tool that wrote them). Evidence for the reviewer, never a flag: a fragment
one side's history credits to an assistant, in a submission that discloses none."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


def fragment_tool(spans: Iterable[dict], path: str, first: int, last: int) -> str | None:
    """The tool credited with most of lines first..last of `path`, when it covers at least half of them."""
    lines: Counter = Counter()
    for span in spans:
        if span.get("path") != path or not span.get("tool"):
            continue
        start, end = max(first, int(span["start"])), min(last, int(span["end"]))
        if start <= end:
            lines[str(span["tool"])] += end - start + 1
    if not lines:
        return None
    tool, count = lines.most_common(1)[0]
    return tool if 2 * count >= last - first + 1 else None


def sentence(writer: str, tool: str, other: str, where: str) -> str:
    return f"in {writer}'s history this fragment ({where}) is {tool}'s; {other} discloses no assistant"
