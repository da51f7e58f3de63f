"""What the console observed that bears on each rubric signal. Pure: no I/O.

Evidence, not verdicts: every hint says what was seen and where (a harness scenario, a note
line, a commit), and the reviewer picks the tier. Nothing here ever chooses one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from review.core import note_words, scenarios
from review.core.code_reading import CodeReading, TimeoutSite
from review.core.note_words import Quote

CODE_FILE = re.compile(r"\.(?:[cm]?js|ts)$")
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


@dataclass(frozen=True)
class Code:
    """The client's code as a whole (nothing to point at: a key no line names, a key not followed)."""

    @property
    def label(self) -> str:
        return "code"


Source = NoteLines | LogLines | CommitRef | DiffLine | Attribution | Code


@dataclass(frozen=True)
class Hint:
    text: str
    source: Source  # where it was seen, so the reviewer can check it: the UI goes there by its type
    # What it matched in the note, line by line (note hints only).
    quotes: tuple[Quote, ...] = ()

    @property
    def where(self) -> str:
        return self.source.label


@dataclass
class Inputs:
    """Plain data, so this module needs no git and no harness."""

    note_text: str
    commits: list[tuple[str, str]]  # (sha, subject), oldest first
    changed: dict[str, list[str]]  # sha -> paths
    # scenario name -> {verdict, distinct_keys, requests, charges_created, limit_s, ...}
    verdicts: dict[str, dict] | None
    conflicts: list[str]
    draft: tuple[str, int, int] | None  # (sha, added, surviving)
    test_runs: dict[str, str] | None = None  # sha -> "red" | "green" | "none", from the candidate's own tests
    code: CodeReading | None = None  # what the code at HEAD says (code_reading), None: not read
    again: str = scenarios.CONSOLE_AGAIN  # how this view says a scenario is run again


def _mentions(note: str, topic: str, said: str | None = None) -> Hint | None:
    """A hint quoting the note's words of `topic` (note_words' lexicon), or None when it has none."""
    quotes = note_words.find(note, topic)
    if not quotes:
        return None
    what = said or f"mentions {note_words.LEXICON[topic][0]}"
    return Hint(f"{what}: {note_words.quoted(quotes)}", NoteLines(tuple(q.line for q in quotes)), tuple(quotes))


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
    failed = _mentions(note, "test-failed", "the note says a test failed")
    if failed:
        hints["found-defect"].append(failed)

    # Key scope: where the code makes and sends the key (first, so g lands on the code), then what
    # the gateway recorded.
    hints["key-scope"] += _code_hints(inputs.code)
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
        hints["key-scope"] += _window_hints(verdicts, inputs.code)
        # A hang seen on a loaded machine is said as what it was, not read as the client's.
        for name, result in verdicts.items():
            if result.get("hung_under_load"):
                said = scenarios.hung_under_load(result.get("load_average"), result.get("cores"), inputs.again)
                hints["key-scope"].append(Hint(f"{name}: {said}", LogLines(name)))

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
    passes = _mentions(note, "passes", "the note says it passes")
    if passes:
        hints["evidence"].append(passes)

    # Explanation: idempotency named, the restart gap explained.
    named = _mentions(note, "idempotency", "names idempotency")
    hints["explanation"].append(named or Hint("does not name idempotency", NoteLines()))
    restart = _mentions(note, "restart")
    if restart:
        hints["explanation"].append(restart)

    # Blast radius: what else is unsafe.
    for topic in ("timeouts", "partial-writes", "duplicates", "key-expiry", "order-identity"):
        found = _mentions(note, topic)
        if found:
            hints["blast-radius"].append(found)
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


def _code_hints(code: CodeReading | None) -> list[Hint]:
    """Where the key sent with the request is made (followed from the request, code_reading), where it
    is sent, and what could not be followed, said as such."""
    if code is None:
        return []
    sites = code.sites
    sent = next((site for site in sites if site.kind == "key-sent"), None)
    made = sorted(
        (site for site in sites if site.kind == "key-made"), key=lambda site: (site.how != "made", site.path, site.line)
    )
    hints = []
    for site in made[:3]:
        together = sent is not None and (site.path, site.line) == (sent.path, sent.line)
        what = "the key is made and sent on one line" if together else "the key is made"
        if site.how == "read":
            what = "the key is taken from a value read"
        elif site.how == "imported":
            what = "the key comes from a function of another file, called"
        hints.append(Hint(f"{what} at {site.path}:{site.line}: {site.text[:80]}", DiffLine(site.path, site.line)))
    shown = {(site.path, site.line) for site in made}
    if sent is not None and (sent.path, sent.line) not in shown:
        hints.append(
            Hint(f"the key is sent at {sent.path}:{sent.line}: {sent.text[:80]}", DiffLine(sent.path, sent.line))
        )
    unfollowed = [problem for problem in code.problems if "could not follow the key" in problem]
    for problem in unfollowed[:2]:
        hints.append(Hint(problem, DiffLine(sent.path, sent.line) if sent else Code()))
    named = next((site for site in sites if site.kind == "key-named"), None)
    if sent is None and named is not None:
        hints.append(
            Hint(
                f"the key is named at {named.path}:{named.line} (no request sends it there): {named.text[:80]}",
                DiffLine(named.path, named.line),
            )
        )
    if sent is None and named is None:
        unread = [problem for problem in code.problems if "not read" in problem or "does not parse" in problem]
        said = "no line of the code names an idempotency key (header or body field)"
        hints.append(Hint(said + (f"; but {'; '.join(unread[:2])}" if unread else ""), Code()))
    return hints


def duration(ms: float) -> str:
    """60 s, 10 min, 500 ms, 1.5 s: a timeout's length as a reviewer reads it."""
    if ms < 1000:
        return f"{ms:g} ms"
    if ms >= 120_000 and ms % 60_000 == 0:
        return f"{ms / 60_000:g} min"
    return f"{ms / 1000:g} s"


def _window_hints(verdicts: dict[str, dict], code: CodeReading | None) -> list[Hint]:
    """A `hung` scenario beside the timeouts the code sets (read from the code, labelled so): one
    longer than the scenario's wait is a timeout the harness could not see end."""
    hints = []
    for name, result in verdicts.items():
        if result.get("verdict") != "hung" or code is None:
            continue
        limit = result.get("limit_s")
        waits = f"the scenario waits {limit:g} s" if isinstance(limit, (int, float)) else "the scenario's limit"
        if not code.timeouts:
            hints.append(Hint(f"{name}: hung — no timeout found in the code; {waits}", LogLines(name)))
        for site in _longest_first(code.timeouts)[:2]:
            where = f"read from the code, {site.path}:{site.line}"
            if site.ms is None:
                said = f"a timeout is set ({site.how}; its length is not a number the file gives; {where})"
            else:
                length = duration(site.ms)
                article = "an" if length.startswith("8") or length.split()[0] in ("11", "18") else "a"
                said = f"{article} {length} timeout is set ({site.how}, {where})"
                if isinstance(limit, (int, float)) and site.ms <= limit * 1000:
                    waits = f"within the scenario's {limit:g} s, yet the call did not end"
            hints.append(Hint(f"{name}: hung — {said}; {waits}", DiffLine(site.path, site.line)))
    return hints


def _longest_first(sites: list[TimeoutSite]) -> list[TimeoutSite]:
    return sorted(sites, key=lambda site: -(site.ms if site.ms is not None else -1))


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
