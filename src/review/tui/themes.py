"""Themes as TOML files, validated into ``textual.theme.Theme`` objects.

Bundled themes live in the top-level ``themes/`` folder; a reviewer's own go in
``$XDG_CONFIG_HOME/review/themes/``. A bad file is reported with its path and the field at
fault, and never stops the console from starting.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

from review.support import paths
from review.tui import DEFAULT_THEME  # noqa: F401  (re-exported: the console's default)

# The console's own theme variables. A theme may set them; for one that does not (Textual's
# built-in themes, the ANSI ones included) they are derived from its colours: (colour, share over
# the background). CSS variables cannot refer to other variables, so they are computed here.
APP_VARIABLES: dict[str, tuple[str, float]] = {
    "ai-hunk-background": ("secondary", 0.30),
    "ai-gutter": ("secondary", 1.0),
    "diff-added-background": ("success", 0.15),
    "diff-removed-background": ("error", 0.15),
    # The changed words inside a changed line: the line's own colour, stronger (and underlined).
    "diff-added-word-background": ("success", 0.40),
    "diff-removed-word-background": ("error", 0.40),
}


# On a 16-colour terminal (TERM=screen) or with an ANSI theme, subtle blends collapse into one
# palette entry (AI, added and context lines on one background): use distinct palette entries.
LOW_COLOUR_VARIABLES = {
    "ai-hunk-background": "ansi_magenta",
    "ai-gutter": "ansi_bright_white",
    "diff-added-background": "ansi_green",
    "diff-removed-background": "ansi_red",
    "diff-added-word-background": "ansi_bright_green",
    "diff-removed-word-background": "ansi_bright_red",
}


def with_app_variables(variables: dict[str, str], low_colour: bool = False) -> dict[str, str]:
    """`variables` plus any of the console's own that the theme left out."""
    result = dict(variables)
    if low_colour:
        result.update(LOW_COLOUR_VARIABLES)
    for name, (colour, share) in APP_VARIABLES.items():
        if name in result:
            continue
        value = variables.get(colour, "magenta")
        try:
            over, under = Color.parse(value), Color.parse(variables.get("background", "black"))
        except ColorParseError:
            result[name] = value
            continue
        if share >= 1.0 or over.ansi is not None or under.ansi is not None:
            result[name] = value  # ANSI colours: the terminal's palette, unblended
        else:
            result[name] = under.blend(over, share).hex
    return result


_COLOR_FIELDS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
_OTHER_FIELDS = {"name": str, "dark": bool, "luminosity_spread": float, "text_alpha": float, "variables": dict}


class ThemeError(Exception):
    def __init__(self, path: Path, field_name: str | None, message: str) -> None:
        where = f"{path}" + (f", field {field_name!r}" if field_name else "")
        super().__init__(f"{where}: {message}")
        self.path = path
        self.field = field_name


def bundled_dir() -> Path:
    return paths.bundled_themes_dir()


def user_dir() -> Path:
    return paths.user_themes_dir()


def parse_theme(path: Path) -> Theme:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ThemeError(path, None, "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise ThemeError(path, None, f"not valid TOML ({error})") from None
    for key, value in data.items():
        if key in _COLOR_FIELDS:
            _check_color(path, key, value)
        elif key in _OTHER_FIELDS:
            expected = _OTHER_FIELDS[key]
            ok = (
                isinstance(value, (int, float)) and not isinstance(value, bool)
                if expected is float
                else isinstance(value, expected)
            )
            if not ok:
                raise ThemeError(path, key, f"expected {expected.__name__}, got {type(value).__name__}")
        else:
            known = ", ".join(sorted([*_COLOR_FIELDS, *_OTHER_FIELDS]))
            raise ThemeError(path, key, f"unknown field (known: {known})")
    if "name" not in data or not data["name"].strip():
        raise ThemeError(path, "name", "missing; every theme needs a name")
    if "primary" not in data:
        raise ThemeError(path, "primary", "missing; Textual needs at least the primary colour")
    variables = data.get("variables", {})
    for key, value in variables.items():
        if key not in APP_VARIABLES:
            raise ThemeError(path, f"variables.{key}", f"unknown variable (known: {', '.join(APP_VARIABLES)})")
        _check_color(path, f"variables.{key}", value)
    fields = {k: v for k, v in data.items() if k != "variables"}
    if "luminosity_spread" in fields:
        fields["luminosity_spread"] = float(fields["luminosity_spread"])
    if "text_alpha" in fields:
        fields["text_alpha"] = float(fields["text_alpha"])
    return Theme(**fields, variables=dict(variables))


def _check_color(path: Path, key: str, value: object) -> None:
    if not isinstance(value, str):
        raise ThemeError(path, key, f"expected a colour string, got {type(value).__name__}")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeError(path, key, f"{value!r} is not a colour (try '#RRGGBB' or a CSS name)") from None


@dataclass
class ThemeLoad:
    themes: dict[str, Theme] = field(default_factory=dict)
    failures: list[ThemeError] = field(default_factory=list)


def load_themes(*folders: Path) -> ThemeLoad:
    """Every ``*.toml`` theme in the folders (later folders override earlier names)."""
    result = ThemeLoad()
    for folder in folders or (bundled_dir(), user_dir()):
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                theme = parse_theme(path)
            except ThemeError as error:
                result.failures.append(error)
            except OSError as error:
                result.failures.append(ThemeError(path, None, error.strerror or str(error)))
            else:
                result.themes[theme.name] = theme
    return result
