"""`review doctor`: what this machine gives the console, one line per thing (wrapped to the terminal), with the fix.

Each check is ok, degraded (works, with less), or missing; a missing *must* makes the exit code 1.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

from review import __version__
from review.support import paths

MIN_PYTHON = (3, 11)
MIN_GIT = (2, 39)
MIN_NODE = 20
LOW_DISK = 512 * 1024 * 1024  # a cohort's clones and run folders fit well within this


@dataclass
class Check:
    name: str
    status: str  # ok | degraded | missing
    detail: str
    fix: str = ""
    must: bool = False

    def line(self, width: int = 80) -> str:
        """The check in the terminal's width: the detail, then the fix, wrapped under the detail's column
        (a path is never broken)."""
        lead = f"{self.status:9} {self.name:10} "
        wrap = partial(
            textwrap.fill,
            width=max(width, 60),
            subsequent_indent=" " * len(lead),
            break_long_words=False,
            break_on_hyphens=False,
        )
        text = wrap(lead + self.detail)
        if self.fix and self.status != "ok":
            text += "\n" + wrap(" " * len(lead) + f"→ {self.fix}")
        return text


def _version_of(command: list[str]) -> tuple[str, tuple[int, ...]] | None:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", out)
    if not match:
        return None
    return out.splitlines()[0] if out else "", tuple(int(x) for x in match.groups() if x is not None)


def check_python() -> Check:
    version = sys.version_info[:3]
    text = ".".join(map(str, version))
    if version[:2] < MIN_PYTHON:
        return Check("python", "missing", f"{text} (needs ≥ 3.11)", "install Python 3.11 or newer", must=True)
    return Check("python", "ok", f"{text} ({sys.executable})", must=True)


def check_git() -> Check:
    found = shutil.which("git") and _version_of(["git", "--version"])
    if not found:
        return Check("git", "missing", "not found", "apt-get install git", must=True)
    text, version = found
    if version[:2] < MIN_GIT:
        return Check("git", "missing", f"{text} (needs ≥ 2.39 for the clone safety fixes)", "upgrade git", must=True)
    return Check("git", "ok", text, must=True)


def check_node() -> Check:
    found = shutil.which("node") and _version_of(["node", "--version"])
    if not found:
        return Check(
            "node",
            "missing",
            "not found: the harness cannot run candidate code",
            "apt-get install nodejs (Node ≥ 20)",
            must=True,
        )
    text, version = found
    if version[0] < MIN_NODE:
        return Check("node", "missing", f"{text} (the harness needs Node ≥ 20)", "install Node 20 or newer", must=True)
    return Check("node", "ok", text, must=True)


def check_sandbox() -> Check:
    from review.harness import sandbox

    bwrap = shutil.which("bwrap")
    if not bwrap:
        return Check(
            "sandbox",
            "degraded",
            "bubblewrap not found: candidate code does not run (the harness, the candidate's own tests "
            "and coverage are unavailable) unless you pass --unsafe-no-sandbox",
            "apt-get install bubblewrap",
        )
    version = sandbox.bwrap_version(bwrap) or "?"
    problem = sandbox.bwrap_problem(bwrap)
    if problem:
        return Check(
            "sandbox",
            "degraded",
            f"bubblewrap {version} at {bwrap}, but {problem}",
            "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu "
            "≥ 23.10 an AppArmor profile for bwrap)",
        )
    return Check("sandbox", "ok", f"bubblewrap {version} ({bwrap}); gateway {sandbox.gateway_version()}")


def check_prlimit() -> Check:
    found = shutil.which("prlimit")
    if not found:
        return Check(
            "prlimit",
            "degraded",
            "not found: no CPU, file-size or descriptor limits on candidate code",
            "apt-get install util-linux",
        )
    return Check("prlimit", "ok", found)


def check_setpriv() -> Check:
    found = shutil.which("setpriv")
    if not found:
        return Check(
            "setpriv",
            "degraded",
            "not found: a console killed with SIGKILL leaves a run without bubblewrap behind until its limits end it",
            "apt-get install util-linux",
        )
    return Check("setpriv", "ok", f"{found} (runs die with the console, even on SIGKILL)")


def check_tmux() -> Check:
    found = shutil.which("tmux") and _version_of(["tmux", "-V"])
    if not found:
        return Check(
            "tmux", "degraded", "not found (optional: two reviewers share a console through it)", "apt-get install tmux"
        )
    inside = " (this shell is inside tmux)" if os.environ.get("TMUX") else ""
    return Check("tmux", "ok", found[0] + inside)


def check_terminal() -> Check:
    term = os.environ.get("TERM", "")
    colour = os.environ.get("COLORTERM", "")
    no_color = "NO_COLOR" in os.environ
    detail = (
        f"TERM={term or '(unset)'}" + (f" COLORTERM={colour}" if colour else "") + (" NO_COLOR" if no_color else "")
    )
    if not term or term == "dumb":
        return Check(
            "terminal",
            "degraded",
            detail + ": no full-screen terminal",
            "run it in a real terminal (TERM=xterm-256color, tmux-256color, …)",
        )
    if "256" not in term and colour not in ("truecolor", "24bit"):
        return Check(
            "terminal",
            "degraded",
            detail + ": 8 or 16 colours",
            "use --theme ansi-dark (the terminal's own palette) or a 256-colour TERM",
        )
    return Check("terminal", "ok", detail)


def check_serve(host: str | None = None, port: int | None = None) -> Check:
    """Whether `review serve` can start here: textual-serve imports, and its port is free."""
    from review.services.serve import address

    host = host or address.DEFAULT_HOST
    port = address.DEFAULT_PORT if port is None else port
    try:
        from importlib.metadata import version

        import textual_serve.server  # noqa: F401 (what `review serve` loads)

        found = f"textual-serve {version('textual-serve')}"
    except ImportError as error:
        return Check(
            "serve",
            "missing",
            f"textual-serve cannot be loaded ({error}): `review serve` is unavailable",
            "reinstall review (it depends on textual-serve 1.1)",
        )
    try:
        address.listen(host, port).close()
    except address.ServeError as error:
        return Check("serve", "degraded", f"{found}, but {error}", "review serve --port N (0: any free port)")
    return Check("serve", "ok", f"{found}; port {port} on {host} is free for `review serve`")


def _writable(folder: Path) -> tuple[bool, str]:
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent  # not created yet: what matters is whether it can be
    ok = os.access(probe, os.W_OK | os.X_OK)
    made = "" if folder.exists() else " (not created yet)"
    return ok, f"{folder}{made}"


def check_folders() -> list[Check]:
    checks = []
    for name, folder, must in (("config", paths.config_dir(), False), ("data", paths.data_dir(), False)):
        ok, text = _writable(folder)
        checks.append(
            Check(
                name,
                "ok" if ok else "missing",
                text + ("" if ok else ": not writable"),
                f"make {folder} writable for you",
                must=must,
            )
        )
    try:
        cache = paths.cache_dir()
    except OSError as error:
        return [*checks, Check("cache", "missing", f"cannot be created: {error}", "set REVIEW_CACHE_DIR", must=True)]
    ok, text = _writable(cache)
    checks.append(
        Check(
            "cache",
            "ok" if ok else "missing",
            text + ("" if ok else ": not writable"),
            "set REVIEW_CACHE_DIR to a folder you own",
            must=True,
        )
    )
    free = shutil.disk_usage(cache).free
    status = "ok" if free >= LOW_DISK else "degraded"
    checks.append(
        Check(
            "disk",
            status,
            f"{free / 1024**3:.1f} GiB free in the cache's file system",
            "free some space (clones and run folders live in the cache)",
        )
    )
    return checks


def check_settings() -> list[Check]:
    """The reviewer's own keymap and themes, read as the console reads them: a keymap it would refuse
    stops the console, so it is said here too; a theme that does not load is only left out."""
    from review.tui import keymap, themes

    checks = []
    try:
        remapped = keymap.load()
    except keymap.KeymapError as error:
        checks.append(
            Check(
                "keymap",
                "missing",
                str(error),
                "fix the file (or move it away): the console will not start with it",
                must=True,
            )
        )
    else:
        found = f"{len(remapped)} key(s) remapped in {paths.keymap_file()}" if remapped else "no keys remapped"
        checks.append(Check("keymap", "ok", found))
    # Each folder read once: what the console loads is the bundled themes, then the reviewer's over them.
    bundled, yours = themes.load_themes(themes.bundled_dir()), themes.load_themes(themes.user_dir())
    failures = bundled.failures + yours.failures
    if failures:
        checks.append(
            Check(
                "themes",
                "degraded",
                "; ".join(str(failure) for failure in failures),
                "fix or remove the theme files named: the console leaves them out",
            )
        )
    else:
        own = sorted(set(yours.themes) - set(bundled.themes))
        found = (
            f"{len(own)} of your own in {themes.user_dir()}: {', '.join(own)}"
            if own
            else f"the bundled ones (none of your own in {themes.user_dir()})"
        )
        checks.append(Check("themes", "ok", found))
    return checks


def run_checks() -> list[Check]:
    return [
        check_python(),
        check_git(),
        check_node(),
        check_sandbox(),
        check_prlimit(),
        check_setpriv(),
        check_tmux(),
        check_terminal(),
        check_serve(),
        *check_folders(),
        *check_settings(),
    ]


def report(as_json: bool) -> tuple[str, int]:
    checks = run_checks()
    code = 1 if any(c.must and c.status == "missing" for c in checks) else 0
    if as_json:
        import json

        return json.dumps(
            {"version": __version__, "ok": code == 0, "checks": [asdict(c) for c in checks]}, indent=2
        ), code
    width = shutil.get_terminal_size((80, 24)).columns
    lines = [f"review {__version__}", *(c.line(width) for c in checks)]
    return "\n".join(lines), code
