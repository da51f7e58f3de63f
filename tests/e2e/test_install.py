"""What a real install relies on: folders from platformdirs, data shipped in the package, one
version number, `review doctor`, and the test helpers' leak check that looks only at our own
processes. (CI also builds the wheel and uses it from outside the checkout: .ci/wheel-smoke.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from helpers import leftover_processes
from review import __version__
from review.cli import main
from review.devtools import doctor
from review.support import paths
from review.tui import themes


def test_folders_follow_xdg_and_the_cache_override(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "d"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "k"))
    monkeypatch.delenv("REVIEW_CACHE_DIR")
    assert paths.keymap_file() == tmp_path / "c" / "review" / "keymap.toml"
    assert paths.user_themes_dir() == tmp_path / "c" / "review" / "themes"
    assert paths.demo_dir() == tmp_path / "d" / "review" / "demo-cohort"
    assert paths.logs_dir() == tmp_path / "d" / "review" / "logs"
    assert paths.cache_dir() == tmp_path / "k" / "review"
    # Private: clones of others' code.
    assert (tmp_path / "k" / "review").stat().st_mode & 0o777 == 0o700
    monkeypatch.setenv("REVIEW_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert paths.cache_dir() == tmp_path / "elsewhere"


def test_bundled_themes_and_samples_are_found_without_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert {"review-dark", "review-light", "review-high-contrast"} <= set(themes.load_themes().themes)
    samples = paths.samples_dir()
    assert (samples / "_starter" / "commit.toml").is_file()
    assert len([p for p in samples.iterdir() if p.is_dir() and not p.name.startswith("_")]) == 8


def test_one_version_number_the_metadata_agrees_with(capsys):
    assert __version__ == version("review")
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"review {__version__}"


def _bin_with(tmp_path: Path, *tools: str) -> str:
    """A PATH holding only these tools (and a python), to see what the console says without the rest."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in tools:
        found = shutil.which(tool)
        if found:
            (folder / tool).symlink_to(found)
    return str(folder)


