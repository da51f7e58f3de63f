"""Colours from the theme, never hard-coded: a style named by its role (ok, bad, warn, info, the
n-th idempotency key) is read from the current theme's variables, so light, high-contrast and the
ANSI themes (the terminal's own palette) all keep the meaning."""

from __future__ import annotations

from rich.color import Color as RichColor
from rich.color import ColorSystem, ColorTriplet
from rich.style import Style
from textual.app import App
from textual.color import Color, ColorParseError

ROLES = {"ok": "success", "bad": "error", "warn": "warning", "info": "accent"}
# One colour per idempotency key, in this order; the theme decides what each one looks like.
KEY_ROLES = ("accent", "secondary", "warning", "success", "primary", "foreground")


def _colour(app: App, variable: str, fallback: str):
    value = app.theme_variables.get(variable) or app.get_css_variables().get(variable) or fallback
    try:
        return Color.parse(value).rich_color
    except ColorParseError:
        return Color.parse(fallback).rich_color


def style(app: App, role: str, bold: bool = False, dim: bool = False, italic: bool = False) -> Style:
    """`role`: ok, bad, warn, info, or a theme variable's own name."""
    return Style(
        color=_colour(app, ROLES.get(role, role), "white"), bold=bold or None, dim=dim or None, italic=italic or None
    )


def key_style(app: App, index: int) -> Style:
    return Style(color=_colour(app, KEY_ROLES[index % len(KEY_ROLES)], "white"), bold=True)


# ----------------------------------------------------------------- contrast

SYSTEMS = {
    "standard": ColorSystem.STANDARD,
    "256": ColorSystem.EIGHT_BIT,
    "truecolor": ColorSystem.TRUECOLOR,
    "windows": ColorSystem.WINDOWS,
}
MIN_CONTRAST = 1.8  # below this (WCAG ratio) a colour on a background is not readable at a glance


def _luminance(triplet: ColorTriplet) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = triplet
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(one: RichColor, two: RichColor, system: ColorSystem = ColorSystem.TRUECOLOR) -> float:
    """The WCAG contrast ratio of two colours as a terminal with `system` shows them (a subtle blend
    on a 16-colour terminal becomes the nearest of its 16)."""
    a, b = one.downgrade(system), two.downgrade(system)
    if a.number is not None and a.number == b.number and a.type == b.type:
        return 1.0  # the same palette entry, whatever the terminal's palette is
    la, lb = _luminance(a.get_truecolor()), _luminance(b.get_truecolor())
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def readable(style: Style, system: ColorSystem = ColorSystem.TRUECOLOR) -> Style:
    """`style` with its foreground replaced by black or white when it would vanish on its own
    background (green keywords on a green added line, a cyan tag on a cyan AI line)."""
    if style.color is None or style.bgcolor is None or style.color.is_default or style.bgcolor.is_default:
        return style
    if contrast(style.color, style.bgcolor, system) >= MIN_CONTRAST:
        return style
    background = _luminance(style.bgcolor.downgrade(system).get_truecolor())
    return style + Style(color="black" if background > 0.25 else "bright_white")


def color_system(app: App) -> ColorSystem:
    return SYSTEMS.get(app.console.color_system or "truecolor", ColorSystem.TRUECOLOR)
