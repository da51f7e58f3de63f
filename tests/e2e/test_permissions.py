"""Real permissions, as two reviewers on one machine have them: unprivileged users made with
setpriv when the suite runs as root (skipped, with the reason, where it cannot)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from helpers import make_repo

GROUP = 4242  # the pair's shared group
ANA, BOB = 4001, 4002


def _as_user(
    uid: int, code: str, home: Path, extra_env: dict[str, str] | None = None, umask: int = 0o022
) -> subprocess.CompletedProcess:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "REVIEW_CACHE_DIR": str(home / "cache"),
        "PYTHONDONTWRITEBYTECODE": "1",
        **(extra_env or {}),
    }
    home.mkdir(parents=True, exist_ok=True)
    os.chown(home, uid, GROUP)
    return subprocess.run(
        [
            "setpriv",
            f"--reuid={uid}",
            f"--regid={GROUP}",
            "--clear-groups",
            "--",
            sys.executable,
            "-c",
            f"import os; os.umask({umask:#o})\n{code}",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture
def world():
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv (util-linux) to act as two unprivileged reviewers")
    folder = Path(tempfile.mkdtemp(prefix="review-perm-", dir="/tmp"))
    folder.chmod(0o755)  # pytest's own tmp folders are 0700: the reviewers could not reach them
    probe = _as_user(ANA, "import review", folder / "probe")
    if probe.returncode:
        shutil.rmtree(folder)
        pytest.skip(f"this checkout cannot be imported by another user: {probe.stderr.strip()[-200:]}")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _setgid_cohort(world: Path) -> tuple[Path, Path]:
    """The README's shared cohort: root's, the pair's group, setgid and group-writable; one submission."""
    cohort = world / "cohort"
    sub = cohort / "ada"
    sub.mkdir(parents=True)
    os.chown(cohort, 0, GROUP)
    cohort.chmod(0o2775)
    return cohort, sub


SAVE = (
    "import sys\nfrom pathlib import Path\nfrom review.services import store\n"
    "try:\n    store.save(Path(sys.argv[1]) if len(sys.argv) > 1 else Path({sub!r}), "
    "store.Review([{who!r}], 'c' * 40, tiers={{'evidence': 'weak'}}))\n    print('SAVED')\n"
    "except store.StoreError as error:\n    print('REFUSED', error)\n"
)


def test_the_second_reviewer_saves_in_a_setgid_cohort_with_a_shared_seal_key(world):
    """The README's pair-review set-up: a shared group, a setgid group-writable cohort, one seal key
    the group can read. Ana saves first under umask 022 (her lock file would be 0644 without care);
    Bob's save then works, and each counts the other's entry."""
    cohort, sub = _setgid_cohort(world)
    key = world / "seal.key"
    key.write_text("ab" * 32 + "\n")
    os.chown(key, 0, GROUP)
    key.chmod(0o640)
    shared = {"REVIEW_SEAL_KEY": str(key)}
    first = _as_user(ANA, SAVE.format(sub=str(sub), who="ana"), world / "ana", shared)
    assert "SAVED" in first.stdout, first.stdout + first.stderr
    second = _as_user(BOB, SAVE.format(sub=str(sub), who="bob"), world / "bob", shared)
    assert "SAVED" in second.stdout, second.stdout + second.stderr
    read = (
        "from pathlib import Path\nfrom review.services import store\n"
        f"s = store.read_scores(Path({str(sub)!r}))\nprint(sorted(r.who for r in s.reviews), s.unsealed_notice)\n"
    )
    assert _as_user(ANA, read, world / "ana", shared).stdout.strip() == "['ana', 'bob'] None"
    lock = cohort / "ada.review.toml.lock"
    assert lock.stat().st_gid == GROUP and lock.stat().st_mode & 0o777 == 0o664


def test_a_lock_file_the_other_reviewer_cannot_write_is_named_with_its_fix(world):
    cohort, sub = _setgid_cohort(world)
    lock = cohort / "ada.review.toml.lock"
    lock.write_text("")
    os.chown(lock, ANA, GROUP)
    lock.chmod(0o644)  # made by an older console under umask 022
    refused = _as_user(BOB, SAVE.format(sub=str(sub), who="bob"), world / "bob")
    assert "REFUSED" in refused.stdout and f"belongs to user {ANA}" in refused.stdout
    assert "chmod g+w" in refused.stdout and "read-only" not in refused.stdout


