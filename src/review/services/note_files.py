"""The candidate's own words as files of the submission: the note, found by its name and decoded (a
note saved as UTF-16, with a byte-order mark, or not valid UTF-8 is still shown, and said so), refused
when it is a link, a folder or binary; and a disclosure written in README.md instead, read as the note
is. Raw text, untrusted: sanitised where it is shown."""

from __future__ import annotations

from dataclasses import dataclass

from review import gitsafe
from review.core import attribution, diff
from review.core.text import safe_line

README_NAMES = ("README.md", "readme.md", "Readme.md")
NOTE_NAMES = ("NOTE.md", "note.md", "NOTES.md", "Note.md", "NOTE.txt", "NOTE")
NOTE_LIMIT = 256 * 1024


@dataclass
class Note:
    path: str | None
    # raw, untrusted: sanitise before display.
    text: str
    # missing, binary, not UTF-8, cut.
    problem: str | None = None


def read_note(repo: gitsafe.SafeRepo, rev: str = "HEAD") -> Note:
    # A name that is there but no file (a folder, a submodule): said if no note is found.
    odd = None
    for name in NOTE_NAMES:
        data = repo.show(rev, name, limit=NOTE_LIMIT + 1)
        if data is None:
            mode = repo.mode(rev, name) if odd is None else None
            if mode is not None:
                odd = f"{name} is a folder, not a file" if mode == "40000" else f"{name} is a submodule, not a file"
            continue
        if repo.mode(rev, name) == SYMLINK_MODE:
            # Its blob is the path it points to: never the note, never followed.
            return Note(
                name,
                "",
                f"{name} is a symbolic link (to {safe_line(data.decode('utf-8', 'replace'), 200)}), "
                "not a file; not followed, so there is no note to show",
            )
        problems = []
        if len(data) > NOTE_LIMIT:
            data = data[:NOTE_LIMIT]
            problems.append(f"cut at {NOTE_LIMIT // 1024} KiB")
        text, problem = decode_note(data, name)
        if text is None:
            return Note(name, "", problem)
        return Note(name, text, "; ".join([*problems, *([problem] if problem else [])]) or None)
    return Note(
        None,
        "",
        f"no NOTE.md at HEAD: {odd}, so there is no note to show"
        if odd
        else "no NOTE.md at HEAD: the candidate wrote no note",
    )


SYMLINK_MODE = "120000"
_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


def decode_note(data: bytes, name: str) -> tuple[str | None, str | None]:
    """(the note's text, what was odd about it), or (None, why it is not shown). A note saved by
    Windows tools may be UTF-16 with a byte-order mark (NUL bytes in every other place), or UTF-8
    with one (which would hide a heading on the note's first line)."""
    if data.startswith(_UTF16_MARKS):
        return data.decode("utf-16", errors="replace"), "written in UTF-16 (shown decoded)"
    if b"\0" in data:
        return None, f"{name} is binary (it holds NUL bytes); not shown"
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), "not valid UTF-8: undecodable bytes shown as �"


def readme_disclosure(repo: gitsafe.SafeRepo, diff: diff.Diff) -> attribution.NoteDisclosure | None:
    """A candidate who wrote the disclosure in README.md instead of the note: read as the note is
    (a section about AI use, a labelled paragraph, disclosure sentences; never a tool merely listed or
    linked), when the candidate changed README.md (the starter's own words are not a disclosure)."""
    changed = _changed_text(repo, diff, README_NAMES)
    if changed is None:
        return None
    name, text = changed
    found = attribution.parse_note(text, document=True)
    if not found.entries:
        return None
    for entry in found.entries:
        entry.file = name
    found.heading = f"{found.heading} (in {name})" if found.heading else None
    return found


def _changed_text(repo: gitsafe.SafeRepo, diff: diff.Diff, names: tuple[str, ...]) -> tuple[str, str] | None:
    """(name, text) at HEAD of the first of `names` the candidate added lines to (the starter's own
    words disclose nothing); None when there is none, or it is a link or binary."""
    for name in names:
        changed = diff.file(name)
        if changed is None or not changed.added:
            continue
        data = repo.show("HEAD", name, limit=NOTE_LIMIT)
        if data is None or repo.mode("HEAD", name) == SYMLINK_MODE:
            return None
        text, _ = decode_note(data, name)
        return None if text is None else (name, text)
    return None


def declaration_entries(repo: gitsafe.SafeRepo, diff: diff.Diff) -> list[attribution.NoteEntry]:
    """What an AI-DECLARATION.md the candidate added or changed says, as note entries (its levels per
    file, its own notes' sentences after them); none when there is no such file in the diff. The front
    matter names no tool: the one its notes name, else an unnamed assistant (two or more named: which
    wrote what is not said, and the entries say so)."""
    from review.core import share
    from review.core.attribution import ai_declaration
    from review.core.attribution.note import affirmed_tool

    changed = _changed_text(repo, diff, ai_declaration.FILE_NAMES)
    if changed is None:
        return []
    name, text = changed
    found = ai_declaration.parse_declaration(text)
    body = attribution.parse_note(found.body, document=True)
    tools = body.tools
    if len(tools) > 1:
        found.problems.append(
            (found.body_line, f"its notes name {', '.join(tools)}: which wrote what the levels cover is not said")
        )
    tool = tools[0] if len(tools) == 1 else ai_declaration.UNNAMED
    files = [
        f.path
        for f in diff.files
        if f.status != "deleted" and f.path != name and share.exclusion(f.path, f.binary) is None
    ]
    entries = ai_declaration.declaration_entries(found, files, tool, name)
    # The notes' sentence that names the levels' tool ("Claude Code was used to create …") has said
    # what it has to say once the levels map files to that tool: it is not also a line left unmapped.
    mapped = any(entry.kind == "file" and entry.tool == tool for entry in entries)
    said = [
        entry
        for entry in body.entries
        if not (mapped and entry.kind == "prose" and (entry.tool or affirmed_tool(entry.raw)) == tool)
    ]
    for entry in said:
        entry.line_no += found.body_line - 1
        entry.file = name
    return entries + said
