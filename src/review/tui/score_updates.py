"""App-wide signals the screens subscribe to (instead of the app looking for methods on screens)."""

from __future__ import annotations

from collections.abc import Callable

from textual.css.query import NoMatches
from textual.screen import Screen

from review.services.store import ScoreFile


def subscribe_to_scores(screen: Screen, callback: Callable[[dict[str, ScoreFile]], None]) -> None:
    """`callback(files)` when score files change on disk (a save here or in another console), with each
    changed file already read (submission name -> scores). A screen torn down meanwhile has no widgets
    left to update: that is not an error."""

    def guarded(files: dict[str, ScoreFile]) -> None:
        try:
            callback(files)
        except NoMatches:
            pass

    signal = getattr(screen.app, "scores_signal", None)  # absent in an app that is not the console
    if signal is not None:
        signal.subscribe(screen, guarded)
