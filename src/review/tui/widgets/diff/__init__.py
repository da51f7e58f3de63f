"""The diff pane and the commits table beside it: what the submission changed, commit by commit."""
