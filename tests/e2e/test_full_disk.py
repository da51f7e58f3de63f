"""A real full file system: a small tmpfs in a private mount namespace (root; skipped elsewhere,
with the reason). A full disk gets a clear message, loses nothing, and costs nothing once freed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from helpers import make_repo

SCRIPT = r"""
import contextlib, io, json, os, sys
from pathlib import Path
root = Path(sys.argv[1])
os.environ["REVIEW_CACHE_DIR"] = str(root / "cache")
from review.cli import main
from review.services import store

def fill():
    fd = os.open(root / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"x" * 4096)
    except OSError:
        pass
    os.close(fd)

def triage():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["triage", str(root / "cohort"), "--json"])
    row = json.loads(out.getvalue())["submissions"][0]
    return code, row["state"], row["problem"], row["head"]

sub = root / "cohort" / "ada"
store.save(sub, store.Review(["ana"], "c" * 40, tiers={"evidence": "weak"}, comment="first"))
fill()
try:
    store.save(sub, store.Review(["ana"], "c" * 40, tiers={"evidence": "strong"}, comment="x" * 400_000),
               base_revision=1)
    print("SAVE", "saved on a full disk?")
except store.StoreError as error:
    print("SAVE", error)
kept = store.read_scores(sub).reviews
print("KEPT", kept[0].comment, kept[0].revision)
print("TRIAGE-FULL", json.dumps(triage()))
(root / "filler").unlink()
print("TRIAGE-FREED", json.dumps(triage()))
store.save(sub, store.Review(["ana"], "c" * 40, tiers={"evidence": "strong"}, comment="second"), base_revision=1)
print("SAVED-FREED", store.read_scores(sub).reviews[0].comment)
"""


def test_a_full_disk_is_said_loses_nothing_and_is_forgotten_once_freed(tmp_path):
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare to mount a small tmpfs in a private namespace")
    make_repo(tmp_path / "src" / "cohort" / "ada", {"checkout.mjs": "export const a = 1;\n"})
    mount = tmp_path / "mnt"
    mount.mkdir()
    (tmp_path / "script.py").write_text(SCRIPT)
    result = subprocess.run(
        [
            "unshare",
            "-m",
            "sh",
            "-c",
            f"mount -t tmpfs -o size=2m tmpfs {mount} && cp -a {tmp_path / 'src' / 'cohort'} "
            f"{mount}/ && exec {sys.executable} {tmp_path / 'script.py'} {mount}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if "SAVE" not in result.stdout and result.returncode:
        pytest.skip(f"mount namespaces unavailable here: {result.stderr.strip()[-200:]}")
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    said = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert "No space left on device" in said["SAVE"] and "your review is still in the form" in said["SAVE"]
    assert said["KEPT"] == "first 1"  # the file on disk is the last good save, whole
    code, state, problem, head = json.loads(said["TRIAGE-FULL"])
    assert code == 0 and state == "unreadable" and "the disk is full" in problem and "Nothing was lost" in problem
    code, state, problem, head = json.loads(said["TRIAGE-FREED"])
    assert code == 0 and state == "in review", (state, problem)  # ana's draft, read again
    assert problem is None and head
    assert said["SAVED-FREED"] == "second"
