"""The Textual console. Thin: screens and widgets render what the services computed and post
messages; nothing here runs git or a subprocess, or blocks the UI thread."""

DEFAULT_THEME = "review-dark"
