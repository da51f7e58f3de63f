"""Colours from the theme, never hard-coded: a style named by its role (ok, bad, warn, info, the
n-th idempotency key) is read from the current theme's variables, so light, high-contrast and the
ANSI themes (the terminal's own palette) all keep the meaning."""

from __future__ import annotations

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
    return Style(color=_colour(app, ROLES.get(role, role), "white"), bold=bold or None, dim=dim or None,
                 italic=italic or None)


def key_style(app: App, index: int) -> Style:
    return Style(color=_colour(app, KEY_ROLES[index % len(KEY_ROLES)], "white"), bold=True)
