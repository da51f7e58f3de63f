"""git's environment and the one place a git process starts: nothing inherited but PATH, a private
global config (no hooks, no fsmonitor), system config ignored."""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import select
import signal
import subprocess
import tempfile
import time
from collections.abc import Generator
from pathlib import Path

from review.support import paths

# An object id: 40 hex digits (SHA-1) or 64 (SHA-256, `git init --object-format=sha256`).
SHA_RE = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
# git's id for the tree with nothing in it, per object format.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
EMPTY_TREE_SHA256 = "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
_REF_NAME_RE = re.compile(r"^refs/[A-Za-z0-9._/+-]+$")
_BLAME_HEADER = re.compile(rb"^(?:[0-9a-f]{40}|[0-9a-f]{64}) \d+ \d+")
FIELD_SEP = "\x1f"
RECORD_SEP = "\x1e"


class GitSafeError(Exception):
    """A submission could not be read; the message says why, in words for the reviewer."""


# --------------------------------------------------------------------------- environment


def cache_root() -> Path:
    return paths.cache_dir()


def cache_path_for(source: Path) -> Path:
    """Where the cache keeps the sanitised clone of the submission at `source`."""
    key = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:24]
    return cache_root() / "repos" / f"{key}.git"


def _private_config(safe_dirs: tuple[str, ...] = ()) -> Path:
    """A global git config of our own: no hooks, no fsmonitor, nothing from the user's."""
    lines = [
        "[core]",
        "\thooksPath = /dev/null",
        "\tfsmonitor = false",
        "\tsymlinks = false",
        "\tpager = cat",
        "\tquotePath = true",
        "[protocol]",
        "\tallow = never",
        '[protocol "file"]',
        "\tallow = always",
        "[init]",
        "\tdefaultBranch = main",
        "[commit]",
        "\tgpgSign = false",
        "[advice]",
        "\tdetachedHead = false",
    ]
    for directory in safe_dirs:
        # A value with a newline or quote could inject config: such folders are refused earlier.
        lines += ["[safe]", f"\tdirectory = {directory}"]
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    path = cache_root() / "gitconfig" / f"{digest}.gitconfig"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")  # threads race here: one temp file each
        with os.fdopen(fd, "w") as handle:
            handle.write("\n".join(lines) + "\n")
        os.replace(tmp, path)
    return path


def git_env(safe_dirs: tuple[str, ...] = ()) -> dict[str, str]:
    """The whole environment git runs with: nothing inherited but PATH."""
    home = cache_root() / "home"
    home.mkdir(exist_ok=True, mode=0o700)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(_private_config(safe_dirs)),
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ALLOW_PROTOCOL": "file",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_PAGER": "cat",
        "GIT_ATTR_NOSYSTEM": "1",
    }


GIT_TIMEOUT_S = 120.0  # a clone of a large history fits; a FIFO or a hung helper does not hang the console


