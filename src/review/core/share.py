"""Which added lines the AI share counts: code. Not the note and other prose, lockfiles, vendored or
generated files (known folders, and `.gitattributes`' linguist-generated / linguist-vendored), binary
files. Each file left out says why, so the reviewer sees why the share is what it is. Of what is
counted, lines from the base (the starter's code moved or copied) are not the submission's; the rest
is the AI's, the person's or unknown (`Totals`). Pure."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import NamedTuple

PROSE = (".md", ".markdown", ".txt", ".rst", ".adoc", ".org")
LOCKFILES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "bun.lockb",
        "deno.lock",
        "Cargo.lock",
        "poetry.lock",
        "Pipfile.lock",
        "uv.lock",
        "Gemfile.lock",
        "composer.lock",
        "go.sum",
        "mix.lock",
        "packages.lock.json",
    }
)
VENDORED_DIRS = frozenset(
    {
        "node_modules",
        "vendor",
        "vendored",
        "third_party",
        "third-party",
        "dist",
        "build",
        "bower_components",
        ".yarn",
        "coverage",
        ".agent-trace",
    }
)
SETTINGS = frozenset({".gitattributes", ".gitignore", ".gitmodules", ".editorconfig", ".npmrc", ".nvmrc"})
NOTE_NAMES = frozenset({"note", "notes", "readme", "changelog", "license", "licence", "ai-declaration"})


def linguist_patterns(gitattributes: str) -> list[tuple[str, str]]:
    """(pattern, why) for lines marking files linguist-generated or linguist-vendored (set or =true)."""
    found = []
    for line in gitattributes.splitlines()[:5000]:
        parts = line.split()
        if len(parts) < 2 or parts[0].startswith("#"):
            continue
        for attribute in parts[1:]:
            name, _, value = attribute.partition("=")
            if name in ("linguist-generated", "linguist-vendored") and value in ("", "true", "set"):
                found.append((parts[0], f"marked {name} in .gitattributes"))
    return found


def _matches(pattern: str, path: str) -> bool:
    pattern = pattern.lstrip("/")
    if pattern.endswith("/"):
        pattern += "**"
    if "/" not in pattern.rstrip("*"):
        return fnmatch.fnmatchcase(PurePosixPath(path).name, pattern) or fnmatch.fnmatchcase(path, pattern)
    return fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(path, pattern.replace("/**", "/*"))


def exclusion(path: str, binary: bool, patterns: Sequence[tuple[str, str]] = ()) -> str | None:
    """Why this file's added lines are not counted in the share, or None when they are (code)."""
    pure = PurePosixPath(path)
    if binary:
        return "binary"
    if pure.name in LOCKFILES:
        return "lockfile"
    if pure.name in SETTINGS:
        return "repository settings"
    if any(part in VENDORED_DIRS for part in pure.parts[:-1]):
        return "vendored or built folder"
    if (
        pure.suffix.lower() in PROSE
        or pure.stem.lower() in NOTE_NAMES
        and not pure.suffix.lower().endswith(("js", "ts", "py"))
    ):
        return "prose: the note, a README"
    for pattern, why in patterns:
        if _matches(pattern, path):
            return why
    if pure.name.endswith((".min.js", ".map")):
        return "generated (minified or a source map)"
    return None


class Totals(NamedTuple):
    added: int
    ai_added: int
    code_added: int  # the share counts code only: not prose, lockfiles, vendored or generated files
    code_ai_added: int
    code_person_added: int = 0
    code_base_added: int = 0  # added lines of code from the base: not written in the submission

    @property
    def counted(self) -> int:
        """The lines of code the share counts: added in the range, and written there (not from the base)."""
        return self.code_added - self.code_base_added

    @property
    def code_unknown_added(self) -> int:
        """Counted lines no source speaks for."""
        return self.counted - self.code_ai_added - self.code_person_added

    def _of_counted(self, lines: int) -> float | None:
        return lines / self.counted if self.counted else None

    @property
    def ai_share(self) -> float | None:
        """AI-attributed lines ÷ the counted lines of code (added in the range and written there)."""
        return self._of_counted(self.code_ai_added)

    @property
    def person_share(self) -> float | None:
        return self._of_counted(self.code_person_added)

    @property
    def unknown_share(self) -> float | None:
        return self._of_counted(self.code_unknown_added)
