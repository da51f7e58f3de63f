"""Modal screens: small questions asked over another screen (a comment anchored to a line, leaving
with unsaved scores)."""
