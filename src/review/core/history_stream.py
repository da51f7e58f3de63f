"""What each line of the history's patch stream says, for the replay (core.line_origins). Pure.

The stream is one ``git log --topo-order --reverse -m -p -U0 -M`` with marks of our own: a
``\\0children <commit> <child>…`` line per commit first, then per commit a ``\\0commit <commit> <tree>
<parents…>`` line and its patch (a merge: one per parent it differs from). A patch is sections, one
per file: ``diff --git a/P b/P``, header lines (``---``/``+++``, renames, modes, binary), then -U0
hunks. Here are the marks, the header lines' reading and the hunk counts; the replay keeps the state.
"""

from __future__ import annotations

from review.core.diff import HUNK_HEADER
from review.core.git_paths import unquote_path

COMMIT_MARK = b"\x00commit "  # then the commit, its tree and its parents
CHILDREN_MARK = b"\x00children "  # before the patches: a commit and its children (git rev-list --children)
DIFF_MARK = b"diff --git "


def hunk_counts(line: bytes) -> tuple[int, int, int, int] | None:
    """Old start, old count, new start, new count of a hunk header (a count git leaves out is 1)."""
    match = HUNK_HEADER.match(line)
    if match is None:
        return None
    old_start, old_count, new_start, new_count = match.groups()[:4]
    return (
        int(old_start),
        1 if old_count is None else int(old_count),
        int(new_start),
        1 if new_count is None else int(new_count),
    )


def file_path(raw: bytes, prefix: bytes) -> str | None:
    """The path of a ``---``/``+++``/``rename`` line's rest, `prefix` (a/, b/) taken off; None for /dev/null."""
    text = raw.rstrip(b"\n")
    if text.endswith(b"\t"):
        text = text[:-1]  # git ends a name holding a space with a tab, for patch(1)
    if text == b"/dev/null":
        return None
    decoded = text.decode("utf-8", "surrogateescape")
    if decoded.startswith('"') and decoded.endswith('"'):
        decoded = unquote_path(decoded[1:-1])
    return decoded[len(prefix) :] if decoded.startswith(prefix.decode()) else decoded


def header_path(rest: bytes) -> str | None:
    """P from `a/P b/P` (or the quoted `"a/P" "b/P"`); None when the two sides differ (a rename,
    which names its paths on lines of its own)."""
    text = rest.rstrip(b"\n").decode("utf-8", "surrogateescape")
    if text.startswith('"'):
        end = 1
        while end < len(text) and text[end] != '"':
            end += 2 if text[end] == "\\" else 1
        first = unquote_path(text[1:end])
        return first[2:] if first.startswith("a/") else None
    if (len(text) - 5) % 2:
        return None
    half = (len(text) - 5) // 2
    path = text[2 : 2 + half]
    return path if text == f"a/{path} b/{path}" else None


class SectionHead:
    """One file's section: what its ``diff --git`` line and its header lines name."""

    __slots__ = ("header_path", "old_path", "new_path", "rename_from", "rename_to", "binary", "created", "deleted")

    def __init__(self, diff_line: bytes) -> None:
        # From "diff --git a/P b/P": a binary section has no ---/+++ lines.
        self.header_path = header_path(diff_line[len(DIFF_MARK) :])
        self.old_path: str | None = None
        self.new_path: str | None = None
        self.rename_from: str | None = None
        self.rename_to: str | None = None
        self.binary = False
        self.created = self.deleted = False  # "new file mode", "deleted file mode"

    def read(self, line: bytes) -> None:
        """A header line (any other, `index`, modes, similarity, says nothing the replay needs)."""
        first = line[:1]
        if first == b"-":
            if line.startswith(b"--- "):
                self.old_path = file_path(line[4:], b"a/")
        elif first == b"+":
            if line.startswith(b"+++ "):
                self.new_path = file_path(line[4:], b"b/")
        elif first == b"r":
            if line.startswith(b"rename from "):
                self.rename_from = file_path(line[12:], b"")
            elif line.startswith(b"rename to "):
                self.rename_to = file_path(line[10:], b"")
        elif first == b"B" or first == b"G":
            self.binary = self.binary or line.startswith((b"Binary files ", b"GIT binary patch"))
        elif first == b"n":
            self.created = self.created or line.startswith(b"new file mode ")
        elif first == b"d":
            self.deleted = self.deleted or line.startswith(b"deleted file mode ")

    @property
    def old_side(self) -> str | None:
        """The path the old side had: named by `---`, else (no hunks) by a rename."""
        return self.old_path or self.rename_from

    @property
    def paths(self) -> tuple[str | None, ...]:
        return (self.header_path, self.old_path, self.new_path, self.rename_from, self.rename_to)
