"""The trailer block git reads at the end of a commit message (`git interpret-trailers`, `git log
--format=%(trailers)`), by git's own rules: its last paragraph, every line a trailer or a
continuation, or git's own trailers among at least a quarter of them; comments and a scissors line
left out. Pure."""

from __future__ import annotations

import re

# git's own trailer prefixes
GIT_GENERATED = ("Signed-off-by: ", "(cherry picked from commit ")
COMMENT = "#"
# git's own isspace (not C's, nor Unicode's wider idea of space)
SPACE = " \t\n\r"
# git cuts the message here
SCISSORS = "# ------------------------ >8 ------------------------"


def _starts_spaced(line: str) -> bool:
    return line[:1] in tuple(SPACE) if line else False


# git's separator search: a key of letters, digits and dashes from the line's start, then maybe
# spaces or tabs (never first), then the colon.
_SEPARATOR = re.compile(r"[A-Za-z0-9-]*[ \t]*:")


def _separator(line: str) -> int:
    """Where the key's `:` is, as git finds it; -1 when the line is no `key: value`."""
    found = _SEPARATOR.match(line) if line[:1] not in (" ", "\t") else None
    return found.end() - 1 if found else -1


def _ignored_tail(lines: list[str], last_ends: bool) -> int:
    """Where the message's trailing comments and blank lines (and git's old `Conflicts:` block)
    begin: git reads trailers above them."""
    if not any(line.startswith(COMMENT) or line == "Conflicts:" for line in lines):
        # most messages: only trailing empty lines to leave out
        end = len(lines)
        while end and lines[end - 1] == "":
            end -= 1
        return end
    start = None
    in_conflicts = False
    cutoff = next((index for index, line in enumerate(lines) if line == SCISSORS), len(lines))
    for index, line in enumerate(lines[:cutoff]):
        if line.startswith(COMMENT) or line == "":
            start = index if start is None else start
        elif line == "Conflicts:" and (index + 1 < len(lines) or last_ends):
            in_conflicts = True
            start = index if start is None else start
        elif in_conflicts and line.startswith("\t"):
            pass
        elif start is not None:
            start, in_conflicts = None, False
    return cutoff if start is None else start


def trailer_block(message: str) -> tuple[int, list[tuple[str, str, str]]]:
    """The trailer block git reads (trailer.c, with no patch divider as for a commit's own
    message): the last paragraph after the title whose lines are all trailers or their
    continuations — or hold a git-generated trailer and at least a quarter trailers. Returns the
    block's first line (len(lines) when there is none) and its (lower-case key, value, raw line),
    continuation lines unfolded. Linear in the message's length."""
    lines = message.split("\n")
    if ":" not in message:
        # no line can be a trailer (git's own prefix lines hold no key either)
        return len(lines), []
    last_ends = bool(lines) and lines[-1] == ""
    if last_ends:
        lines.pop()
    end = _ignored_tail(lines, last_ends)
    title_end = end
    for index in range(end):
        if lines[index].startswith(COMMENT):
            continue
        if not lines[index].strip(SPACE):
            title_end = index
            break
    start = end
    only_spaces, recognized, trailer_lines, other_lines, maybe_continued = True, False, 0, 0, 0
    for index in range(end - 1, title_end - 1, -1):
        line = lines[index]
        if line.startswith(COMMENT):
            other_lines += maybe_continued
            maybe_continued = 0
            continue
        if not line.strip(SPACE):
            if only_spaces:
                continue
            other_lines += maybe_continued
            if (recognized and trailer_lines * 3 >= other_lines) or (trailer_lines and not other_lines):
                start = index + 1
            break
        only_spaces = False
        if line.startswith(GIT_GENERATED):
            trailer_lines += 1
            maybe_continued = 0
            recognized = True
            continue
        if _separator(line) >= 1 and not _starts_spaced(line):
            trailer_lines += 1
            maybe_continued = 0
        elif _starts_spaced(line):
            maybe_continued += 1
        else:
            other_lines += 1 + maybe_continued
            maybe_continued = 0
    found: list[tuple[str, str, str]] = []
    last_is_trailer = False
    for line in lines[start:end]:
        if line.startswith(COMMENT):
            # a comment between them: what follows continues nothing
            last_is_trailer = False
            continue
        if last_is_trailer and _starts_spaced(line):
            key, value, raw = found[-1]
            found[-1] = (key, f"{value} {line.strip(SPACE)}".strip(SPACE), f"{raw}\n{line}")
            continue
        at = _separator(line)
        last_is_trailer = at >= 1
        if last_is_trailer:
            found.append((line[:at].strip(SPACE).lower(), line[at + 1 :].strip(SPACE), line))
    return start, found


def trailers(message: str) -> list[tuple[str, str, str]]:
    """(lower-case key, value, raw line) for every trailer git reads in the message."""
    return trailer_block(message)[1]
