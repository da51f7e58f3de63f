"""Lint the task text candidates will get, before it goes out (``review lint-prompt FILE``).

The take-home only works if the prompt states the requirement ("a single order must never result
in two charges", "the process can be restarted") and leaves the mechanism for the candidate to
find. The article: "If the prompt mentions idempotency keys anywhere, the task collapses into a
vocabulary quiz. Say 'never two charges' and let them find the mechanism." Three kinds of warning,
each quoting the line and saying why:

- ``leak``: the prompt names the mechanism being graded (idempotency keys, reusing the key);
- ``giveaway``: it describes the fake gateway so exactly that the defect is handed over (the first
  attempt always fails, every key is recorded, distinct keys are counted);
- ``omits``: it does not ask for something the rubric grades (the note, what was verified and what
  could not be, the disclosure of assistant use, the no-double-charge requirement, the restart).

Patterns are fixed word alternations run on lines cut to LINE_CAP: linear in the input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LINE_CAP = 2000
_WORDS = re.IGNORECASE


@dataclass(frozen=True)
class Rule:
    kind: str  # leak | giveaway | omits
    name: str
    pattern: re.Pattern[str]
    why: str


LEAK_WHY = (
    "names the mechanism the task grades: a prompt mentioning idempotency keys "
    "turns the task into a vocabulary quiz — state the requirement (never two charges) and let candidates "
    "find the mechanism"
)
RULES = (
    Rule("leak", "idempotency", re.compile(r"\bidempoten\w*|\bidempotency[-_ ]?key", _WORDS), LEAK_WHY),
    Rule(
        "leak",
        "reuse the key",
        re.compile(
            r"\b(?:reuse|re-use|reusing|same|single|one|stable|hoist\w*|persist\w*|store|save)\s+(?:the\s+|a\s+|one\s+)?"
            r"(?:request\s+|retry\s+|payment\s+|charge\s+)?(?:key|token|id)\b",
            _WORDS,
        ),
        "tells candidates what to do with the key — the Key scope signal grades whether they work that out",
    ),
    Rule(
        "leak",
        "key per attempt",
        re.compile(
            r"\b(?:new|fresh|different|random)\s+(?:key|uuid|id|token)s?\s+(?:per|for\s+each|on\s+each|every)\s+"
            r"(?:attempt|retry|request|try)",
            _WORDS,
        ),
        "describes the seeded defect itself (a fresh key per attempt) — Found the defect grades whether they see it",
    ),
    Rule(
        "leak",
        "double-charge mechanism",
        re.compile(
            r"\bretr(?:y|ies)\b[^.]{0,60}\b(?:double[- ]charge|charges?\s+twice|two\s+charges)\b[^.]{0,40}"
            r"\b(?:because|since|as)\b",
            _WORDS,
        ),
        "explains why a retry double-charges — the Explanation signal grades whether the candidate can",
    ),
    Rule(
        "giveaway",
        "first attempt fails",
        re.compile(
            r"\b(?:first|1st|initial)\s+(?:attempt|request|call|try)\s+(?:always\s+|will\s+|is\s+going\s+to\s+)?"
            r"(?:fail|fails|returns?\s+(?:a\s+)?5\d\d|gets?\s+(?:a\s+)?5\d\d)",
            _WORDS,
        ),
        "describes the fake gateway's script exactly: candidates can pass the harness by reading it instead of "
        'reasoning about failures ("calls may fail transiently (503)" is enough)',
    ),
    Rule(
        "giveaway",
        "keys recorded",
        re.compile(
            r"\b(?:records?|logs?|counts?|tracks?|compares?)\s+(?:every|each|all|the|distinct)?\s*(?:distinct\s+)?"
            r"(?:keys?|distinctKeys)\b|\bdistinctKeys\b",
            _WORDS,
        ),
        "says the harness watches the keys: the defect is then given away before the candidate runs anything",
    ),
    Rule(
        "giveaway",
        "replay semantics",
        re.compile(r"\b(?:Idempotent-Replayed|replay(?:s|ed)?\s+the\s+(?:first|original|stored)\s+response)", _WORDS),
        "describes the gateway's deduplication, which only matters once you know about keys — a leak by another name",
    ),
)

# What the rubric grades that the prompt must ask for: (name, any of these patterns, why).
REQUIRED = (
    (
        "the note",
        re.compile(r"\b(?:note|notes|write-?up|readme|explain)\b", _WORDS),
        "the rubric's Evidence and Explanation signals are read from the candidate's note; without asking for one, "
        "most candidates will not write it",
    ),
    (
        "what was verified and what could not be",
        re.compile(
            r"\bverif(?:y|ied|ication)\b|\bcould\s+not\b|"
            r"\bcouldn'?t\b|\bunable\s+to\b",
            _WORDS,
        ),
        'Evidence grades what they checked and how ("what you verified, and what you could not verify")',
    ),
    (
        "the disclosure of assistant use",
        re.compile(r"\b(?:assistant|AI|LLM|model|copilot|claude|chatgpt|gpt)\b", _WORDS),
        "the console maps the disclosure to the diff; the task's own line: \"You may use any assistant you like. "
        'Tell us which, and which parts of the diff came from it"',
    ),
    (
        "which parts of the diff it wrote",
        re.compile(
            r"\bwhich\s+parts?\b|\bwhat\s+parts?\b|\bwhich\s+lines\b|"
            r"\bparts\s+of\s+the\s+(?:diff|code)\b",
            _WORDS,
        ),
        "without it, a disclosure names a tool but maps to no lines (the triage column shows 'unmapped')",
    ),
    (
        "the requirement: never two charges",
        re.compile(
            r"\b(?:two|double|duplicate|twice|second)\s+(?:charges?|"
            r"payments?|charged)\b|\bcharged?\s+twice\b|\bdouble[- ]charg",
            _WORDS,
        ),
        'the whole task turns on it: state the requirement, not the mechanism ("a single order must never result in '
        'two charges")',
    ),
    (
        "the restart",
        re.compile(r"\brestart\w*|\bcrash\w*|\bprocess\s+(?:may|can|might)\s+(?:die|exit|stop)", _WORDS),
        'the Strong tier of Key scope ("persisted before the request") and of Explanation ("the restart gap") '
        "can only be fair if the prompt says the process may restart",
    ),
    (
        "retries",
        re.compile(r"\bretr(?:y|ies|ied|ying)\b", _WORDS),
        "the seeded defect only shows when the client retries; the harness grades backoff too",
    ),
)


@dataclass(frozen=True)
class Warning:
    kind: str  # leak | giveaway | omits
    name: str
    line_no: int | None  # None for what is missing
    line: str
    why: str

    def to_json(self) -> dict:
        return {"kind": self.kind, "name": self.name, "line": self.line_no, "text": self.line, "why": self.why}


def lint(text: str) -> list[Warning]:
    lines = [line[:LINE_CAP] for line in text.splitlines()]
    warnings: list[Warning] = []
    for number, line in enumerate(lines, start=1):
        for rule in RULES:
            if rule.pattern.search(line):
                warnings.append(Warning(rule.kind, rule.name, number, line.strip(), rule.why))
    for name, pattern, why in REQUIRED:
        if not any(pattern.search(line) for line in lines):
            warnings.append(Warning("omits", name, None, "", why))
    return warnings
