"""Commit metadata → attribution signals: trailers, author and committer identities, aider's rules,
"Generated with" footers, with what was considered and rejected. Pure.

Only disclosures count. A trailer is what git reads as one: a line of the trailer block that ends
the message (`git interpret-trailers`, `git log --format=%(trailers)`), never a body line that
merely looks like one, nor a subject's conventional-commit prefix. Its key must be one of the
disclosure keys below; its value is a tool or a person by its shape (``names.who_is``). Identity is
the e-mail first, then the name; the author wrote the change, the committer only committed it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from review.core.attribution.names import who_is
from review.core.attribution.tools import (
    FOOTER_NAMES,
    IDENTITY,
    SESSION_KEYS,
    UNNAMED,
    canonical_tool,
    match_identity,
    tool_in_text,
)
from review.core.attribution.trailer_block import trailer_block

# Every trailer key that discloses an assistant, by how its value is read — the one list:
#   identity  a person or a tool, by the value's shape (GitHub's co-author trailer, curl's Assisted-by;
#             co-developed-by is the Linux kernel's co-author key)
#   tool      the key itself says an assistant helped; the value names it (unnamed when it does not)
#   purpose   the key says an assistant helped; the value says what for (QEMU's AI-used-for)
#   flag      true/yes: an assistant helped, unnamed (aittributor's Ai-assisted)
#   session   a session link only an agent writes; the tool it implies, if any
_KEYS_BY_KIND = {
    "identity": "co-authored-by co-developed-by assisted-by agent",
    "tool": "generated-by co-authored-by-ai co-developed-by-ai ai-assistant ai-assisted-by ai-generated-by "
    "assisted-by-ai llm-assisted-by ai-tool ai-agent coding-agent commit-generated-by made-with",
    "purpose": "ai-used-for",
    "flag": "ai-assisted ai-generated",
    "session": "entire-checkpoint",
}
DISCLOSURE_KEYS: dict[str, tuple[str, str | None]] = {
    **{key: (kind, None) for kind, keys in _KEYS_BY_KIND.items() for key in keys.split()},
    # a tool's own session keys ("Claude-Session"): in its row of the tool table
    **{key: ("session", tool) for key, tool in SESSION_KEYS.items()},
}

# Keys whose value is usually a person (a co-author): a person there is nothing to report.
CO_AUTHOR_KEYS = {"co-authored-by", "co-developed-by"}

# aider's documented forms (aider.chat, "Git integration"): "(aider)" appended to the author's and
# committer's names, an "aider: " subject prefix.
_AIDER_SUFFIX = re.compile(r"\s\(aider\)$", re.I)
# as aider writes it: a person's "Aider: …" is a subject about aider
_AIDER_PREFIX = re.compile(r"^aider: ")
# The footer agents write on a line of its own, any tool: "🤖 Generated with [Firebender](https://…)"
# (a few characters may come first: an emoji, or its mojibake).
# Searched over the whole message, line by line (one pass in C, not a pattern per line).
_GENERATED_WITH = re.compile(
    r"^[ \t]{0,40}.{0,8}?\bgenerated with \[(?P<name>[^\[\]\n]{1,60})\]"
    r"\((?P<url>[^()\s]{1,300})\)\.?[ \t\r]*$",
    re.I | re.M,
)
# The same footer without a link, and Cursor's "Made with [Cursor](…)": only for known tools.
_MADE_WITH_KNOWN = re.compile(
    r"^[ \t]{0,40}.{0,8}?\b(?:generated|made) with \[?(?P<name>"
    + "|".join(map(re.escape, FOOTER_NAMES))
    + r")\]?(?:\([^()\s]{1,300}\))?\.?[ \t\r]*$",
    re.I | re.M,
)
# A line shaped like a trailer (git's key: letters, digits and dashes, then maybe spaces, then a colon).
_KEY_LINE = re.compile(r"^(?P<key>[A-Za-z0-9-]{1,60})[ \t]*:", re.M)

# a longer line is prose, never a trailer: patterns only ever see short lines
MAX_TRAILER_LINE = 1000


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Signal:
    """One piece of evidence that an assistant wrote (part of) a commit."""

    tool: str
    model: str | None
    source: str  # e.g. "Co-authored-by trailer", "author identity", "aider: subject prefix"
    evidence: str  # the raw line it came from (untrusted: sanitise before display)
    commit: str = ""


@dataclass(frozen=True)
class Rejected:
    """A line that looked like attribution but is not, and why (shown, never dropped)."""

    evidence: str
    reason: str


@dataclass
class CommitAttribution:
    commit: str
    signals: list[Signal] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    # The commit's people, for records that name authors (a git-ai legacy author who is one of them
    # is that person, never an assistant).
    author: str = ""
    committer: str = ""

    @property
    def tools(self) -> list[str]:
        return sorted({s.tool for s in self.signals})

    @property
    def claim_signal(self) -> Signal:
        """The signal its lines are claimed by: the first that names a tool (`Ai-assisted: true` beside
        a tool's co-author is that tool), else the first."""
        return next((s for s in self.signals if s.tool not in UNNAMED), self.signals[0])

    @property
    def claim_source(self) -> str:
        """What its lines' claim says it comes from: the claiming signal, and any other tool the commit
        names (its metadata cannot say which lines each tool wrote)."""
        first = self.claim_signal
        others = sorted({s.tool for s in self.signals} - {first.tool} - set(UNNAMED))
        if not others:
            return first.source
        return f"{first.source}; the commit also names {', '.join(others)} (not which lines each wrote)"


@dataclass
class _Said:
    """Where one commit's signals and rejections go; `where` names the squashed commit they come from."""

    result: CommitAttribution
    where: str = ""

    def add(self, tool: str, model: str | None, source: str, evidence: str) -> None:
        self.result.signals.append(Signal(tool, model, self.where + source, evidence, self.result.commit))

    def reject(self, evidence: str, reason: str) -> None:
        self.result.rejected.append(Rejected(self.where + evidence, reason))


@functools.lru_cache(maxsize=4096)  # a history repeats a few identities thousands of times
def _person(identity: tuple[str, str]) -> str:
    """The person behind an identity ("Ann (aider)" is Ann); "" when the identity is an agent's."""
    if match_identity(*identity):
        return ""
    return _AIDER_SUFFIX.sub("", identity[0]).strip()


def commit_signals(sha: str, message: str, author: tuple[str, str], committer: tuple[str, str]) -> CommitAttribution:
    """Every attribution signal in one commit's metadata, with what was considered and rejected."""
    said = _Said(CommitAttribution(sha, author=_person(author), committer=_person(committer)))
    _identities(author, committer, said)

    lines = message.split("\n")
    subject = lines[0] if lines else ""
    if _AIDER_PREFIX.match(subject):
        if _AIDER_SUFFIX.search(committer[0]) and not _AIDER_SUFFIX.search(author[0]):
            # --attribute-commit-message-committer prefixes every commit aider makes, the person's own
            # edits too; (aider) on the committer alone says this is one of those.
            said.reject(
                subject[:MAX_TRAILER_LINE],
                "'aider: ' on a commit aider only committed: the prefix option "
                "prefixes every commit, the person's own edits too (aider's docs)",
            )
        else:
            said.add("Aider", None, "aider: subject prefix", subject)

    start, block = trailer_block(message)
    body = len(subject) + 1
    # Footers, on a line of their own anywhere after the subject.
    lowered = message.lower()
    if "generated with" in lowered or "made with" in lowered:
        footers = {m.start(): m for m in _MADE_WITH_KNOWN.finditer(message, body)}
        footers.update({m.start(): m for m in _GENERATED_WITH.finditer(message, body)})
        for _, m in sorted(footers.items()):
            said.add(canonical_tool(m["name"]) or m["name"], None, "Generated with footer", m.group().strip())

    for key, value, raw in block:
        _trailer(key, value, raw, said)
    if _SQUASHED in message:
        _squashed(message, said)

    # A disclosure key on a body line that is not in the trailer block: considered, and said why not.
    block_at = sum(map(len, lines[:start])) + start  # each line and its line feed
    for shaped in _KEY_LINE.finditer(message, body, max(body, block_at)):
        if shaped["key"].lower() in DISCLOSURE_KEYS:
            line = message[shaped.start() : message.find("\n", shaped.start()) % (len(message) + 1)]
            said.reject(
                line.strip()[:MAX_TRAILER_LINE],
                "a body line shaped like a trailer, not in the trailer block that "
                "ends the message (git reads trailers only there)",
            )
    return said.result


# `git merge --squash` writes each squashed commit into the new commit's message: "commit <id>",
# its Author and Date, a blank line, then its message indented by four spaces.
_SQUASHED = "Squashed commit of the following:"
_SQUASHED_COMMIT = re.compile(r"commit (?P<sha>[0-9a-f]{40})")
_SQUASHED_AUTHOR = re.compile(r"Author:[ \t]+(?P<name>[^<>\n]{0,300}?)[ \t]*<(?P<email>[^<>\n]{0,300})>[ \t]*")


def _squashed(message: str, said: _Said) -> None:
    """The squashed commits' own disclosures (their trailer blocks, their agent authors), each said
    to come from that squashed commit."""
    for sha, author, text in _squashed_commits(message):
        there = _Said(said.result, f"squashed commit {sha[:7]}: ")
        if author is not None:
            # its author only: the squash's committer committed them all
            _identities(author, ("", ""), there)
        for key, value, raw in trailer_block(text)[1]:
            _trailer(key, value, raw, there)


def _squashed_commits(message: str) -> list[tuple[str, tuple[str, str] | None, str]]:
    """(id, author, message) of each commit a `git merge --squash` message holds, in one pass."""
    found: list[tuple[str, tuple[str, str] | None, list[str]]] = []
    in_header = False
    for line in message[message.index(_SQUASHED) :].split("\n")[1:]:
        commit = _SQUASHED_COMMIT.fullmatch(line)
        if commit:
            found.append((commit["sha"], None, []))
            in_header = True
        elif not found:
            continue
        elif in_header:
            author = _SQUASHED_AUTHOR.fullmatch(line)
            if author:
                found[-1] = (found[-1][0], (author["name"], author["email"]), found[-1][2])
            in_header = bool(line.strip())
        elif line.startswith("    ") or not line.strip():
            found[-1][2].append(line[4:])
        else:
            # the squash's own text after the squashed commits
            found.append(("", None, []))
    return [(sha, author, "\n".join(lines).strip("\n") + "\n") for sha, author, lines in found if sha]


def _identities(author: tuple[str, str], committer: tuple[str, str], said: _Said) -> None:
    """The author wrote the change; the committer committed it. aider marks both names when it wrote
    the change, the committer's alone when it committed the person's own edits."""
    wrote, committed = "{} <{}>".format(*author), "committer {} <{}>".format(*committer)
    author_agent = match_identity(*author)
    committer_agent = match_identity(*committer)
    if author_agent:
        said.add(author_agent[0].name, author_agent[1], "author identity", wrote)
    elif committer_agent:
        said.reject(committed, f"{committer_agent[0].name} committed the change; the author, a person, wrote it")
    author_aider = bool(_AIDER_SUFFIX.search(author[0]))
    committer_aider = bool(_AIDER_SUFFIX.search(committer[0]))
    if author_aider:
        source = "author and committer name suffix (aider)" if committer_aider else "author name suffix (aider)"
        said.add("Aider", None, source, wrote)
    elif committer_aider:
        said.reject(
            committed,
            "(aider) on the committer's name only: aider committed the person's own edits, it did not write "
            "them (aider's Git integration docs)",
        )


def _trailer(key: str, value: str, raw: str, said: _Said) -> None:
    kind, implied = DISCLOSURE_KEYS.get(key, (None, None))
    if kind is None:
        return
    label = f"{raw.split(':', 1)[0].strip()} trailer"
    lowered = value.strip().lower()
    if len(value) > MAX_TRAILER_LINE:
        said.reject(raw[:200] + "…", f"a {label} too long to read ({len(value)} characters)")
        return
    if kind == "session":
        said.add(implied or "an agent (unnamed)", None, f"{key} session trailer", raw)
        return
    if kind == "flag":
        if lowered in ("true", "yes", "1", "y"):
            said.add("an assistant (unnamed)", None, label, raw)
        elif lowered in ("false", "no", "0", "n", "none"):
            said.reject(raw, "declares no assistant")
        else:
            who = who_is(value, ai_key=True)
            if who.kind == "tool":
                said.add(who.tool or "an assistant (unnamed)", who.model, label, raw)
            else:
                said.reject(raw, who.reason)
        return
    if kind == "purpose":
        who = who_is(value, ai_key=True)
        if who.kind == "none":
            said.reject(raw, who.reason)
        else:
            said.add(tool_in_text(value) or "an assistant (unnamed)", None, label, raw)
        return
    who = who_is(value, ai_key=kind == "tool")
    if who.kind == "tool" and who.tool:
        said.add(who.tool, who.model, label, raw)
    elif who.kind == "none":
        said.reject(raw, who.reason)
    elif key in CO_AUTHOR_KEYS and IDENTITY.match(value) is None and who.kind == "unclear":
        said.reject(raw, "names neither a person's address nor an assistant")
    elif who.kind == "person":
        if key in CO_AUTHOR_KEYS and not tool_in_text(value):
            # a person co-author, as GitHub means it: nothing to say
            return
        said.reject(raw, f"names a person, not an assistant ({who.reason})")
    else:
        said.reject(raw, f"names no assistant ({who.reason})")


def assistants(attributions: list[CommitAttribution]) -> list[str]:
    """The assistants named anywhere in a submission's commits, in a stable order."""
    return sorted({tool for attribution in attributions for tool in attribution.tools})
