"""The live stub log: the harness run streamed as the gateway sees it, one colour per idempotency key,
so a second key jumps out. The client's own output is interleaved, marked as the client's."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.widgets import RichLog

from review import gitsafe
from review.demo import default_demo_dir
from review.harness import runner
from review.text import safe_line

# Distinct enough in 16 colours too; the first key gets the first colour.
KEY_COLOURS = ("cyan", "magenta", "yellow", "green", "bright_red", "bright_blue")


class StubLog(RichLog, can_focus=True):
    BINDINGS = [
        Binding("r", "run", "Run suite", id="log.run"),
        Binding("escape", "cancel", "Cancel run", id="log.cancel"),
        Binding("w", "write", "Write log", id="log.write"),
    ]

    @dataclass
    class SuiteDone(Message):
        suite: runner.SuiteResult

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False, highlight=False, wrap=False, max_lines=20_000, auto_scroll=True)
        self.repo: gitsafe.SafeRepo | None = None
        self.raw_lines: list[str] = []
        self.key_colours: dict[str | None, str] = {}
        self.running = False

    def on_mount(self) -> None:
        self.write(Text("r runs the eight fault scenarios against the pinned gateway (sandboxed); escape cancels; "
                        "w writes this log to a file."))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.running  # otherwise escape goes back, as everywhere else
        return True

    def colour(self, key: str | None) -> str:
        if key not in self.key_colours:
            self.key_colours[key] = "red" if key is None else KEY_COLOURS[len(self.key_colours) % len(KEY_COLOURS)]
        return self.key_colours[key]

    def add(self, event: runner.HarnessEvent) -> None:
        if not event.text:
            return
        self.raw_lines.append(event.text)
        line = Text(event.text)
        if event.kind == "response":
            key = event.data.get("key")
            shown = runner.short_key(key)
            start = event.text.find(f"key={shown}")
            if start >= 0:
                line.stylize(f"bold {self.colour(key)}", start, start + 4 + len(shown))
        elif event.kind in ("stdout", "stderr"):
            line.stylize("dim italic")
        elif event.kind == "scenario-done":
            line.stylize("bold green" if event.data.get("verdict") == "ok" else "bold red")
        self.write(line)

    def action_run(self) -> None:
        if self.repo is None or self.running:
            return
        self.clear()
        self.raw_lines, self.key_colours = [], {}
        self.running = True
        self.run_suite()

    @work(exclusive=True, group="stub-log", name="stub-log-run")
    async def run_suite(self) -> None:
        assert self.repo is not None
        try:
            async for event in runner.stream_suite(self.repo):
                if event.kind == "suite-done":
                    self.post_message(self.SuiteDone(event.data["result"]))
                self.add(event)
        except Exception as error:  # a missing node, a sandbox that will not start: say so
            self.write(Text(safe_line(f"the run failed: {error}", 400), style="bold red"))
        finally:
            self.running = False

    def action_cancel(self) -> None:
        self.workers.cancel_group(self, "stub-log")
        self.running = False
        self.write(Text("run cancelled: every process of it was killed", style="bold yellow"))

    def action_write(self) -> None:
        if not self.raw_lines or self.repo is None:
            self.app.notify("Nothing to write yet: r runs the suite.", markup=False)
            return
        folder = default_demo_dir().parent / "logs"  # $XDG_DATA_HOME/review/logs
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.repo.source.name}-{self.repo.head[:12]}.log"
        path.write_text("\n".join(self.raw_lines) + "\n", encoding="utf-8")
        self.app.notify(f"log written to {path}", markup=False)
