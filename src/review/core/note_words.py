"""The words the note hints look for: a small lexicon per topic, matched as whole words (never inside
another word: `hang` is not in "change") over the note's text as written, Markdown read as text and
code spans included, in any case. Each match is kept with the words it matched and its line, so a
hint quotes what it saw. Pure: no I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass

# topic -> (how a hint names it, the words: regular expressions for one word or phrase each, where
# `[\s-]` lets a phrase be written with a space or a hyphen). The README's table lists the same.
LEXICON: dict[str, tuple[str, tuple[str, ...]]] = {
    "test-failed": (
        "a test failed",
        (r"(?:went|turned|goes|go|was|is)\s+red", r"red\s+(?:first|before)", r"fail(?:s|ed|ing)", r"not\s+ok"),
    ),
    "passes": ("it passes", (r"pass(?:es|ed)", r"tests?\s+(?:are\s+)?green", r"green")),
    "idempotency": ("idempotency", (r"idempoten(?:cy|t|ce|tly)",)),
    "restart": (
        "the restart / in-memory key gap",
        (
            r"re-?start(?:s|ed|ing)?",
            r"(?:process|server|client|worker)(?:es)?\s+(?:dies|died|die|crash(?:es|ed)?|exits?|exited)",
            r"dies\s+with\s+the\s+process",
            r"kill(?:s|ed|ing)?",
            r"in[\s-]memory",
            r"reboot(?:s|ed|ing)?",
            r"redeploy(?:s|ed|ing)?",
        ),
    ),
    "timeouts": (
        "timeouts",
        (
            r"time[\s_-]?outs?",
            r"tim(?:ed|es|ing)[\s-]+out",
            r"hang(?:s|ing)?",
            r"hung",
            r"abort(?:s|ed|ing)?",
            r"stall(?:s|ed|ing)?",
            r"never\s+(?:answers|answered|responds|returns)",
        ),
    ),
    "partial-writes": (
        "partial writes",
        (
            r"partial(?:ly)?",
            r"disks?",
            r"renam(?:e|es|ed|ing)",
            r"fsync",
            r"torn",
            r"half[\s-]written",
            r"atomic(?:ally)?",
        ),
    ),
    "duplicates": (
        "duplicates",
        (
            r"duplicat(?:e|es|ed|ion)",
            r"double[\s-]?charg(?:e|es|ed|ing)",
            r"charged\s+twice",
            r"twice",
            r"two\s+charges",
            r"de-?dup(?:e|es|ed|ing|lication|licated)?",
        ),
    ),
    "key-expiry": ("key expiry", (r"expir(?:e|es|ed|ing|y|ation)", r"windows?", r"24\s?h(?:ours?)?", r"ttl")),
    "order-identity": ("order identity", (r"order[\s_-]?ids?", r"order\s+numbers?")),
}


def _compiled(words: tuple[str, ...]) -> re.Pattern[str]:
    # Longest first, so "timed out" is quoted whole; no letter or digit on either side, in any script
    # ("_" and "*" are Markdown's emphasis, not part of a word).
    alternatives = "|".join(sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![^\W_])(?:{alternatives})(?![^\W_])", re.IGNORECASE)


PATTERNS = {topic: _compiled(words) for topic, (_, words) in LEXICON.items()}
# How much of the line a quote shows around what it matched.
CONTEXT = 24
MAX_QUOTE = 72


@dataclass(frozen=True)
class Quote:
    """One note line's match: the line, the words matched there (as written), and a piece of the line
    around them (`text`, as written: always a part of the line)."""

    line: int
    words: tuple[str, ...]
    text: str

    def to_json(self) -> dict:
        return {"line": self.line, "words": list(self.words), "text": self.text}


def find(note: str, topic: str) -> list[Quote]:
    """Every line of `note` holding a word of `topic`, with what it matched."""
    pattern = PATTERNS[topic]
    quotes = []
    for number, line in enumerate(note.splitlines(), start=1):
        found = list(pattern.finditer(line))
        if found:
            quotes.append(Quote(number, tuple(m.group(0) for m in found), _around(line, found[0])))
    return quotes


def _around(line: str, match: re.Match[str]) -> str:
    """The match with a few words either side, cut at spaces, within the line."""
    start, end = max(0, match.start() - CONTEXT), min(len(line), match.end() + CONTEXT)
    if start > 0 and " " in line[start : match.start()]:
        start = line.index(" ", start, match.start()) + 1
    if end < len(line) and " " in line[match.end() : end]:
        end = line.rindex(" ", match.end(), end)
    text = line[start:end].strip().lstrip("-*+#> ")  # a list's or heading's mark is not the note's words
    return text if len(text) <= MAX_QUOTE else match.group(0)


def quoted(quotes: list[Quote], at_most: int = 3) -> str:
    """“…” (line N), as a hint says them (one quote alone: its line is the hint's source, said beside
    it); how many more lines, when there are more."""
    if len(quotes) == 1:
        return f"“{quotes[0].text}”"
    said = ", ".join(f"“{q.text}” (line {q.line})" for q in quotes[:at_most])
    more = len(quotes) - at_most
    return said + (f" and {more} more line{'s' if more > 1 else ''}" if more > 0 else "")