def test_a_submission_folder_the_reviewer_cannot_read_is_its_rows_reason(world):
    cohort = world / "cohort"
    make_repo(cohort / "open", {"checkout.mjs": "export const a = 1;\n"})
    make_repo(cohort / "closed", {"checkout.mjs": "export const a = 1;\n"})
    (cohort / "closed").chmod(0o700)  # root's own: the reviewer may not look inside
    for path in (cohort, *cohort.rglob("*")):
        if not str(path).startswith(str(cohort / "closed")):
            os.chown(path, ANA, GROUP, follow_symlinks=False)
    (world / "ana").mkdir()
    os.chown(world / "ana", ANA, GROUP)
    code = "import sys\nfrom review.cli import main\nsys.exit(main(['triage', sys.argv[1], '--json']))\n"
    result = subprocess.run(
        [
            "setpriv",
            f"--reuid={ANA}",
            f"--regid={GROUP}",
            "--clear-groups",
            "--",
            sys.executable,
            "-c",
            code,
            str(cohort),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "PATH": os.environ["PATH"],
            "HOME": str(world / "ana"),
            "REVIEW_CACHE_DIR": str(world / "ana" / "cache"),
            "XDG_DATA_HOME": str(world / "ana" / "data"),
        },
    )
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    rows = {row["name"]: row for row in json.loads(result.stdout)["submissions"]}
    assert rows["open"]["state"] == "new" and rows["open"]["head"]
    assert rows["closed"]["state"] == "unreadable" and "ermission denied" in rows["closed"]["problem"]


def test_git_internals_the_reviewer_cannot_read_are_named_in_the_rows_reason(world):
    """The folder opens but part of its repository does not: an objects/ folder or a pack the
    reviewer may not read. The row names what and why — never a Python exception's name, never
    git's last words ('the remote end hung up unexpectedly')."""
    cohort = world / "cohort"
    for name in ("objects-closed", "pack-closed"):
        make_repo(cohort / name, {"checkout.mjs": "export const a = 1;\n"})
    subprocess.run(["git", "gc", "-q"], cwd=cohort / "pack-closed", check=True, capture_output=True)
    (cohort / "objects-closed/.git/objects").chmod(0o700)
    for pack in (cohort / "pack-closed/.git/objects/pack").iterdir():
        pack.chmod(0o600)
    code = "import sys\nfrom review.cli import main\nsys.exit(main(['triage', sys.argv[1], '--json']))\n"
    result = _as_user(ANA, code.replace("sys.argv[1]", repr(str(cohort))), world / "ana")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    rows = {row["name"]: row for row in json.loads(result.stdout)["submissions"]}
    closed = rows["objects-closed"]["problem"]
    assert "objects" in closed and "Permission denied" in closed and "Error" not in closed, closed
    pack = rows["pack-closed"]["problem"]
    assert "Permission denied" in pack and "hung up" not in pack, pack


def test_a_git_folder_that_can_be_passed_through_but_not_listed_is_refused(world):
    """objects/xx at mode 711: git opens objects/xx/<id> by name, so a symbolic link in there (to
    another candidate's object) would be followed, while the check before the copy cannot list the
    folder to see it. Such a folder is a refusal, never passed over."""
    cohort = world / "cohort"
    files = {"checkout.mjs": "export const secret = 'the other candidate';\n"}
    other = make_repo(cohort / "other", files)
    hider = make_repo(cohort / "hider", files)
    oid = subprocess.run(
        ["git", "rev-parse", "HEAD:checkout.mjs"], cwd=hider, capture_output=True, text=True, check=True
    ).stdout.strip()
    loose = hider / ".git/objects" / oid[:2] / oid[2:]
    loose.unlink()
    loose.symlink_to(other / ".git/objects" / oid[:2] / oid[2:])
    loose.parent.chmod(0o711)
    code = "import sys\nfrom review.cli import main\nsys.exit(main(['triage', sys.argv[1], '--json']))\n"
    result = _as_user(ANA, code.replace("sys.argv[1]", repr(str(cohort))), world / "ana")
    assert result.returncode == 0, result.stderr[-2000:]
    rows = {row["name"]: row for row in json.loads(result.stdout)["submissions"]}
    assert rows["hider"]["state"] == "unreadable", rows["hider"]
    assert f"objects/{oid[:2]} cannot be read (Permission denied)" in rows["hider"]["problem"]
