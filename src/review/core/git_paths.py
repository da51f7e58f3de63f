"""git's quoted paths (core.quotePath): a name with non-ASCII or control characters is written
`"caf\\303\\251.mjs"` in diffs, logs and listings. Pure, and light to import: the git layer reads
listings with it where no diff is parsed (a warm triage)."""

from __future__ import annotations

# The escapes git writes, and the byte each stands for.
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote_path(quoted: str) -> str:
    """git's C-style quoted path (core.quotePath): `"caf\\303\\251.mjs"` → `café.mjs`, so a
    non-ASCII name matches the note and blame. Linear; a malformed escape is kept as written."""
    out = bytearray()
    index = 0
    while index < len(quoted):
        char = quoted[index]
        if char == "\\" and index + 1 < len(quoted):
            following = quoted[index + 1]
            octal = quoted[index + 1 : index + 4]
            if len(octal) == 3 and all(c in "01234567" for c in octal):
                out.append(int(octal, 8) & 0xFF)
                index += 4
                continue
            if following in _ESCAPES:
                out.append(_ESCAPES[following])
                index += 2
                continue
        out += char.encode("utf-8", "surrogatepass")
        index += 1
    return out.decode("utf-8", "replace")
