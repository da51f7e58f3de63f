"""The Textual application: themes, keymap, help; screens do the rest."""

from __future__ import annotations

import asyncio
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from textual import messages, on, work
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.notifications import Notify, SeverityLevel
from textual.screen import ModalScreen

from review.services import store
from review.services.session import Session
from review.support import paths
from review.tui import keymap, themes
from review.tui.context import ConsoleContext
from review.tui.screens.cohort import CohortScreen
from review.tui.screens.help import HelpScreen, help_rows


class ReviewApp(App[None]):
    TITLE = "review"
    CSS_PATH = "review.tcss"
    BINDINGS = [
        # Not in Textual's footer: KeysFooter keeps it on screen at any width.
        Binding("question_mark,f1", "help", "Keys", show=False, id="app.help"),
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, id="app.quit-alt"),
    ]

    # Another console's save shows here within two seconds.
    WATCH_SECONDS = 1.0
    # A toast covers part of the pane being worked in: at most this many at once, the newest, and a
    # plain information one for a moment (warnings and errors keep their time).
    TOASTS_SHOWN = 2
    INFORMATION_SECONDS = 3.0

    @dataclass
    class ScoresChanged(Message):
        """Score files that changed on disk (this console's saves or another's), read in the watcher's
        worker: submission name -> its scores."""

        files: dict[str, store.ScoreFile]

    def __init__(
        self,
        cohort_dir: Path,
        theme: str = themes.DEFAULT_THEME,
        reviewers: tuple[str, ...] = (),
        theme_load: themes.ThemeLoad | None = None,
        run_harness: bool = True,
        blind: bool = False,
        anonymous: bool = False,
        keymap: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.context = ConsoleContext(
            self, cohort_dir, reviewers, blind=blind, run_harness=run_harness, anonymous=anonymous
        )
        self.requested_theme = theme
        self.theme_load = theme_load or themes.load_themes()
        # None: read in a worker once running (the command line hands over the one it checked).
        self.given_keymap = keymap
        self.score_stamps: dict[str, tuple[int, int, int]] | None = None
        # Before any row is read (with a margin for a file system's coarse times).
        self.started_ns = time.time_ns() - 50_000_000
        # Before the console ends: None, then "writing" the rubric, then "written" (it may end).
        self.before_exit: str | None = None
        # The signal that is ending the console (a hangup, TERM), None while none is.
        self.ending_signal: int | None = None
        # Said once the console is up (what `review demo` left as it was).
        self.notices: list[str] = []

    @property
    def session(self) -> Session:
        return self.context.session

    @property
    def reviewers(self) -> tuple[str, ...]:
        return self.context.reviewers

    @property
    def run_harness(self) -> bool:
        return self.context.run_harness

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
            bundled = themes.DEFAULT_THEME in self.available_themes
            self.theme = themes.DEFAULT_THEME if bundled else "textual-dark"
            self.notify(f"Unknown theme {self.requested_theme!r}; using {self.theme}.", severity="error", markup=False)
        for failure in self.theme_load.failures:
            self.notify(f"Theme not loaded: {failure}", severity="error", timeout=15, markup=False)
        for notice in self.notices:
            self.notify(notice, severity="warning", timeout=15, markup=False)
        if self.given_keymap is None:
            self.read_keymap()
        else:
            self.apply_keymap(self.given_keymap)
        self.push_screen(CohortScreen(self.context))
        self.set_interval(self.WATCH_SECONDS, self.watch_scores)
        self.end_on_signals(True)

    def on_unmount(self) -> None:
        self.end_on_signals(False)
        self.context.stop_masking()

    # A hangup (an SSH drop, tmux's session killed) or a TERM ends the console as quitting does:
    # through ExitApp, so the rubric's pending changes are written first.
    ENDING_SIGNALS = (signal.SIGHUP, signal.SIGTERM)

    def end_on_signals(self, on: bool) -> None:
        if self.is_headless:
            # Under a test runner the process's signals are the runner's.
            return
        loop = asyncio.get_running_loop()
        for number in self.ENDING_SIGNALS:
            try:
                if on:
                    loop.add_signal_handler(number, self.end_on_signal, number)
                else:
                    loop.remove_signal_handler(number)
            except (ValueError, RuntimeError, NotImplementedError):
                pass

    # Once the rubric is written, how long Textual may take to restore a terminal that a hangup
    # took away: its writer can wait for ever on a terminal that is gone.
    ENDING_GRACE_SECONDS = 3.0

    def end_on_signal(self, number: int) -> None:
        self.ending_signal = number
        self.exit()

    def end_for_good(self) -> None:
        """After a hangup or TERM, with the rubric on disk: the process ends within the grace time
        even if the terminal's shutdown never returns."""
        import os
        import threading

        number = self.ending_signal
        if number is None:
            return
        timer = threading.Timer(self.ENDING_GRACE_SECONDS, os._exit, (128 + number,))
        timer.daemon = True
        timer.start()

    @on(messages.ExitApp)
    def write_before_exit(self, event: messages.ExitApp) -> None:
        """Every way out (q, the browser tab closed, `review serve` stopping, SIGHUP) passes here
        before the screens close: the console ends once an open submission has written what its
        rubric holds that is not on disk yet, instead of losing the change typed within the
        autosave's pause. The keys already typed land first: a tier chosen just before the tab
        closed is still on its way to its binding, which the app runs, so the writing waits in a
        worker while the app's queue goes on."""
        if self.before_exit == "written":
            return
        event.prevent_default()
        if self.before_exit is None:
            self.before_exit = "writing"
            self.run_worker(self.write_then_exit(), name="write-before-exit", group="exit", exit_on_error=False)

    async def write_then_exit(self) -> None:
        from review.tui.screens.submission.screen import SubmissionScreen

        try:
            await self.handled_so_far()
            for screen in self.screen_stack:
                if isinstance(screen, SubmissionScreen):
                    await screen.scoring.flush()
        finally:
            self.before_exit = "written"
            self.end_for_good()
            self.post_message(messages.ExitApp())

    HANDLED_SECONDS = 2.0

    async def handled_so_far(self) -> None:
        """Returns once the app and the screen's widgets have handled what their queues held, and
        what that passed on (a key goes to the focused widget, back up to the app for its binding,
        then a message up to the form): a few rounds of a callback queued behind what each holds."""
        for _ in range(4):
            handled: list[asyncio.Event] = []
            for node in [self, *self.screen.walk_children(with_self=True)]:
                event = asyncio.Event()
                # False: the node is closing and takes no more callbacks.
                if node.call_later(event.set):
                    handled.append(event)
            try:
                await asyncio.wait_for(asyncio.gather(*(event.wait() for event in handled)), self.HANDLED_SECONDS)
            except TimeoutError:
                return

    # Two reviewers, two consoles, one cohort: poll the score files (inotify does not see saves
    # made on another machine over NFS, and a stat per file per second is cheap).
    def watch_scores(self) -> None:
        self.scan_scores()

    @work(thread=True, exclusive=True, group="score-watch", name="score-watch")
    def scan_scores(self) -> None:
        cohort_dir = self.context.cohort_dir
        stamps = store.score_stamps(cohort_dir)
        # The first look has nothing to compare with: a file written since the console started may
        # have been written after its row was read (a save in that second was never shown).
        before = self.score_stamps
        if before is None:
            before = {name: stamp for name, stamp in stamps.items() if stamp[0] < self.started_ns}
        changed = store.changed_names(before, stamps)
        if changed:
            self.post_message(self.ScoresChanged({name: store.read_scores(cohort_dir / name) for name in changed}))
        self.score_stamps = stamps

    @on(ScoresChanged)
    def scores_changed(self, message: ScoresChanged) -> None:
        self.context.score_updates.publish(message.files)

    @dataclass
    class KeymapRead(Message):
        keymap: dict[str, str] | None
        problem: str | None = None

    @work(thread=True, exclusive=True, group="keymap", name="keymap")
    def read_keymap(self) -> None:
        """Binding ids → keys, from ~/.config/review/keymap.toml (e.g. `"triage.next-unscored" = "u"`)."""
        try:
            self.post_message(self.KeymapRead(keymap.load(paths.keymap_file())))
        except keymap.KeymapError as error:
            # The command line refuses to start on it; an app made otherwise says so.
            self.post_message(self.KeymapRead(None, str(error)))

    @on(KeymapRead)
    def keymap_read(self, message: KeymapRead) -> None:
        if message.keymap is None:
            self.notify(message.problem or "keymap not read", severity="error", markup=False)
        else:
            self.apply_keymap(message.keymap)

    def apply_keymap(self, keys: dict[str, str]) -> None:
        self.context.keymap = keys
        self.set_keymap(keys)

    async def action_quit(self) -> None:
        """q, ctrl+q, ctrl+c: a submission with unsaved rubric changes asks first."""
        from review.tui.screens.submission.screen import SubmissionScreen

        screen = self.screen
        if isinstance(screen, SubmissionScreen):
            screen.leave("quit")
            return
        if isinstance(screen, ModalScreen):
            # a question is open: it is answered first.
            return
        self.exit()

    def action_help_quit(self) -> None:
        # ctrl+c: the same question, never a silent loss.
        self.run_worker(self.action_quit(), name="quit")

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        if timeout is None and severity == "information":
            timeout = self.INFORMATION_SECONDS
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def on_notify(self, message: Notify) -> None:
        # Runs before Textual's own handler adds the notification: trimmed once it is in.
        self.call_later(self.trim_toasts)

    def trim_toasts(self) -> None:
        """Past TOASTS_SHOWN, the oldest toasts give way, information before warnings and errors."""
        shown = list(self._notifications)
        excess = len(shown) - self.TOASTS_SHOWN
        if excess <= 0:
            return
        ranked = sorted(shown[:-1], key=lambda n: (n.severity != "information", n.raised_at))
        for notification in ranked[:excess]:
            self._unnotify(notification, refresh=False)
        self._refresh_notifications()

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        title = getattr(self.screen, "BINDING_GROUP_TITLE", None) or "review"
        rows = help_rows(self.screen, self.context.keymap, self.get_key_display)
        # In a browser tab (`review serve`): which keys the browser keeps, and what to press instead.
        notes = keymap.browser_notes(rows, self.get_key_display) if self.is_web else []
        # What a screen says beside its keys (triage: the filter's fields).
        self.push_screen(HelpScreen(title, rows, notes, list(getattr(self.screen, "HELP_NOTES", ()))))
