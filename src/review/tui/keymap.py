"""The reviewer's keymap (`keymap.toml`: binding id = keys), validated before the console starts: an
unknown binding id, a value that is not a key string, or a key given to two bindings live at once is an
error with their names, never ignored."""

from __future__ import annotations

import tomllib
from pathlib import Path

from textual.binding import Binding, BindingType
from textual.keys import REPLACED_KEYS, key_to_character

from review.support import paths


class KeymapError(Exception):
    pass


def types_text(key: str) -> bool:
    """A key a text box takes as the character it types (`j`, `R`, `slash`), not as a binding's."""
    character = key_to_character(REPLACED_KEYS.get(key, key))
    return character is not None and character.isprintable()


def reading_bindings(pane: str, top: str = "home", bottom: str = "end") -> list[BindingType]:
    """The keys that move through a pane read from top to bottom (j/k, space/b, `top`/`bottom`),
    with ids `PANE.down`, `PANE.page-down`, … so each pane's can be remapped on its own and help
    lists them (Textual's own scroll keys have no ids)."""
    return [
        Binding("j,down", "scroll_down", "Down", show=False, id=f"{pane}.down"),
        Binding("k,up", "scroll_up", "Up", show=False, id=f"{pane}.up"),
        Binding("space,pagedown", "page_down", "Page down", show=False, id=f"{pane}.page-down"),
        Binding("b,pageup", "page_up", "Page up", show=False, id=f"{pane}.page-up"),
        Binding(top, "scroll_home", "Top", show=False, id=f"{pane}.top"),
        Binding(bottom, "scroll_end", "Bottom", show=False, id=f"{pane}.bottom"),
    ]


# Keys a headed browser keeps for itself, whatever the page asks (a tab's console never sees them), and
# what the browser does with them instead. Each binding of ours on one of them has a second key.
BROWSER_KEEPS = {
    "ctrl+n": "opens a new window",
    "ctrl+t": "opens a new tab",
    "ctrl+w": "closes the tab",
    "ctrl+q": "quits the browser",
    "ctrl+tab": "goes to the next tab",
    "ctrl+shift+tab": "goes to the previous tab",
    "ctrl+pageup": "goes to the previous tab",
    "ctrl+pagedown": "goes to the next tab",
}


def browser_notes(rows: list[tuple[str, str, str, str]], key_display) -> list[str]:
    """For a console in a browser tab: each key of the help's rows (group, keys, action, ids) that the
    browser keeps, with the keys on the same row that do the same there."""
    kept = {key_display(Binding(key, "")): (key, what) for key, what in BROWSER_KEEPS.items()}
    notes = []
    for _group, keys, label, _ids in rows:
        shown = keys.split()
        for key in shown:
            if key in kept:
                others = [other for other in shown if other not in kept]
                instead = f"; {' or '.join(others)} does it here" if others else ""
                notes.append(f"{key} ({label}): the browser keeps it, it {kept[key][1]}{instead}")
    return notes


def declared_bindings() -> list[tuple[type, Binding]]:
    """Every binding with an id this console declares, with the class that declares it (the app, a
    screen or a widget)."""
    import importlib
    import pkgutil

    from review import tui

    found: list[tuple[type, Binding]] = []
    for module_info in pkgutil.walk_packages(tui.__path__, "review.tui."):
        module = importlib.import_module(module_info.name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module.__name__:
                for binding in value.__dict__.get("BINDINGS", []):
                    if isinstance(binding, Binding) and binding.id:
                        found.append((value, binding))
    return found


def known_binding_ids() -> set[str]:
    """Every binding id this console declares, on every screen and widget."""
    return {binding.id for _, binding in declared_bindings() if binding.id}


def _keys(keys: str) -> set[str]:
    return {key.strip() for key in keys.split(",") if key.strip()}


def clashes(remapped: dict[str, str]) -> list[str]:
    """Keys the keymap puts on two bindings of different actions that are live at once: declared by
    the same screen or widget, or one of them the app's own (live everywhere). Only one of the two
    would answer the key; the other would be lost without a word."""
    from textual.app import App

    declared = declared_bindings()
    found = []
    for at, (owner, binding) in enumerate(declared):
        for other_owner, other in declared[at + 1 :]:
            if binding.id not in remapped and other.id not in remapped:
                continue  # the console's own keys, as shipped
            if binding.action == other.action:
                continue  # two keys for one thing (q and ctrl+q both quit)
            if owner is not other_owner and not issubclass(owner, App) and not issubclass(other_owner, App):
                continue
            mine = _keys(remapped.get(binding.id or "", binding.key))
            theirs = _keys(remapped.get(other.id or "", other.key))
            for key in sorted(mine & theirs):
                found.append(f"{binding.id!r} and {other.id!r} are both on {key!r}")
    return found


def load(path: Path | None = None) -> dict[str, str]:
    """Binding id -> keys; {} when there is no keymap file. KeymapError says what is wrong."""
    path = path or paths.keymap_file()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise KeymapError(f"{path}: cannot be read ({error})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise KeymapError(f"{path}: not valid TOML ({error})") from None
    known = known_binding_ids()
    problems = []
    for binding_id, keys in data.items():
        if binding_id not in known:
            problems.append(f"unknown binding id {binding_id!r}")
        elif not isinstance(keys, str) or not keys.strip():
            problems.append(f'{binding_id!r}: keys must be a string such as "ctrl+r", not {keys!r}')
    if not problems:
        problems = clashes({str(k): str(v) for k, v in data.items()})
    if problems:
        raise KeymapError(f"{path}: " + "; ".join(problems) + " (`?` in the console lists every binding id)")
    return {str(k): str(v) for k, v in data.items()}
