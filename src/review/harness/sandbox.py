"""How candidate code is run: bubblewrap when present, Node's permission flags always.

With bwrap: every namespace unshared (no network but the gateway's socket, own PIDs), a clean
environment, and only three things visible besides /usr: the run's folder (read-write),
the trusted driver (read-only) and the socket folder. Without bwrap the run is "reduced":
Node's permission model (which the Node docs say is no defence against malicious code),
a clean environment and its own session — and every result says so.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DRIVER = Path(__file__).with_name("driver.mjs")
HEAP_MB = 256
# "nobody", inside the sandbox's own user namespace.
SANDBOX_UID = 65534
TMP_BYTES = 64 * 1024 * 1024
FILE_SIZE_LIMIT = 10 * 1024 * 1024
# fetch's WebAssembly needs far more than RSS; only a backstop (see reference)
ADDRESS_SPACE = 16 * 1024**3

# Paths as the candidate's process sees them inside bwrap.
INSIDE_WORK = "/sub"
INSIDE_DRIVER = "/review/driver.mjs"
INSIDE_GATEWAY = "/gw"
INSIDE_NODE = "/opt/review/node"
INSIDE_COVERAGE = "/cov"


class SandboxError(Exception):
    pass


COVERAGE_NEEDS = (
    "coverage is unavailable without bubblewrap: Node's permission flags stop V8 writing it, "
    "and the harness never drops the sandbox to get it"
)
TESTS_NEED = "the candidate's own tests run only inside bubblewrap (apt-get install bubblewrap)"


def require_bwrap(info: SandboxInfo, why: str) -> None:
    """The runs that cannot have Node's permission flags get bubblewrap or do not run."""
    if info.kind != "bwrap":
        raise SandboxError(why)


@dataclass(frozen=True)
class SandboxInfo:
    # "bwrap"; "reduced" (no bubblewrap, the reviewer opted in); "none" (nothing runs)
    kind: str
    node: str
    node_version: tuple[int, int, int]
    bwrap: str | None
    prlimit: str | None
    # e.g. "0.8.0"
    bwrap_version: str | None = None
    # Why bubblewrap is not used (kind "reduced" or "none")
    problem: str | None = None
    # util-linux's setpriv: the parent-death signal (see _parent_death)
    setpriv: str | None = None

    @property
    def node_version_text(self) -> str:
        return "v" + ".".join(map(str, self.node_version))

    @property
    def sandbox_text(self) -> str:
        if self.kind == "bwrap":
            return f"bwrap {self.bwrap_version or '?'}"
        return "reduced (--unsafe-no-sandbox)" if self.kind == "reduced" else "none"

    def fingerprint(self) -> dict[str, str]:
        """What a verdict depends on besides the candidate's code: two reviewers whose results carry
        the same fingerprint ran on the same pinned box."""
        return {"node": self.node_version_text, "sandbox": self.sandbox_text, "gateway": gateway_version()}


# How a verdict is reached: the runner and the two modules it hands the driver's process to (how it
# is supervised and how its exit code becomes each call's outcome).
# Paths from the package's root: the scenarios' table is the core's.
_PINNED_FILES = (
    "harness/gateway.py",
    "harness/scenarios.py",
    "core/scenarios.py",
    "harness/driver.mjs",
    "harness/runner.py",
    "harness/driver_run.py",
    "harness/driver_protocol.py",
    "harness/sandbox.py",
)


@lru_cache(maxsize=1)
def gateway_version() -> str:
    """The harness's own code, hashed: any change to the gateway, the scenarios, the driver or how
    they are run gives another version, so results from two consoles compare only when it matches."""
    digest = hashlib.sha256()
    for name in _PINNED_FILES:
        digest.update(name.encode() + b"\0" + (Path(__file__).parent.parent / name).read_bytes())
    return digest.hexdigest()[:12]


def bwrap_version(bwrap: str) -> str | None:
    try:
        out = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r"(\d+\.\d+(?:\.\d+)?)", out)
    return match.group(1) if match else None


