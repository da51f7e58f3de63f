"""Candidate-blind review: every name, e-mail and folder name of a candidate shown as `candidate-N`.

A Masker holds the identities seen so far — each submission's folder name, its commit authors'
and committers' names and e-mails, and their parts ("Ada Okafor" → "Ada", "Okafor"; the local part
of an address) — each mapped to that submission's alias. The sanitiser (core.text) applies it to
everything it shows, so the triage table, the note, the diff, the commits and the notifications
are masked the same way. Assistants' names are never identities: AI tool names stay visible.
Matching is case-insensitive on whole words, one compiled alternation of literals: linear time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
from collections.abc import Iterable

MIN_PART = 3  # shorter parts ("Al", "Li") would mask half of every text
# Parts of folder names and addresses that are everyday words in this task's code and notes.
COMMON_WORDS = frozenset(
    """
admin api app bot charge checkout code data dev fetch gateway git github gitlab http https json key main
mail node noreply null order payment repo retry root take-home takehome task test true false user users web
candidate submission review reviewer users example
""".split()
)


# What stands for a name the reviewer typed, in a blind session.
REDACTED = "(a name)"


def alias_for(number: int) -> str:
    return f"candidate-{number}"


def alias_number(alias: str) -> int:
    """N of candidate-N (0 for any other text): what blind lists are ordered by."""
    prefix, _, number = alias.rpartition("-")
    return int(number) if prefix == "candidate" and number.isdigit() else 0


def commit_people(commits: Iterable, base: str | None = None) -> list[tuple[str, str]]:
    """(name, e-mail) of every author and committer of the candidate's commits (anything with those
    fields, oldest first): with `base`, only those after it. The starter commit every candidate begins
    from is the hiring team's, not the candidate's: masking its author would tell a blind reviewer the
    candidate wrote it."""
    commits = list(commits)
    shas = [getattr(c, "sha", None) for c in commits]
    if base is not None and base in shas:
        commits = commits[shas.index(base) + 1 :]
    return [
        person for c in commits for person in ((c.author_name, c.author_email), (c.committer_name, c.committer_email))
    ]


def identity_parts(folder: str | None = None, people: Iterable[tuple[str, str]] = ()) -> set[str]:
    """Every string that identifies a candidate: a folder name and (name, e-mail) pairs, with parts."""
    # Here, not at the top: the console loads this module at start, the attribution package only when
    # a candidate-blind session masks someone.
    from review.core.attribution.tools import tool_in_text

    found: set[str] = set()

    def add(text: str, split: str) -> None:
        text = text.strip()
        if len(text) < MIN_PART or tool_in_text(text) or text.lower().endswith("[bot]"):
            return
        found.add(text)
        parts = [part for part in re.split(split, text) if part]
        if len(parts) > 1:
            found.add(" ".join(parts))
        for part in parts:
            if len(part) >= MIN_PART and part.lower() not in COMMON_WORDS and not tool_in_text(part):
                found.add(part)

    if folder:
        add(folder, r"[-_. ]+")
    for name, email in people:
        if name:
            add(name, r"[\s.,]+")
        if email and "@" in email:
            local = email.split("@", 1)[0]
            if not tool_in_text(local) and "noreply" not in email.lower():
                found.add(email.strip())
                add(local, r"[._+-]+")
    return {text for text in found if text.lower() not in COMMON_WORDS}


class Masker:
    """Identity → alias, applied to any text. Safe to extend from worker threads while the UI reads."""

    def __init__(self) -> None:
        self._aliases: dict[str, str] = {}  # lower-cased identity -> alias
        self._pattern: re.Pattern[str] | None = None
        self._lock = threading.Lock()

    def add(self, alias: str, identities: Iterable[str]) -> None:
        with self._lock:
            before = len(self._aliases)
            for identity in identities:
                self._aliases.setdefault(identity.lower(), alias)  # the first submission seen keeps a name
            if len(self._aliases) != before:
                words = sorted(self._aliases, key=len, reverse=True)  # the full name before its parts
                self._pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, words)) + r")(?!\w)", re.IGNORECASE)

    def mask(self, text: str) -> str:
        pattern = self._pattern
        if pattern is None or not text:
            return text
        return pattern.sub(lambda match: self._aliases.get(match.group().lower(), "candidate-?"), text)

    def redact(self, text: str) -> str:
        """`text` with every identity in it replaced by one and the same mark, never by its alias: the
        reviewer's own typing echoed back (the filter) must not tell whose number a name is."""
        pattern = self._pattern
        return pattern.sub(REDACTED, text) if pattern is not None and text else text

    def __len__(self) -> int:
        return len(self._aliases)


def blind_order(folder_names: Iterable[str], order_key: bytes) -> list[str]:
    """The folder names in the order their candidates are numbered: by a keyed hash of each name, the
    key drawn once per cohort. Folder order would give the names' alphabetical order away (whoever
    knows the candidates would know candidate-1); the key keeps it the same for every console and
    export of the cohort."""
    return sorted(
        folder_names,
        key=lambda name: hmac.new(order_key, name.encode("utf-8", "surrogateescape"), hashlib.sha256).digest(),
    )


def cohort_masker(folder_names: Iterable[str], order_key: bytes) -> tuple[Masker, dict[str, str]]:
    """A masker over a cohort's folder names, numbered in `blind_order` (the console and the export
    number candidates the same way), and folder name -> alias."""
    masker = Masker()
    aliases: dict[str, str] = {}
    for number, name in enumerate(blind_order(folder_names, order_key), start=1):
        aliases[name] = alias_for(number)
        masker.add(aliases[name], identity_parts(name))
    return masker, aliases