def _run(
    args: list[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    input_bytes: bytes | None = None,
    timeout_s: float = GIT_TIMEOUT_S,
) -> bytes:
    """git, with a time limit: past it, git and everything it started (upload-pack, pack-objects) are
    killed as a group and the caller gets a reason, not a hang."""
    proc = subprocess.Popen(
        ["git", *args],
        cwd=cwd,
        env=env or git_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.PIPE if input_bytes is not None else subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(input_bytes, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise GitSafeError(
            f"git {args[0] if args[0] != '--git-dir' else args[2]} took longer than {timeout_s:g} s and was stopped"
        ) from None
    except BaseException:
        _kill_group(proc)
        raise
    if proc.returncode != 0:
        raise GitSafeError(git_said(err) or f"git {args[0]} failed")
    return out


# What git says last when the other end of a copy gave up: the reason is in an earlier line.
_AFTERMATH = (
    "the remote end hung up unexpectedly",
    "early EOF",
    "invalid index-pack output",
    "Could not read from remote repository",
    "Please make sure you have the correct access rights",
    "and the repository exists",
    "aborting due to possible repository corruption",
)


def git_said(err: bytes) -> str:
    """git's reason for failing, from its standard error: its last line, unless that is only the
    aftermath of a copy whose other end gave up ("the remote end hung up unexpectedly"); then the
    first line that says why (a corrupt object, a file it may not read)."""
    lines = [
        line.strip().removeprefix("remote: ").strip()
        for line in err.decode("utf-8", "replace").splitlines()
        if line.strip()
    ]
    if not lines:
        return ""
    if not any(words in lines[-1] for words in _AFTERMATH):
        return lines[-1]
    for mark in ("fatal:", "error:"):
        said = [line for line in lines if line.startswith(mark) and not any(w in line for w in _AFTERMATH)]
        if said:
            return said[0]
    return lines[-1]


def _output_chunks(args: list[str], env: dict[str, str], timeout_s: float) -> Generator[bytes, None, None]:
    """git's standard output as it comes, with a time limit over the whole run; a non-zero exit is
    a GitSafeError with git's last word. Left early (closed) or failing, git's process group is killed."""
    proc = subprocess.Popen(
        ["git", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    _widen_pipe(proc.stdout.fileno())
    deadline = time.monotonic() + timeout_s
    finished = False
    read = 0
    try:
        while True:
            if not select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))[0]:
                raise GitSafeError(
                    f"git {args[2] if args[0] == '--git-dir' else args[0]} took longer than "
                    f"{timeout_s:g} s and was stopped"
                )
            chunk = os.read(proc.stdout.fileno(), 1 << 20)
            if not chunk:
                break
            yield chunk
            read += len(chunk)
            if read > LONG_OUTPUT and len(chunk) < PIPE_BYTES // 4:
                # A long output in small pieces: let git write ahead into the pipe for a moment (the GIL
                # free meanwhile) instead of a read, a split and a GIL turn per commit.
                time.sleep(BATCH_PAUSE_S)
        err = proc.stderr.read(64 * 1024)
        proc.wait()
        if proc.returncode != 0:
            raise GitSafeError(git_said(err) or f"git {args[0]} failed")
        finished = True
    finally:
        if not finished:
            _kill_group(proc)


PIPE_BYTES = 1 << 20
# Past this much output, small reads wait a little for more (a history's patches: thousands of commits).
LONG_OUTPUT = 256 << 10
BATCH_PAUSE_S = 0.004


def _widen_pipe(fd: int) -> None:
    """A 1 MiB pipe instead of 64 KiB (Linux; elsewhere nothing changes): git writes ahead while this
    process's threads wait for the GIL, instead of stopping every 64 KiB (a 5,000-commit history's
    patches came 64 KiB per GIL turn while the diff was parsed: 0.8 s for 0.45 s of git)."""
    try:
        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
    except OSError:
        pass  # past /proc/sys/fs/pipe-max-size, or no such call: the default pipe works


def run_capped(args: list[str], env: dict[str, str], max_bytes: int, timeout_s: float = GIT_TIMEOUT_S) -> bytes:
    """git whose output may be huge (a diff with a 200 MB blob): read as it comes, at most
    `max_bytes` + 1 kept (so the caller can tell it was cut), git stopped once past it."""
    chunks: list[bytes] = []
    size = 0
    stream = _output_chunks(args, env, timeout_s)
    try:
        for chunk in stream:
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                return b"".join(chunks)[: max_bytes + 1]
    finally:
        stream.close()  # past the cap: git is stopped here
    return b"".join(chunks)


def stream_lines(
    args: list[str], env: dict[str, str], timeout_s: float = GIT_TIMEOUT_S
) -> Generator[list[bytes], None, None]:
    """git's output as it comes, in batches of whole lines (a history's patches: never all in memory
    at once; a batch per read, not a generator step per line)."""
    pending = b""
    stream = _output_chunks(args, env, timeout_s)
    try:
        for chunk in stream:
            *lines, pending = (pending + chunk).split(b"\n")
            if lines:
                yield lines
    finally:
        stream.close()
    if pending:
        yield [pending]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.communicate()


def run_trusted(args: list[str], env: dict[str, str] | None = None, input_bytes: bytes | None = None) -> bytes:
    """git on a repository this program builds itself (the demo cohort, tests' fixtures) — never on a
    submission, which is only ever read through its sanitised clone."""
    return _run(args, env=env, input_bytes=input_bytes)