@lru_cache(maxsize=4)
def detect(force_reduced: bool = False) -> SandboxInfo:
    node = shutil.which("node")
    if not node:
        raise SandboxError("node is not installed (the harness needs Node ≥ 20)")
    out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=20).stdout.strip()
    match = re.match(r"v(\d+)\.(\d+)\.(\d+)", out)
    if not match:
        raise SandboxError(f"cannot tell node's version from {out!r}")
    version = (int(match[1]), int(match[2]), int(match[3]))
    if version[0] < 20:
        raise SandboxError(f"node {out} is too old; the harness needs Node ≥ 20")
    opted_in = force_reduced or unsafe_opt_in()
    bwrap = None if force_reduced or os.environ.get("REVIEW_SANDBOX") == "reduced" else shutil.which("bwrap")
    problem = bwrap_problem(bwrap) if bwrap else "bubblewrap is not installed"
    if problem:
        bwrap = None
    kind = "bwrap" if bwrap else ("reduced" if opted_in else "none")
    return SandboxInfo(
        kind,
        os.path.realpath(node),
        version,
        bwrap,
        shutil.which("prlimit"),
        bwrap_version(bwrap) if bwrap else None,
        None if bwrap else problem,
        shutil.which("setpriv"),
    )


UNSAFE_ENV = "REVIEW_UNSAFE_NO_SANDBOX"
NO_SANDBOX = (
    "candidate code runs only inside bubblewrap, which is missing or cannot run here (apt-get "
    "install bubblewrap; `review doctor` says why). --unsafe-no-sandbox runs it with Node's "
    "permission flags alone, which do not stop network access or signals: only for code you trust"
)


def unsafe_opt_in() -> bool:
    """The reviewer asked for runs without bubblewrap (--unsafe-no-sandbox, or the environment)."""
    return os.environ.get(UNSAFE_ENV) == "1" or os.environ.get("REVIEW_SANDBOX") == "reduced"


def require_runnable(info: SandboxInfo) -> None:
    """No candidate code runs without a sandbox, unless the reviewer opted in."""
    if info.kind == "none":
        raise SandboxError(NO_SANDBOX)


