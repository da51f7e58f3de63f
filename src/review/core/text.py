"""One sanitiser for every piece of untrusted text.

Submissions are hostile: a note, a commit message, an author name, a file name or a line
the candidate's program prints may carry terminal escapes (OSC 52 writes the reviewer's
clipboard over SSH, CSI 2J clears the screen), C1 controls, bidi overrides that make code
read differently from how it runs, or Textual markup such as ``[@click=app.quit]``.

Rich and Textual pass ESC straight to the terminal even with markup off, so everything is
cleaned here, once, at ingestion; this module returns plain strings, and the TUI shows them as
``Content`` (``review.tui.display``), never parsed as markup.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

# C0 controls except TAB and LF, DEL, and the C1 range (0x9B is a one-byte CSI, 0x9D an OSC).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Everything that draws nothing or changes how its neighbours draw, shown as <U+XXXX>:
# bidi embeddings, overrides, isolates and marks (Trojan Source, CVE-2021-42574); zero-width
# characters; Unicode's whole Default_Ignorable_Code_Point set (the soft hyphen, the Hangul fillers
# U+115F U+1160 U+3164 U+FFA0 that pass for spaces, the Mongolian vowel separator, variation
# selectors, invisible operators U+2061–2064, tag characters U+E0000–E0FFF); other format characters
# (Arabic number signs, interlinear annotations); and line and paragraph separators, which break
# layout like a newline would.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2"
    "\u2028\u2029\u0085\U000110bd\U000110cd\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]"
)
# Code points a terminal has no agreed width for (unassigned, private use, lone surrogates): a
# different width from the one the layout assumed would push text over a border.
_UNSURE_WIDTH = frozenset({"Cn", "Co", "Cs", "Cf"})  # Cf: any format character the list above missed

ESC_GLYPH = "\u241b"  # ␛ SYMBOL FOR ESCAPE
NEWLINE_GLYPH = "\u23ce"  # ⏎, for single-line fields such as subjects and names


def _show_control(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\x1b":
        return ESC_GLYPH
    return f"\\x{ord(char):02x}"


def _show_codepoint(match: re.Match[str]) -> str:
    return f"<U+{ord(match.group()):04X}>"


# Candidate-blind review (core.anonymity.Masker.mask): set for the whole session by the console,
# so every text it shows passes through the same mask; None shows names.
_mask: Callable[[str], str] | None = None


def set_mask(mask: Callable[[str], str] | None) -> None:
    global _mask
    _mask = mask


def masking() -> bool:
    return _mask is not None


def safe_text(text: str) -> str:
    """Return `text` with every control made visible and every invisible trick flagged (and, in a
    candidate-blind session, every identity of a candidate shown as its alias).

    Tabs and newlines are kept: they are layout, not commands.
    """
    text = visible(text)
    mask = _mask
    return mask(text) if mask is not None else text


def visible(text: str) -> str:
    """`safe_text` without the candidate-blind mask: for names the core keeps (a tool as a candidate
    wrote it), which the views mask when they show them."""
    text = _CONTROL.sub(_show_control, text)
    text = _INVISIBLE.sub(_show_codepoint, text)
    if not text.isascii():
        text = "".join(f"<U+{ord(c):04X}>" if unicodedata.category(c) in _UNSURE_WIDTH else c for c in text)
    return text


def safe_line(text: str, limit: int = 500) -> str:
    """Sanitise a field meant to be one line (a name, a subject, a path, a key).

    Newlines become a visible glyph so a crafted name cannot fake extra rows.
    """
    text = safe_text(text).replace("\n", NEWLINE_GLYPH).replace("\t", " ")
    return clip(text, limit)


# What the headless commands print keeps to a terminal's 80 columns; --json has every field whole.
WIDTH = 80


def wrapped(text: str, first: str = "", rest: str = "  ", width: int = WIDTH, long_words: bool = True) -> list[str]:
    """One sanitised paragraph, wrapped at `width` columns under its indents (never an empty list).
    `long_words=False` keeps a word longer than a line whole (a path a reader copies)."""
    import textwrap  # here: the commands that never wrap (a warm triage's JSON) do not load it

    return textwrap.wrap(
        safe_line(text, 2000),
        width,
        initial_indent=first,
        subsequent_indent=rest,
        break_on_hyphens=False,
        break_long_words=long_words,
    ) or [first.rstrip()]


def decode(data: bytes, limit: int | None = None) -> str:
    """Decode untrusted bytes (invalid UTF-8 shown as U+FFFD) and sanitise them."""
    text = data.decode("utf-8", errors="replace")
    if limit is not None:
        text = clip(text, limit)
    return safe_text(text)


def clip(text: str, limit: int) -> str:
    """Cut `text` to `limit` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"… [{len(text) - limit} more characters]"


def fit(text: str, width: int) -> str:
    """`text` in at most `width` characters, its end marked "…" when cut (a row of a table)."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def clip_lines(text: str, max_lines: int) -> str:
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return text
    return "\n".join(lines[:max_lines]) + f"\n… [{len(lines) - max_lines} more lines]"


def is_clean(text: str) -> bool:
    """True when `text` holds nothing the sanitiser would change (for tests and asserts)."""
    return safe_text(text) == text