def test_doctor_says_what_is_missing_and_exits_1_without_a_must(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", _bin_with(tmp_path, "git"))
    monkeypatch.setenv("TERM", "dumb")
    assert main(["doctor", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    by_name = {check["name"]: check for check in report["checks"]}
    assert by_name["node"]["status"] == "missing" and by_name["node"]["must"]
    assert "nodejs" in by_name["node"]["fix"]
    assert by_name["sandbox"]["status"] == "degraded" and "bubblewrap" in by_name["sandbox"]["fix"]
    assert by_name["terminal"]["status"] == "degraded"
    assert by_name["git"]["status"] == "ok"
    assert {"python", "cache", "disk", "config", "data", "tmux", "prlimit"} <= set(by_name)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_doctor_passes_where_every_must_is_there(monkeypatch, capsys):
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "80")
    code = main(["doctor"])
    out = capsys.readouterr().out
    assert code == 0, out
    # At 80 columns each check is wrapped under its detail's column, a path never broken (one longer
    # than the 59 columns left has a line of its own).
    assert all(len(line) <= 80 or len(line.split()[-1]) > 59 for line in out.splitlines()), out
    lines = {line.split()[1]: line.split()[0] for line in out.splitlines()[1:] if not line.startswith(" ")}
    assert lines["node"] == "ok" and lines["git"] == "ok" and lines["python"] == "ok"
    expected = "ok" if shutil.which("bwrap") else "degraded"
    # The sandbox kind, as the harness will use it.
    assert lines["sandbox"] == expected


def test_doctor_reads_the_keymap_and_themes_as_the_console_would(isolated_dirs, monkeypatch, capsys):
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "review"
    (config / "themes").mkdir(parents=True)
    (config / "keymap.toml").write_text('"no.such.binding" = "x"\n')
    (config / "themes" / "broken.toml").write_text("name = [\n")
    assert main(["doctor", "--json"]) == 1
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    # The console would refuse to start: doctor says so, and fails, instead of "ok config".
    assert checks["keymap"]["status"] == "missing" and checks["keymap"]["must"]
    assert "no.such.binding" in checks["keymap"]["detail"]
    assert checks["themes"]["status"] == "degraded" and "broken.toml" in checks["themes"]["detail"]
    # Mended, with a theme of the reviewer's own: said as found, not left out of the list.
    (config / "keymap.toml").unlink()
    (config / "themes" / "broken.toml").unlink()
    bundled = next(p for p in (Path(__file__).parents[2] / "themes").glob("*.toml"))
    (config / "themes" / "mine.toml").write_text(bundled.read_text().replace('name = "', 'name = "mine-', 1))
    assert main(["doctor", "--json"]) in (0, 1)
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["themes"]["status"] == "ok" and "mine-" in checks["themes"]["detail"]


def test_doctor_reports_a_cache_it_cannot_write(tmp_path, monkeypatch):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere; the check is for a reviewer's account")
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o500)
    monkeypatch.setenv("REVIEW_CACHE_DIR", str(cache))
    checks = {c.name: c for c in doctor.check_folders()}
    assert checks["cache"].status == "missing" and checks["cache"].must


def test_the_leak_check_sees_what_this_process_started_and_nothing_else():
    marker = f"review-leak-check-{os.getpid()}"
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", marker])
    try:
        assert any(marker in line for line in leftover_processes(marker))
    finally:
        child.kill()
        child.wait()
    assert leftover_processes(marker) == []
    # The machine's other processes (pid 1 is never ours) are not looked at.
    assert all(not line.startswith("1: ") for line in leftover_processes(""))


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["triage", "COHORT", "--json"], id="triage-json"),
        pytest.param(["triage", "COHORT"], id="triage"),
        pytest.param(
            ["harness", "COHORT/ben-larsen", "--scenario", "happy", "--json"],
            id="harness",
            marks=pytest.mark.skipif(shutil.which("node") is None, reason="needs node"),
        ),
    ],
)
def test_headless_commands_never_load_textual(sample_cohort_master, command):
    """`review triage` and `review harness` are for scripts and SSH sessions: they must not pay for
    (or depend on) the TUI. Run as a program would run them, then asked which modules were loaded."""
    argv = [part.replace("COHORT", str(sample_cohort_master)) for part in command]
    code = (
        "import sys\nfrom review.cli import main\nimport io, contextlib\nout = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n    code = main(sys.argv[1:])\n"
        "loaded = {m.split('.')[0] for m in sys.modules}\n"
        "print(code, bool(out.getvalue()), sorted(loaded & {'textual', 'rich'}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "0 True []"


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
@pytest.mark.parametrize(
    ("signame", "mode"),
    [
        ("SIGTERM", "default"),
        ("SIGHUP", "default"),
        ("SIGINT", "default"),
        ("SIGKILL", "default"),
        ("SIGKILL", "reduced"),
    ],
)
def test_a_signal_ends_review_harness_cleanly_and_kills_the_run(sample_cohort_master, signame, mode, tmp_path):
    """Killed mid-run (an SSH drop is SIGHUP): one line, 128+N, and the candidate's processes die with it —
    with SIGKILL too (nothing of the console runs then: the parent-death signal does it)."""
    import signal
    import time

    from helpers import leftover_processes, make_repo

    # A candidate that hangs in silence: nothing it writes would end it on a closed pipe.
    hangs = (
        "export async function chargeWithRetry() {\n  setInterval(() => {}, 1000);\n  await new Promise(() => {});\n}\n"
    )
    silent = make_repo(tmp_path / "silent", {"checkout.mjs": hangs})
    proc = subprocess.Popen(
        [sys.executable, "-m", "review", "harness", str(silent), "--scenario", "happy", "--log"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "REVIEW_SANDBOX": "reduced", "REVIEW_UNSAFE_NO_SANDBOX": "1"} if mode == "reduced" else None,
    )
    deadline = time.monotonic() + 30
    started = ""
    # Its last word: silent from here.
    while "call-start" not in started and time.monotonic() < deadline:
        # --log streams to stdout.
        started += proc.stdout.readline()
    proc.send_signal(getattr(signal, signame))
    rest = proc.stderr.read()
    code = proc.wait(timeout=30)
    if signame == "SIGKILL":
        assert code == -signal.SIGKILL
    else:
        assert code == 128 + getattr(signal, signame)
        assert f"review: stopped by {signame}" in rest and "Traceback" not in rest
    deadline = time.monotonic() + 30
    while leftover_processes("driver.mjs") and time.monotonic() < deadline:
        time.sleep(0.05)
    left = leftover_processes("driver.mjs")
    # A failure must not leave the hung candidate behind for the next tests.
    for line in left:
        os.kill(int(line.split(":")[0]), signal.SIGKILL)
    assert left == []


def test_bad_reviewer_names_and_keymaps_stop_the_console_before_it_starts(sample_cohort_master, capsys):
    for name in ("", "ana\nbob", "x" * 10_000, "eve\u202e"):
        assert main([str(sample_cohort_master), "--reviewer", name]) == 2
        assert "reviewer name" in capsys.readouterr().err
    keymap = paths.keymap_file()
    keymap.parent.mkdir(parents=True, exist_ok=True)
    keymap.write_text('"triage.no-such-key" = "u"\n"app.quit" = 5\n')
    assert main([str(sample_cohort_master)]) == 2
    err = capsys.readouterr().err
    assert "unknown binding id 'triage.no-such-key'" in err and "'app.quit': keys must be a string" in err


def test_the_console_exits_non_zero_after_a_crash(sample_cohort_master, tmp_path):
    """A crash Textual caught and printed must not end in exit status 0 (scripts and tmux hooks read it)."""
    if shutil.which("script") is None:
        pytest.skip("needs util-linux's script for a terminal")
    crash = tmp_path / "crash.py"
    crash.write_text(
        "import sys\nfrom review.cli import main\nfrom review.tui.screens import cohort\n"
        "def boom(self, *args):\n    raise RuntimeError('boom in the console')\n"
        "cohort.CohortScreen.on_mount = boom\n"
        "code = main([sys.argv[1], '--no-harness'])\nopen(sys.argv[2], 'w').write(str(code))\n"
    )
    status = tmp_path / "status"
    subprocess.run(
        ["script", "-qec", f"{sys.executable} {crash} {sample_cohort_master} {status}", "/dev/null"],
        capture_output=True,
        timeout=60,
    )
    assert status.read_text() == "1"