def bwrap_problem(bwrap: str) -> str | None:
    """Why this bwrap cannot sandbox here, or None. User namespaces may be off (or AppArmor-restricted,
    as on Ubuntu ≥ 23.10): try once."""
    try:
        result = subprocess.run(
            [
                bwrap,
                "--unshare-all",
                "--die-with-parent",
                "--ro-bind",
                "/usr",
                "/usr",
                "--symlink",
                "usr/bin",
                "/bin",
                "--symlink",
                "usr/lib",
                "/lib",
                "--symlink",
                "usr/lib64",
                "/lib64",
                "--",
                "/bin/true",
            ],
            capture_output=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap did not start: {error}"
    if result.returncode != 0:
        said = result.stderr.decode("utf-8", "replace").strip().splitlines()
        return "bubblewrap cannot create namespaces here" + (f" ({said[-1][:200]})" if said else "")
    return None


def permission_flags(info: SandboxInfo, work: str, driver: str) -> list[str]:
    major = info.node_version[0]
    flags = ["--experimental-permission" if major < 22 else "--permission"]
    # One flag per path: Node 20.20 no longer accepts comma-separated lists.
    flags += [f"--allow-fs-read={work}/", f"--allow-fs-read={driver}", f"--allow-fs-write={work}/"]
    if major >= 25:
        # The Unix-socket client counts as network there.
        flags.append("--allow-net")
    return flags


def _limits(info: SandboxInfo, cpu_seconds: int) -> list[str]:
    if not info.prlimit:
        return []
    return [
        info.prlimit,
        f"--cpu={cpu_seconds}",
        f"--fsize={FILE_SIZE_LIMIT}",
        "--nofile=256",
        "--core=0",
        f"--as={ADDRESS_SPACE}",
        "--",
    ]


def _parent_death(info: SandboxInfo) -> list[str]:
    """The run dies with the console, even one killed with SIGKILL (an OOM kill, `kill -9`): bwrap's
    --die-with-parent ties the candidate's process to bwrap, this ties bwrap (or, without it, node)
    to the thread that started it, which waits for it for the whole run."""
    return [info.setpriv, "--pdeathsig", "KILL", "--"] if info.setpriv else []


def _bwrap(info: SandboxInfo, work: Path, binds: list[str]) -> list[str]:
    """bwrap up to its `--`: every namespace unshared, /usr read-only, the run's folder at /sub."""
    assert info.bwrap is not None
    # The environment bwrap passes on is the clean one the runner gives it (see clean_env),
    # which is what --clearenv plus --setenv would give, without secrets in argv.
    # Every namespace unshared, a user namespace of its own with an unprivileged uid/gid and no
    # capabilities even when the console runs as root (so nothing can be remounted or written as
    # root), no nested user namespaces, a private size-capped /tmp, its own /proc (its own PIDs only).
    outer = [
        info.bwrap,
        "--unshare-all",
        "--unshare-user",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--disable-userns",
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--new-session",
        "--ro-bind",
        "/usr",
        "/usr",
        "--symlink",
        "usr/lib",
        "/lib",
        "--symlink",
        "usr/lib64",
        "/lib64",
        "--symlink",
        "usr/bin",
        "/bin",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(TMP_BYTES),
        "--tmpfs",
        "/tmp",
        "--bind",
        str(work),
        INSIDE_WORK,
        *binds,
        "--chdir",
        INSIDE_WORK,
    ]
    if not info.node.startswith("/usr/"):
        outer += ["--ro-bind", info.node, INSIDE_NODE]
    return [*outer, "--"]


def _node_inside(info: SandboxInfo) -> str:
    return INSIDE_NODE if not info.node.startswith("/usr/") else info.node


def node_command(
    info: SandboxInfo, work: Path, socket_dir: Path, cpu_seconds: int, coverage_dir: Path | None = None
) -> list[str]:
    """The full argv to run the driver (and through it the candidate's code).

    With `coverage_dir`, V8 writes coverage there. Node 20's permission flags stop it from writing
    any (and refuse node:inspector), so a coverage run has bubblewrap alone around it, and no
    coverage run happens without bubblewrap.
    """
    limits = _limits(info, cpu_seconds)
    if coverage_dir is not None:
        require_bwrap(info, COVERAGE_NEEDS)
    if info.kind == "bwrap":
        binds = ["--ro-bind", str(DRIVER), INSIDE_DRIVER, "--bind", str(socket_dir), INSIDE_GATEWAY]
        flags = permission_flags(info, INSIDE_WORK, INSIDE_DRIVER)
        if coverage_dir is not None:
            binds += ["--bind", str(coverage_dir), INSIDE_COVERAGE]
            flags = []
        return [
            *_parent_death(info),
            *_bwrap(info, work, binds),
            *limits,
            _node_inside(info),
            f"--max-old-space-size={HEAP_MB}",
            *flags,
            INSIDE_DRIVER,
        ]
    return [
        *_parent_death(info),
        *limits,
        info.node,
        f"--max-old-space-size={HEAP_MB}",
        *permission_flags(info, str(work), str(DRIVER)),
        str(DRIVER),
    ]


HOSTS = "127.0.0.1 localhost\n::1 localhost ip6-localhost\n"


def tests_command(info: SandboxInfo, work: Path, etc_dir: Path, argv: list[str], cpu_seconds: int) -> list[str]:
    """The candidate's own tests: bubblewrap only, since `node --test` runs each file in a child
    process that Node's permission flags would not follow. The network namespace has its own
    loopback, so a test may start its own stub on :8099; /etc holds only hosts, for "localhost"."""
    require_bwrap(info, TESTS_NEED)
    etc_dir.mkdir(exist_ok=True)
    (etc_dir / "hosts").write_text(HOSTS)
    (etc_dir / "nsswitch.conf").write_text("hosts: files\n")
    binds = [
        "--ro-bind",
        str(etc_dir / "hosts"),
        "/etc/hosts",
        "--ro-bind",
        str(etc_dir / "nsswitch.conf"),
        "/etc/nsswitch.conf",
    ]
    inside = [_node_inside(info) if word == "node" else word for word in argv]
    return [*_parent_death(info), *_bwrap(info, work, binds), *_limits(info, cpu_seconds), *inside]


def paths_for(info: SandboxInfo, work: Path, socket_dir: Path) -> tuple[str, str]:
    """(entry file, socket) as the sandboxed process sees them."""
    if info.kind == "bwrap":
        return f"{INSIDE_WORK}/checkout.mjs", f"{INSIDE_GATEWAY}/gateway.sock"
    return str(work / "checkout.mjs"), str(socket_dir / "gateway.sock")


def clean_env(info: SandboxInfo, work: Path, extra: dict[str, str]) -> dict[str, str]:
    """Only what the driver needs; never the reviewer's environment (SSH_AUTH_SOCK, tokens, HOME)."""
    # /opt/review holds node when it does not live under /usr.
    if info.kind == "bwrap":
        return {"PATH": f"{Path(INSIDE_NODE).parent}:/usr/bin:/bin", "HOME": INSIDE_WORK, "LANG": "C.UTF-8", **extra}
    return {"PATH": "/usr/bin:/bin", "HOME": str(work), "LANG": "C.UTF-8", **extra}
