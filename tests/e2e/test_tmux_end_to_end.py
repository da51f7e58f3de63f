"""The real `review demo` in a detached tmux session, driven with send-keys and read with
capture-pane, as a reviewer over SSH would use it: open a submission, run the suite, read the
note, score it, save, and find the TOML file with the values typed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from review.devtools.bench.common import TmuxServer

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None or shutil.which("node") is None, reason="needs tmux and node"
)


class Tmux(TmuxServer):
    """The benchmarks' tmux server (one socket path, given on every call; killed when done)."""

    def screen(self) -> str:  # type: ignore[override]
        return self.run("capture-pane", "-p", "-t", "review")

    def keys(self, *keys: str) -> None:
        # In one call, unpaced: the console reads them in order. Each test waits for the state a key
        # leads to before a key that needs it (and never sends a key right after Escape, which the
        # terminal would read as alt+key).
        self.run("send-keys", "-t", "review", *keys)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", "review", "-l", text)  # literally: no key names

    def alive(self) -> bool:
        return subprocess.run([*self.base, "has-session", "-t", "review"], capture_output=True).returncode == 0

    def wait_until(self, seen, what: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while not seen(shown := self.screen()):
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} never appeared; the screen was:\n{shown}")
            time.sleep(0.2)
        return shown

    def wait_for(self, text: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if text in shown:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared; the screen was:\n{shown}")
            time.sleep(0.2)


@pytest.fixture
def tmux():
    server = Tmux()
    try:
        yield server
    finally:
        server.kill()


# tmux's own TERM (256 colours), and screen's (8 colours, as a reviewer's older setup may have).
@pytest.mark.parametrize("term", ["tmux-256color", "screen"])
def test_open_run_score_and_save_in_tmux(tmux, tmp_path, isolated_dirs, term):
    cohort = tmp_path / "cohort"
    env = {
        "XDG_DATA_HOME": os.environ["XDG_DATA_HOME"],
        "XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"],
        "REVIEW_CACHE_DIR": os.environ["REVIEW_CACHE_DIR"],
        "PATH": os.environ["PATH"],
        "LANG": "C.UTF-8",
        "TERM": term,
    }
    from review.harness import sandbox

    if os.environ.get(sandbox.UNSAFE_ENV):  # no bubblewrap here: the reviewer's explicit opt-in
        env[sandbox.UNSAFE_ENV] = "1"
    command = f"{sys.executable} -m review demo --into {cohort} --no-harness --reviewer ana"
    tmux.run(
        "new-session",
        "-d",
        "-s",
        "review",
        "-x",
        "100",
        "-y",
        "30",
        *[arg for key, value in env.items() for arg in ("-e", f"{key}={value}")],
        command,
    )
    tmux.wait_for("chen-wei")
    tmux.wait_for("assistants: Claude Code")  # the rows are read (the detail line of the first row)
    tmux.keys("Down", "Down", "Enter")
    tmux.wait_for("whole submission (starter → HEAD)")  # the submission is read
    tmux.keys("5", "r")
    tmux.wait_for("▶ suite on HEAD")  # progress while it runs
    shown = tmux.wait_for("done in", timeout=120)
    assert "verdict" in shown or "two-orders" in shown
    tmux.keys("2")  # the note: a final review needs it shown
    tmux.wait_for("What I verified")
    tmux.keys("4", "s", "Down", "s", "Down", "s", "Down", "s", "Down", "a", "c")
    tmux.wait_for("comment on Blast radius")  # the box is open and focused: typing goes into it, as a reviewer sees
    tmux.type("names timeouts and partial writes")
    tmux.keys("Enter")
    tmux.wait_for("comment: names timeouts and partial writes")  # the box closed: keys are keys again
    tmux.keys("F")
    tmux.wait_for("state will be saved as FINAL")
    tmux.keys("C-s")
    tmux.wait_for("saved final")
    score_file = cohort / "chen-wei.review.toml"
    review = tomllib.loads(score_file.read_text())["reviews"][0]
    assert review["reviewers"] == ["ana"] and review["state"] == "final"
    assert review["tiers"] == {
        "found-defect": "strong",
        "key-scope": "strong",
        "evidence": "strong",
        "explanation": "strong",
        "blast-radius": "acceptable",
    }
    assert review["comments"] == {"blast-radius": "names timeouts and partial writes"}
    # Without bubblewrap the run is reduced, and the saved summary says so (sandbox.detect as the console did).
    from review.harness import sandbox

    reduced = " (reduced sandbox)" if sandbox.detect().kind == "reduced" else ""
    assert review["harness"] == f"8/8 ok{reduced}" and review["note_opened"]
    tmux.keys("Escape")
    tmux.wait_for("for ana to score")  # back on the triage table, the row says so
    tmux.wait_until(
        lambda shown: any(line.lstrip().startswith("chen-wei") and " final " in line for line in shown.splitlines()),
        "chen-wei's row: final",
    )
    tmux.keys("q")
    deadline = time.monotonic() + 10
    while tmux.alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not tmux.alive()  # the console quit cleanly; the session went with it


def running(pid: int) -> bool:
    """The process has not ended (an ended one may wait, a zombie, for a parent that never reaps it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def test_a_change_made_just_before_the_tmux_session_is_killed_is_on_disk(tmux, sample_cohort, isolated_dirs):
    """A tier chosen, and the session killed a moment later (within the autosave's pause), as an SSH
    drop or `tmux kill-session` does: the console gets a hangup, writes the rubric, and ends."""
    env = {
        "XDG_DATA_HOME": os.environ["XDG_DATA_HOME"],
        "XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"],
        "REVIEW_CACHE_DIR": os.environ["REVIEW_CACHE_DIR"],
        "PATH": os.environ["PATH"],
        "LANG": "C.UTF-8",
        "TERM": "tmux-256color",
    }
    command = f"{sys.executable} -m review {sample_cohort} --no-harness --reviewer ana"
    tmux.run(
        "new-session",
        "-d",
        "-s",
        "review",
        "-x",
        "100",
        "-y",
        "30",
        *[arg for key, value in env.items() for arg in ("-e", f"{key}={value}")],
        command,
    )
    console = int(tmux.run("display-message", "-p", "-t", "review", "#{pane_pid}").strip())
    tmux.wait_for("assistants: Claude Code")
    tmux.keys("Down", "Down", "Enter")
    tmux.wait_for("whole submission (starter → HEAD)")
    tmux.keys("4")
    tmux.wait_for("Found the defect")
    tmux.run("send-keys", "-t", "review", "s")
    # Killed as soon as the tier is on screen (a loaded machine may take longer than a fixed pause to
    # handle the key): still within the autosave's pause, as a hangup right after a keystroke is.
    tmux.wait_for("Found the defect: Strong", timeout=20)
    tmux.run("kill-session", "-t", "review")
    deadline = time.monotonic() + 15
    while running(console) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not running(console)
    [written] = list(sample_cohort.glob("*.review.toml"))
    [review] = tomllib.loads(written.read_text())["reviews"]
    assert review["reviewers"] == ["ana"] and review["tiers"] == {"found-defect": "strong"}
