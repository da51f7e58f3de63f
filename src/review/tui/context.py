"""What every screen of one console shares: the cohort and the session that reads it, who reviews and
how, the keymap, candidate-blind masking, and score files changing on disk. The app makes one and
hands it to each screen it opens, typed, so no screen looks for attributes on the app."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from textual.app import App
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.signal import Signal

from review.core import anonymity, text
from review.gitsafe import Commit
from review.harness.results import SuiteResult
from review.services import store
from review.services.session import Session
from review.support import gc
from review.tui.lifetimes import drop_closed_watchers, release_styles_caches

ScoreFiles = dict[str, store.ScoreFile]


class ConsoleContext:
    def __init__(
        self,
        app: App,
        cohort_dir: Path,
        reviewers: tuple[str, ...] = (),
        *,
        blind: bool = False,
        run_harness: bool = True,
        anonymous: bool = False,
    ) -> None:
        self.cohort_dir = cohort_dir
        # What triage reads, the submission screen reuses.
        self.session = Session(cohort_dir)
        self.reviewers = reviewers or (store.default_reviewer(),)
        self.blind = blind
        self.run_harness = run_harness
        self.anonymous = anonymous
        # Binding id -> keys, from keymap.toml (shown by ?).
        self.keymap: dict[str, str] = {}
        # Score files that changed on disk (this console's saves or another's), each already read.
        self.score_updates: Signal[ScoreFiles] = Signal(app, "score-updates")
        # Full suites written for a listed HEAD by another process (`review harness` in another terminal).
        self.suite_updates: Signal[SuiteResult] = Signal(app, "suite-updates")
        # Listed submissions whose HEAD moved (folder name -> the new HEAD), read from their files by
        # triage's folder watch: an open submission learns it was resubmitted.
        self.head_updates: Signal[dict[str, str]] = Signal(app, "head-updates")
        self.masker: anonymity.Masker | None = None
        # Submission folder name -> its alias (candidate-blind).
        self.aliases: dict[str, str] = {}
        # A reviewer who lifted candidate-blind review keeps it lifted, reloads included.
        self.revealed = False

    @property
    def me(self) -> str:
        """This console's reviewer (or pair), as store.Review.who spells it."""
        return " + ".join(sorted(self.reviewers))

    def subscribe_to_scores(self, screen: Screen, callback: Callable[[ScoreFiles], None]) -> None:
        """`callback(files)` when score files change on disk (submission name -> scores). A screen torn
        down meanwhile has no widgets left to update: that is not an error."""

        def guarded(files: ScoreFiles) -> None:
            try:
                callback(files)
            except NoMatches:
                pass

        self.score_updates.subscribe(screen, guarded)

    def subscribe_to_suites(self, screen: Screen, callback: Callable[[SuiteResult], None]) -> None:
        """`callback(suite)` when a full suite for a listed HEAD is written elsewhere (triage's watch)."""

        def guarded(suite: SuiteResult) -> None:
            try:
                callback(suite)
            except NoMatches:
                pass

        self.suite_updates.subscribe(screen, guarded)

    def subscribe_to_heads(self, screen: Screen, callback: Callable[[dict[str, str]], None]) -> None:
        """`callback(heads)` when triage's watch sees listed submissions' HEAD move (name -> new HEAD)."""

        def guarded(heads: dict[str, str]) -> None:
            try:
                callback(heads)
            except NoMatches:
                pass

        self.head_updates.subscribe(screen, guarded)

    def release(self, screen: Screen) -> None:
        """What outlives a screen that left, let go, so that it and its widgets are collected: its
        score subscription (the signal holds the callback, which holds the screen; Textual drops it
        only on the next publish, and scores may never change again), and the app's watchers whose
        widget is gone (a TextArea watches the app's theme; Textual prunes such watchers only when the
        theme changes, so every rubric form's comment box stayed alive with its caches)."""
        self.score_updates.unsubscribe(screen)
        self.suite_updates.unsubscribe(screen)
        self.head_updates.unsubscribe(screen)
        drop_closed_watchers(screen.app)
        release_styles_caches()
        # Its widgets are garbage in cycles: collected once triage is painted again.
        screen.app.call_after_refresh(gc.collect)

    # ----------------------------------------------------------------- candidate-blind review

    def start_masking(self, folder_names: Iterable[str], order_key: bytes) -> None:
        """Every candidate shown as candidate-N, set before their rows are drawn (the names are the
        cohort's folders and `order_key` its blind order's key, both read in the triage screen's worker)."""
        if not self.anonymous or self.revealed or self.masker is not None:
            return
        self.masker, self.aliases = anonymity.cohort_masker(folder_names, order_key)
        text.set_mask(self.masker.mask)

    def mask_arrivals(self, folder_names: Iterable[str]) -> None:
        """Submissions that arrived after the cohort was listed: in a candidate-blind session each is
        the next candidate-N for the rest of the session, masked before its row is drawn."""
        if self.masker is None:
            return
        for name in folder_names:
            if name not in self.aliases:
                self.aliases[name] = anonymity.alias_for(len(self.aliases) + 1)
                self.masker.add(self.aliases[name], anonymity.identity_parts(name))

    def register_people(self, submission: Path, commits: list[Commit], base: str | None = None) -> None:
        """A submission's commit authors and committers after `base` (the starter is the hiring team's),
        masked from now on (called from the loading worker, before anything of the submission is drawn)."""
        alias = self.aliases.get(submission.name)
        if self.masker is not None and alias is not None:
            people = anonymity.commit_people(commits, base)
            self.masker.add(alias, anonymity.identity_parts(submission.name, people))

    def blind_numbers(self) -> dict[str, int]:
        """Folder name -> its candidate number while names are masked (the table's order then), else
        nothing."""
        if self.masker is None:
            return {}
        return {name: anonymity.alias_number(alias) for name, alias in self.aliases.items()}

    def reveal_names(self) -> None:
        self.revealed = True
        self.masker = None
        text.set_mask(None)

    def stop_masking(self) -> None:
        """The mask belongs to this console only."""
        if self.masker is not None:
            text.set_mask(None)
