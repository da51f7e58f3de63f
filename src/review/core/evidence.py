"""What the console observed that bears on each rubric signal. Pure: no I/O.

Evidence, not verdicts: every hint says what was seen and where (a harness scenario, a note
line, a commit), and the reviewer picks the tier. Nothing here ever chooses one.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

CODE_FILE = re.compile(r"\.(?:[cm]?js|ts)$")
# Where the client's code makes the key, sends it, and sends the request: what `g` goes to from a
# key-scope hint or a request in the stub log. Short lines only (the patterns never see a huge one).
SITE_PATTERNS = {
    "key-made": re.compile(r"randomUUID|\buuid\w*\(|crypto\.random|randomBytes|nanoid|createHash", re.I),
    "key-sent": re.compile(r"idempotency[-_ ]?key", re.I),
    "request": re.compile(r"\bfetch\s*\(|\bhttps?\.request\s*\(|\baxios\b|\bundici\b|\brequest\s*\(", re.I),
}
MAX_SITE_LINE = 500
_REQUIRE = re.compile(r"=\s*require\s*\(")
ARTICLE_LINE = re.compile(r'\{\s*"charges"\s*:\s*(\d+)\s*,\s*"distinctKeys"\s*:\s*(\d+)\s*\}')
TEST_PATH = re.compile(r"(^|/)(tests?|__tests__|spec)/|\.(test|spec)\.[cm]?[jt]s$")


@dataclass(frozen=True)
class NoteLines:
    """Lines of the candidate's note (1-based)."""

    lines: tuple[int, ...] = ()

    @property
    def label(self) -> str:
        if not self.lines:
            return "note"
        return "note line" + ("s " if len(self.lines) > 1 else " ") + ", ".join(map(str, self.lines[:6]))


@dataclass(frozen=True)
class LogLines:
    """A harness scenario's lines in the stub log (None: the harness as a whole)."""

    scenario: str | None = None

    @property
    def label(self) -> str:
        return f"harness: {self.scenario}" if self.scenario else "harness"


@dataclass(frozen=True)
class CommitRef:
    """One commit (None: the commit list as a whole)."""

    sha: str | None = None

    @property
    def label(self) -> str:
        return f"commit {self.sha[:7]}" if self.sha else "commits"


