"""The submission screen (screen.py) and the helpers it owns: which panes a terminal's size shows,
the panes mounted after the first frame, and going from what was observed to where it came from."""
