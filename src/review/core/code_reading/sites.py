"""What the code reading finds: the sites (key made, sent, named; the request), the timeouts, and
what could not be read or followed. Pure."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CodeSite:
    kind: str  # key-made | key-sent | key-named (names the key, sends nothing) | request
    path: str
    line: int  # at HEAD
    text: str
    # key-made: "made" (a call, a literal, a template: the value is made there), "read" (a property
    # or a destructuring of something else, such as a file read back: the value is taken there) or
    # "imported" (a call of a function from another file of the submission: made there).
    how: str = ""


@dataclass(frozen=True)
class TimeoutSite:
    """A timeout the code sets, read from the code: how, its length when it can be read, and where."""

    path: str
    line: int
    text: str
    how: str  # AbortSignal.timeout | setTimeout that aborts | a `timeout` option | a socket timeout
    ms: float | None  # None: set, but its length is not a number this file gives


@dataclass
class CodeReading:
    sites: list[CodeSite] = field(default_factory=list)
    timeouts: list[TimeoutSite] = field(default_factory=list)
    # What could not be read or followed, said as such (a file too large, a key from another file…).
    problems: list[str] = field(default_factory=list)

    def extend(self, other: CodeReading) -> None:
        self.sites += other.sites
        self.timeouts += other.timeouts
        self.problems += other.problems