@dataclass(frozen=True)
class DiffLine:
    """A line of a file at HEAD, in the diff."""

    path: str
    line: int

    @property
    def label(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Attribution:
    """The attribution summary (conflicts, unmapped disclosure lines), shown above the note."""

    @property
    def label(self) -> str:
        return "attribution"


Source = NoteLines | LogLines | CommitRef | DiffLine | Attribution


@dataclass(frozen=True)
class CodeSite:
    kind: str  # key-made | key-sent | key-named (names the key, sends nothing) | request
    path: str
    line: int  # at HEAD
    text: str


# One pass over every line, lowered, for the words every pattern above needs (plain words: 14 times
# faster than the patterns' case-blind alternation, 0.9 s on 130k lines); the three patterns run only
# on the few lines it finds.
SITE_WORDS = re.compile(r"uuid|crypto\.random|randombytes|nanoid|createhash|idempotency|fetch|request|axios|undici")


def code_sites(lines: list[tuple[str, int, str]]) -> list[CodeSite]:
    """Code lines at HEAD (path, line, text), as the diff shows them → the sites, in file order,
    test files left out (they call the client; they do not send its requests)."""
    found = []
    wanted: dict[str, bool] = {}  # per path, not per line: a 130k-line file is one path
    for path, number, text in lines:
        if path not in wanted:
            wanted[path] = bool(CODE_FILE.search(path)) and not TEST_PATH.search(path)
        if not wanted[path] or len(text) > MAX_SITE_LINE or not SITE_WORDS.search(text.lower()):
            continue
        code = text.strip()
        if code.startswith(("//", "*", "/*")):
            continue  # a comment that names the header is not the code that sends it
        if code.startswith(("import ", "import{")) or _REQUIRE.search(code):
            continue  # importing createHash or fetch makes and sends nothing
        for kind, pattern in SITE_PATTERNS.items():
            if pattern.search(code):
                found.append(CodeSite(kind, path, number, code))
    return _tell_sends(found)


# A line naming the key as part of a request: a header or body field, the header's own name.
_IN_REQUEST = re.compile(r"\bheaders\s*:|\bbody\s*:|[\"']idempotency[-_ ]?key[\"']\s*[:,]", re.I)
# A line that declares, returns or defines the key rather than sending it.
_NOT_SENT = re.compile(r"^\s*(?:(?:export\s+)?(?:const|let|var)\s|return\b|(?:export\s+)?(?:async\s+)?function\b)")
# How many lines after a request's first line its options (headers, body) may run.
NEAR_REQUEST = 8


def _tell_sends(found: list[CodeSite]) -> list[CodeSite]:
    """A line naming the key sends it only inside a request: in the lines just after a request starts,
    or in a headers or body field. Any other line naming it (a declaration, a read, a return, a file
    write) is `key-named`, and said to be only that."""
    requests = [site for site in found if site.kind == "request"]

    def sends(site: CodeSite) -> bool:
        if _NOT_SENT.search(site.text):
            return False
        return bool(_IN_REQUEST.search(site.text)) or any(
            r.path == site.path and r.line <= site.line <= r.line + NEAR_REQUEST for r in requests
        )

    return [
        site if site.kind != "key-sent" or sends(site) else dataclasses.replace(site, kind="key-named")
        for site in found
    ]


@dataclass(frozen=True)
class Hint:
    text: str
    source: Source  # where it was seen, so the reviewer can check it: the UI goes there by its type

    @property
    def where(self) -> str:
        return self.source.label


@dataclass
class Inputs:
    """Plain data, so this module needs no git and no harness."""

    note_text: str
    commits: list[tuple[str, str]]  # (sha, subject), oldest first
    changed: dict[str, list[str]]  # sha -> paths
    verdicts: dict[str, dict] | None  # scenario name -> {verdict, distinct_keys, requests, charges_created, ...}
    conflicts: list[str]
    draft: tuple[str, int, int] | None  # (sha, added, surviving)
    test_runs: dict[str, str] | None = None  # sha -> "red" | "green" | "none", from the candidate's own tests
    sites: list[CodeSite] | None = None  # where the code makes and sends the key (code_sites)


def _note_lines(note: str, pattern: str) -> list[int]:
    regex = re.compile(pattern, re.I)
    return [number for number, line in enumerate(note.splitlines(), start=1) if regex.search(line)]


def _lines(numbers: list[int]) -> NoteLines:
    return NoteLines(tuple(numbers))


def gather(inputs: Inputs) -> dict[str, list[Hint]]:
    hints: dict[str, list[Hint]] = {
        key: []
        for key in (
            "found-defect",
            "key-scope",
            "evidence",
            "explanation",
            "blast-radius",
            "fixed-symptom",
            "deleted-model-work",
            "undisclosed-ai",
        )
    }
    note = inputs.note_text
    verdicts = inputs.verdicts

    # Found the defect: a test committed before the fix, and whether it went red.
    code_commits = [sha for sha, _ in inputs.commits if "checkout.mjs" in inputs.changed.get(sha, [])]
    test_commits = [sha for sha, _ in inputs.commits if any(TEST_PATH.search(p) for p in inputs.changed.get(sha, []))]
    order = {sha: i for i, (sha, _) in enumerate(inputs.commits)}
    if test_commits and code_commits:
        first_test = test_commits[0]
        later_fixes = [sha for sha in code_commits if order[sha] > order[first_test]]
        if later_fixes:
            hints["found-defect"].append(
                Hint(
                    f"a test was committed ({first_test[:7]}) before checkout.mjs changed again ({later_fixes[0][:7]})",
                    CommitRef(first_test),
                )
            )
        else:
            hints["found-defect"].append(
                Hint("tests were committed, but only after the last change to checkout.mjs", CommitRef(first_test))
            )
    elif not test_commits:
        hints["found-defect"].append(Hint("no test files in any commit", CommitRef()))
    if inputs.test_runs:
        reds = [sha for sha, colour in inputs.test_runs.items() if colour == "red"]
        greens = [sha for sha, colour in inputs.test_runs.items() if colour == "green"]
        if reds and greens and min(order.get(s, 0) for s in reds) < max(order.get(s, 0) for s in greens):
            hints["found-defect"].append(
                Hint("the candidate's own tests went red, then green (see the timeline)", CommitRef(reds[0]))
            )
    red_words = _note_lines(note, r"went red|\bfail(ed|ing|s)?\b|not ok\b|red\b")
    if red_words:
        hints["found-defect"].append(Hint("the note says a test failed first", _lines(red_words)))

    # Key scope: where the code makes and sends the key (first, so g lands on the code), then what
    # the gateway recorded.
    shown_sites: set[tuple[str, int]] = set()
    first_site = {
        kind: next((site for site in inputs.sites or [] if site.kind == kind), None)
        for kind in ("key-made", "key-sent", "key-named")
    }
    made, sent = first_site["key-made"], first_site["key-sent"]
    together = made is not None and sent is not None and (made.path, made.line) == (sent.path, sent.line)
    for site, what in (
        (made, "the key is made and sent on one line" if together else "the key is made"),
        (sent, "the key is sent"),
        (None if sent else first_site["key-named"], "the key is named (no request sends it there)"),
    ):
        if site and (site.path, site.line) not in shown_sites:
            shown_sites.add((site.path, site.line))
            hints["key-scope"].append(
                Hint(f"{what} at {site.path}:{site.line}: {site.text[:80]}", DiffLine(site.path, site.line))
            )
    if verdicts is None:
        hints["key-scope"].append(Hint("the harness has not run on this commit (r runs it)", LogLines()))
    else:
        first = verdicts.get("first-503")
        if first:
            requests = first.get("requests")
            hints["key-scope"].append(
                Hint(
                    f"first-503: {requests} request{'' if requests == 1 else 's'}, "
                    f"{first.get('distinct_keys')} distinct key(s): {_key_reading(first)}",
                    LogLines("first-503"),
                )
            )
        for name in ("lost-response", "restart"):
            result = verdicts.get(name)
            if result:
                hints["key-scope"].append(Hint(_retry_reading(name, result), LogLines(name)))
        two = verdicts.get("two-orders")
        if two and two.get("verdict") == "lost-order":
            hints["key-scope"].append(
                Hint("two orders of the same amount got one key: the second order was lost", LogLines("two-orders"))
            )

    # Evidence: raw stub output in the note.
    # Every quoted run, two on one line too ("before: {…}; after: {…}").
    runs = [(n, m.group(0)) for n, line in enumerate(note.splitlines(), start=1) for m in ARTICLE_LINE.finditer(line)]
    if not runs:
        hints["evidence"].append(Hint('no raw stub output ({"charges":…,"distinctKeys":…}) in the note', NoteLines()))
    else:
        # In the note's own order (which run came first is the note's to say); the lines are the source's.
        distinct = list(dict.fromkeys(text.replace(" ", "") for _, text in runs))
        kind = f"{len(distinct)} different runs, in its order" if len(distinct) > 1 else "one run"
        hints["evidence"].append(
            Hint(f"the note quotes {kind}: {', then '.join(distinct)}", _lines([n for n, _ in runs]))
        )
    passes = _note_lines(note, r"\bit passes\b|\bpasses\b|tests? (are )?green")
    if passes:
        hints["evidence"].append(Hint("the note says it passes", _lines(passes)))

    # Explanation: idempotency named, the restart gap explained.
    named = _note_lines(note, r"idempoten")
    hints["explanation"].append(Hint("names idempotency" if named else "does not name idempotency", _lines(named)))
    restart = _note_lines(note, r"restart|process (dies|died|crash)|killed|in[- ]memory|dies with the process")
    if restart:
        hints["explanation"].append(Hint("mentions the restart / in-memory key gap", _lines(restart)))

    # Blast radius: what else is unsafe.
    for label, pattern in (
        ("timeouts", r"time ?outs?|hang|abort"),
        ("partial writes", r"partial|disk|rename|crash"),
        ("duplicates", r"duplicate|double[- ]charg|twice|two charges"),
        ("key expiry", r"expir|window|24 ?h"),
        ("order identity", r"order id"),
    ):
        found = _note_lines(note, pattern)
        if found:
            hints["blast-radius"].append(Hint(f"mentions {label}", _lines(found)))
    if not hints["blast-radius"]:
        hints["blast-radius"].append(Hint("names nothing else that is unsafe", NoteLines()))

    # Failure-mode flags.
    if verdicts:
        for name in ("first-503", "always-503"):
            result = verdicts.get(name) or {}
            if result.get("verdict") == "dropped-payment":
                hints["fixed-symptom"].append(
                    Hint(f"{name}: the call resolved but no charge exists (a swallowed 503?)", LogLines(name))
                )
        storm = verdicts.get("always-503") or {}
        if storm.get("verdict") == "no-backoff":
            # The verdict reads the waits as a whole (a jittered wait drawn short is not it).
            hints["deleted-model-work"].append(
                Hint(
                    "always-503: no backoff between retries (none of the waits reached the floor)",
                    LogLines("always-503"),
                )
            )
    if inputs.draft:
        sha, added, surviving = inputs.draft
        if added:
            share = surviving / added
            hints["deleted-model-work"].append(
                Hint(f"{surviving} of the model draft's {added} lines survive at HEAD ({share:.0%})", CommitRef(sha))
            )
    for conflict in inputs.conflicts:
        hints["undisclosed-ai"].append(Hint(conflict, Attribution()))
    return hints


def _key_reading(result: dict) -> str:
    """What the first-503 run's keys say, read from what the gateway counted (never from the verdict
    alone: a client that sent nothing, or to the wrong place, has no key scope to speak of)."""
    requests, keys = result.get("requests") or 0, result.get("distinct_keys") or 0
    if not requests:
        return f"no request reached the gateway ({result.get('verdict')}): nothing to say of keys"
    if result.get("verdict") == "wrong-endpoint":
        return "no request reached POST /charge: nothing to say of keys"
    without = _without_key(result)
    if without:
        return NO_KEY_SENT + (f" on {without} of {requests} requests" if without < requests else "")
    if requests == 1:
        return "one request, no retry after the 503"
    if keys == 1:
        return "one key for all attempts"
    if keys == requests:
        return "a new key per attempt"
    return f"{keys} keys over {requests} attempts"


NO_KEY_SENT = "no idempotency key sent"


def _without_key(result: dict) -> int:
    """Requests that carried no key: counted by the harness, or, from an older result, none sent at all."""
    requests = result.get("requests") or 0
    if "requests_without_key" in result:
        return result.get("requests_without_key") or 0
    return requests if requests and not result.get("distinct_keys") else 0


def _retry_reading(name: str, result: dict) -> str:
    """What a retrying scenario says of the key, from what the gateway counted: a key is said to be
    reused or to survive only when one was sent, on every request, and the retry happened."""
    verdict, requests, keys = result.get("verdict"), result.get("requests") or 0, result.get("distinct_keys") or 0
    label = "lost response" if name == "lost-response" else name
    if "requests" not in result:
        return f"{label}: {verdict}"  # no counts: nothing to say of keys
    without = _without_key(result)
    if without:
        return f"{label}: {verdict} — {NO_KEY_SENT}" + (
            f" on {without} of {requests} requests" if without < requests else ""
        )
    if requests < 2:
        return f"{label}: {verdict} — " + ("no request after the restart" if name == "restart" else "no retry seen")
    if name == "restart":
        if keys == 1:
            return "the key survived a process restart (persisted)" + (
                "" if verdict == "ok" else f"; verdict {verdict}"
            )
        return f"restart: {verdict} — a new key after it: the key did not survive the restart"
    if keys == 1:
        return "a retry after a lost response reused the key" + ("" if verdict == "ok" else f"; verdict {verdict}")
    return f"lost response: {verdict} — {keys} keys over {requests} attempts"
