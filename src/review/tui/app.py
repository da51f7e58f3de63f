"""The Textual application: themes, keymap, help; screens do the rest."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.screen import ModalScreen
from textual.signal import Signal

from review.core import anonymity, text
from review.services import cohort, store
from review.services.session import Session
from review.support import paths
from review.tui import keymap, themes
from review.tui.screens.cohort import CohortScreen
from review.tui.screens.help import HelpScreen, help_rows


def keymap_path() -> Path:
    return paths.keymap_file()


class ReviewApp(App[None]):
    TITLE = "review"
    CSS_PATH = "review.tcss"
    BINDINGS = [
        # Not in Textual's footer: KeysFooter keeps it on screen at any width.
        Binding("question_mark,f1", "help", "Keys", show=False, id="app.help"),
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, id="app.quit-alt"),
    ]

    WATCH_SECONDS = 1.0  # another console's save shows here within two seconds

    @dataclass
    class ScoresChanged(Message):
        """Score files that changed on disk (this console's saves or another's), read in the watcher's
        worker: submission name -> its scores."""

        files: dict[str, store.ScoreFile]

    def __init__(self, cohort_dir: Path, theme: str = themes.DEFAULT_THEME, reviewers: tuple[str, ...] = (),
                 theme_load: themes.ThemeLoad | None = None, run_harness: bool = True, blind: bool = False,
                 anonymous: bool = False) -> None:
        super().__init__()
        # Candidate-blind: every candidate's names shown as candidate-N until the reviewer lifts it.
        self.anonymous = anonymous
        self.masker: anonymity.Masker | None = None
        self.aliases: dict[str, str] = {}  # submission folder name -> its alias
        self.run_harness = run_harness
        self.blind = blind
        self.cohort_dir = cohort_dir
        self.session = Session(cohort_dir)  # what triage reads, the submission screen reuses
        # Score files that changed on disk (this console's saves or another's): screens subscribe.
        self.scores_signal: Signal[dict[str, store.ScoreFile]] = Signal(self, "scores-changed")
        self.requested_theme = theme
        self.reviewers = reviewers
        self.theme_load = theme_load or themes.load_themes()
        self.score_stamps: dict[str, tuple[int, int, int]] | None = None
        self.keymap: dict[str, str] = {}  # binding id -> keys, from keymap.toml (shown by ?)

    def get_css_variables(self) -> dict[str, str]:
        low_colour = self.current_theme.ansi or self.console.color_system in ("standard", "windows")
        variables = themes.with_app_variables(super().get_css_variables(), low_colour)
        self.theme_variables = variables
        return variables

    def on_mount(self) -> None:
        for theme in self.theme_load.themes.values():
            self.register_theme(theme)
        try:
            self.theme = self.requested_theme
        except Exception:
            self.theme = themes.DEFAULT_THEME if themes.DEFAULT_THEME in self.available_themes else "textual-dark"
            self.notify(f"Unknown theme {self.requested_theme!r}; using {self.theme}.", severity="error",
                        markup=False)
        for failure in self.theme_load.failures:
            self.notify(f"Theme not loaded: {failure}", severity="error", timeout=15, markup=False)
        self.apply_keymap()
        if self.anonymous:
            self.start_masking()
        self.push_screen(CohortScreen(self.cohort_dir, self.session, self.reviewers, self.blind, self.run_harness))
        self.set_interval(self.WATCH_SECONDS, self.watch_scores)

    def start_masking(self) -> None:
        try:
            folders = cohort.list_submissions(self.cohort_dir)
        except cohort.CohortError:
            folders = []  # the triage screen says why
        self.masker, self.aliases = anonymity.cohort_masker(folder.name for folder in folders)
        text.set_mask(self.masker.mask)  # before the first screen: nothing is ever drawn unmasked

    def register_people(self, submission: Path, commits: list) -> None:
        """A submission's commit authors and committers, masked from now on (called from the loading
        worker, before anything of the submission is drawn)."""
        alias = self.aliases.get(submission.name)
        if self.masker is not None and alias is not None:
            self.masker.add(alias, anonymity.identity_parts(submission.name, anonymity.commit_people(commits)))

    def reveal_names(self) -> None:
        self.masker = None
        text.set_mask(None)

    def on_unmount(self) -> None:
        if self.masker is not None:
            text.set_mask(None)  # the mask belongs to this session only

    # Two reviewers, two consoles, one cohort: poll the score files (inotify does not see saves
    # made on another machine over NFS, and a stat per file per second is cheap).
    def watch_scores(self) -> None:
        self.scan_scores()

    @work(thread=True, exclusive=True, group="score-watch", name="score-watch")
    def scan_scores(self) -> None:
        stamps = store.score_stamps(self.cohort_dir)
        if self.score_stamps is not None:
            changed = store.changed_names(self.score_stamps, stamps)
            if changed:
                self.post_message(self.ScoresChanged(
                    {name: store.read_scores(self.cohort_dir / name) for name in changed}))
        self.score_stamps = stamps

    @on(ScoresChanged)
    def scores_changed(self, message: ScoresChanged) -> None:
        self.scores_signal.publish(message.files)

    def apply_keymap(self) -> None:
        """Binding ids → keys, from ~/.config/review/keymap.toml (e.g. `"triage.next-unscored" = "u"`)."""
        try:
            self.keymap = keymap.load(keymap_path())
        except keymap.KeymapError as error:  # the CLI refuses to start on it; an app made otherwise says so
            self.notify(str(error), severity="error", markup=False)
            return
        self.set_keymap(self.keymap)

    async def action_quit(self) -> None:
        """q, ctrl+q, ctrl+c: a submission with unsaved rubric changes asks first."""
        from review.tui.screens.submission.scoring import ScoringScreen

        screen = self.screen
        if isinstance(screen, ScoringScreen):
            screen.leave("quit")
            return
        if isinstance(screen, ModalScreen):
            return  # a question is open: it is answered first
        self.exit()

    def action_help_quit(self) -> None:
        self.run_worker(self.action_quit(), name="quit")  # ctrl+c: the same question, never a silent loss

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        title = getattr(self.screen, "BINDING_GROUP_TITLE", None) or "review"
        self.push_screen(HelpScreen(title, help_rows(self.screen, self.keymap, self.get_key_display)))
