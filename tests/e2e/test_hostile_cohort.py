"""A cohort holding every hostile shape a candidate controls: each opens, each hostile row says why,
nothing crashes, hangs, leaks another candidate's data or fills memory. Real repositories, real git,
real FIFOs and links; `review triage --json` run as a reviewer would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import git, make_repo
from review import gitsafe
from review.core import attribution, text
from review.services import analysis, export, store

NOTE = "# Note\n\n## AI use\n\n- checkout.mjs:1-2 — Claude Code\n"


def candidate(root: Path, name: str, files: dict[str, str] | None = None, message: str = "work") -> Path:
    return make_repo(
        root / name, files or {"checkout.mjs": "export const a = 1;\nexport const b = 2;\n", "NOTE.md": NOTE}, message
    )


@pytest.fixture
def hostile(tmp_path) -> Path:
    root = tmp_path / "cohort"
    root.mkdir()
    candidate(root, "honest")
    other = candidate(root, "other", {"checkout.mjs": "// other candidate's secret code\n", "NOTE.md": NOTE})

    # Another candidate's objects pulled in through alternates, and through symlinked git internals.
    alt = candidate(root, "alternates")
    (alt / ".git/objects/info").mkdir(parents=True, exist_ok=True)
    (alt / ".git/objects/info/alternates").write_text(str(other / ".git/objects") + "\n")
    linked_refs = candidate(root, "linked-refs")
    shutil.rmtree(linked_refs / ".git/refs")
    (linked_refs / ".git/refs").symlink_to(other / ".git/refs")
    linked_objects = candidate(root, "linked-objects")
    shutil.rmtree(linked_objects / ".git/objects")
    (linked_objects / ".git/objects").symlink_to(other / ".git/objects")
    common = candidate(root, "commondir")
    (common / ".git/commondir").write_text(str(other / ".git") + "\n")

    # Things that would hang a plain read or git: FIFOs where files belong, a config that includes one.
    fifo_ref = candidate(root, "fifo-ref")
    (fifo_ref / ".git/refs/heads/main").unlink()
    os.mkfifo(fifo_ref / ".git/refs/heads/main")
    fifo_head = candidate(root, "fifo-head")
    (fifo_head / ".git/HEAD").unlink()
    os.mkfifo(fifo_head / ".git/HEAD")
    include = candidate(root, "config-include")
    os.mkfifo(root / "include.fifo")
    with open(include / ".git/config", "a") as handle:
        handle.write(f"[include]\n\tpath = {root / 'include.fifo'}\n")
    ref_dir = candidate(root, "ref-is-a-folder")
    (ref_dir / ".git/refs/heads/main").unlink()
    (ref_dir / ".git/refs/heads/main").mkdir()

    # Parsers: malformed Agent Trace and git-ai JSON, a 300 KB trailer, a 20M-line range, invisibles.
    traced = candidate(
        root,
        "bad-json",
        {
            "checkout.mjs": "export const a = 1;\n",
            "NOTE.md": NOTE,
            ".agent-trace/traces.jsonl": '"a string"\n[1, 2]\n{"files": "x"}\n'
            '{"files": [{"conversations": {"a": 1}}]}\n' + "[" * 100_000 + "\n",
        },
    )
    note = git(
        "hash-object", "-w", "--stdin", cwd=traced, input_text="checkout.mjs\n  s_1 1-20000000\n---\n[1,2]\n"
    ).strip()
    head = git("rev-parse", "HEAD", cwd=traced).strip()
    git(
        "update-ref",
        "refs/notes/ai",
        git(
            "commit-tree",
            git("mktree", cwd=traced, input_text=f"100644 blob {note}\t{head}\n").strip(),
            "-m",
            "notes",
            cwd=traced,
        ).strip(),
        cwd=traced,
    )
    candidate(
        root,
        "huge-trailer",
        message="subject\n\nAssisted-by: " + "<" * 300_000 + "\n" + ("Co-authored-by: " + "a " * 150_000),
    )
    candidate(
        root,
        "range-bomb",
        {"checkout.mjs": "export const a = 1;\n", "NOTE.md": "## AI use\n\n- checkout.mjs:1-20000000 — Claude Code\n"},
    )
    invisible = candidate(root, "invisible", message="fix\u3164\u2063\U000e0041")
    git(
        "commit",
        "--amend",
        "--reset-author",
        "-q",
        "-m",
        "a\u00ad\u180e",
        cwd=invisible,
        env={"GIT_AUTHOR_NAME": "Eve\u202e\u3164\uffa0"},
    )

    # A score file that is a FIFO, and a lock that is a symbolic link.
    os.mkfifo(root / "honest.review.toml")
    candidate(root, "locked")
    (root / "locked.review.toml.lock").symlink_to(root / "other" / "NOTE.md")
    # A score file the candidate planted: "final", by a colleague, at their own HEAD — unsealed.
    planted = candidate(root, "planted")
    planted_head = git("rev-parse", "HEAD", cwd=planted).strip()
    (root / "planted.review.toml").write_text(
        f'schema = 1\n[[reviews]]\nreviewers = ["lead"]\nstate = "final"\ncommit = "{planted_head}"\n'
        '[reviews.tiers]\nfound-defect = "strong"\n'
    )
    # Folders that are not repositories at all.
    (root / "not-a-repo").mkdir()
    (root / "empty").mkdir()
    git("init", "-q", cwd=root / "empty")
    return root


def triage_json(cohort_dir: Path) -> tuple[dict, int]:
    """`review triage --json` in its own process, as a reviewer runs it; and its peak memory (KiB).
    The peak is the process's own (VmHWM of its memory map): getrusage's ru_maxrss keeps, across the
    exec, the parent's resident size at the fork, which is a whole test worker's late in a full run."""
    code = (
        "import re, sys\nfrom review.cli import main\nrc = main(['triage', sys.argv[1], '--json'])\n"
        "peak = re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read()).group(1)\n"
        "print('RC', rc, 'RSS', peak, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(cohort_dir)], capture_output=True, text=True, timeout=120, env=os.environ
    )
    assert result.returncode == 0, result.stderr[-2000:]
    rss = int(result.stderr.split("RSS")[-1].split()[0])
    return json.loads(result.stdout), rss


@pytest.mark.timeout(180)
def test_every_hostile_row_opens_with_its_reason_and_nothing_crosses_over(hostile):
    document, rss_kib = triage_json(hostile)
    rows = {row["name"]: row for row in document["submissions"]}
    assert set(rows) >= {
        "honest",
        "other",
        "alternates",
        "linked-refs",
        "linked-objects",
        "commondir",
        "fifo-ref",
        "fifo-head",
        "config-include",
        "ref-is-a-folder",
        "bad-json",
        "huge-trailer",
        "range-bomb",
        "invisible",
        "locked",
        "not-a-repo",
        "empty",
        "planted",
    }
    unreadable = {name: row["problem"] for name, row in rows.items() if row["state"] == "unreadable"}
    assert "alternates" in unreadable["alternates"]
    assert "symbolic link" in unreadable["linked-refs"]
    assert "symbolic link" in unreadable["linked-objects"]
    assert "commondir" in unreadable["commondir"]
    assert "FIFO" in unreadable["fifo-ref"] and "FIFO" in unreadable["fifo-head"]
    assert "include" in unreadable["config-include"]
    assert "folder" in unreadable["ref-is-a-folder"]
    assert "not a git repository" in unreadable["not-a-repo"] and "empty" in unreadable["empty"]
    # The rest were read, each as itself: no row shows the other candidate's HEAD.
    other_head = rows["other"]["head"]
    assert all(row["head"] != other_head for name, row in rows.items() if name != "other")
    for name in ("bad-json", "huge-trailer", "range-bomb", "invisible", "locked"):
        assert rows[name]["state"] != "unreadable" and rows[name]["complete"], (name, rows[name]["problem"])
    assert "FIFO" in (rows["honest"]["problem"] or "")  # its score file: said, not read
    assert rows["planted"]["state"] == "new" and rows["planted"]["reviewers"] == []  # not "scored by lead"
    assert "not counted" in rows["planted"]["problem"] and "not sealed" in rows["planted"]["problem"]
    assert rows["range-bomb"]["attribution"]["unmapped"]  # lines past the end: listed, not built
    assert rss_kib < 300 * 1024


def test_the_screens_see_only_sanitised_text(hostile):
    repo = gitsafe.open_submission(hostile / "invisible")
    commit = repo.commits()[-1]
    shown = text.safe_line(commit.author_name + " " + commit.message)
    for hidden in ("\u202e", "\u3164", "\uffa0", "\u00ad", "\u180e"):
        assert hidden not in shown
    assert "<U+202E>" in shown and "<U+3164>" in shown and "<U+FFA0>" in shown and "<U+00AD>" in shown
    assert text.is_clean(shown)


def test_a_symlinked_lock_is_never_followed(hostile):
    target = hostile / "other" / "NOTE.md"
    before = target.read_bytes()
    with pytest.raises(store.StoreError, match="symbolic link"):
        store.save(hostile / "locked", store.Review(["ana"], "a" * 40))
    assert target.read_bytes() == before


def test_malformed_line_records_and_huge_ranges_cost_nothing(hostile):
    repo = gitsafe.open_submission(hostile / "bad-json")
    result = analysis.analyse(repo)  # a string, a list, a 100k-deep array, a 20M-line range: no crash
    assert result.diff.files and result.attribution is not None
    records = attribution.parse_git_ai_note("a" * 40, "x.mjs\n  s_1 1-20000000\n---\n[1]\n")
    assert records and records[0].ranges == [(1, 20_000_000)]


def test_exports_carry_no_escapes_and_no_live_formulas(tmp_path):
    cohort_dir = tmp_path / "c"
    candidate(cohort_dir, "=cmd|' -C calc'!A0")
    review = store.Review(
        ["@SUM(1+1)"],
        "a" * 40,
        state="final",
        comment="\x1b]52;c;cHduZWQ=\x07 [x](http://evil)",
        comments={"found-defect": "-1+1"},
    )
    store.save(cohort_dir / "=cmd|' -C calc'!A0", review)
    csv_text = export.render(cohort_dir, "csv")
    assert "\x1b" not in csv_text and "\x07" not in csv_text
    cells = [cell for line in csv_text.splitlines()[1:] for cell in line.split(",")]
    assert not any(cell.lstrip('"').startswith(("=", "+", "-", "@")) for cell in cells)
    assert "'=cmd|' -C calc'!A0" in csv_text and "'@SUM(1+1)" in csv_text and "'-1+1" in csv_text
    md = export.render(cohort_dir, "md")
    assert "\x1b" not in md
    assert "=cmd\\|' -C calc'\\!A0" in md  # the pipe cannot open a new column
    assert md.splitlines()[2].count(" | ") == md.splitlines()[0].count(" | ")
