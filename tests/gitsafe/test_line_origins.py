"""Line origins replayed from one `git log -p` stream agree with `git blame`, file by file, on real
repositories: renames, deletions, content that looks like patch headers, binaries, odd paths."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from review import gitsafe
from review.core import line_origins
from review.services import samples


def build(folder, steps: list[tuple[dict[str, bytes], tuple[str, ...]]]) -> gitsafe.SafeRepo:
    commits = [
        samples.CommitSpec(
            files, f"step {n}", "Cand", "c@example.com", f"2026-11-01T10:{n:02d}:00+00:00", delete=deleted
        )
        for n, (files, deleted) in enumerate(steps)
    ]
    samples.build_repo(folder, commits)
    return gitsafe.open_submission(folder)


def assert_same_as_blame(repo: gitsafe.SafeRepo) -> line_origins.Replay:
    replayed = line_origins.replay(repo.history_patches("HEAD"))
    for entry in repo.files("HEAD"):
        if entry.path in replayed.untracked:
            continue
        # Which commit moved a line is the replay's own knowledge: blame says where it came from.
        assert [o[:3] for o in replayed.files.get(entry.path, [])] == [o[:3] for o in repo.blame("HEAD", entry.path)], (
            entry.path
        )
    # The paths each commit touched, read on the way, are git's own list (a rename: both names).
    touched = {sha: set(paths) for sha, paths in replayed.changed.items() if paths}
    assert touched == {sha: set(paths) for sha, paths in repo.changed_paths().items() if paths}
    for sha in touched:  # and the lines each added, as --numstat counts them
        parent = repo.git("rev-parse", f"{sha}^").decode().strip() if sha != repo.root_commit() else gitsafe.EMPTY_TREE
        assert replayed.added.get(sha, 0) == repo.added_lines(parent, sha), sha
    return replayed


def test_renames_deletions_header_lookalikes_binaries_and_odd_paths(tmp_path):
    lines = [f"line {i}\n" for i in range(1, 21)]
    tricky = b"--- a/fake\n+++ b/fake\n@@ -1 +1 @@\n-- a/x\ndiff --git a/y b/y\n\\ not a marker\n"
    repo = build(
        tmp_path / "repo",
        [
            (
                {
                    "a.mjs": "".join(lines).encode(),
                    "tricky.txt": tricky,
                    'caf\u00e9 "q".md': b"one\ntwo\n",
                    "bin.dat": b"\0\1\2" * 50,
                    "empty": b"",
                },
                (),
            ),
            (
                {
                    "a.mjs": "".join(
                        ["top\n", *lines[:10], "mid\n", *lines[12:], "end"]
                    ).encode(),  # no newline at the end
                    "tricky.txt": tricky.replace(b"-- a/x", b"-- a/changed") + b"--- more\n",
                },
                (),
            ),
            (
                {
                    "moved.mjs": "".join(["top\n", *lines[:10], "mid\n", *lines[12:], "end"]).encode(),
                    "bin.dat": b"\0\3" * 80,
                },
                ("a.mjs",),
            ),  # a rename, as git detects it
            (
                {
                    "moved.mjs": "".join(["top\n", *lines[:5], "new\n", *lines[12:], "end\n"]).encode(),
                    'caf\u00e9 "q".md': b"one\n2\ntwo\n",
                },
                ("empty",),
            ),
        ],
    )
    replayed = assert_same_as_blame(repo)
    assert "bin.dat" in replayed.untracked and "a.mjs" not in replayed.files
    assert len(replayed.files["moved.mjs"]) == 16  # top, five, new, eight, end
    # git's output comes in reads of any size: a hunk's body cut between two batches reads the same.
    lines = [line for batch in repo.history_patches("HEAD") for line in batch]
    for size in (1, 2, 3, 5, 7, 11):
        cut = line_origins.replay(lines[i : i + size] for i in range(0, len(lines), size))
        assert (cut.files, cut.untracked, cut.added) == (replayed.files, replayed.untracked, replayed.added), size


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from(["x.mjs", "y.mjs"]), st.integers(0, 30), st.integers(0, 4), st.integers(0, 5)),
            min_size=1,
            max_size=4,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_any_edit_history_replays_like_blame(tmp_path_factory, history):
    """Random histories of inserts and deletes at random places in two files."""
    files = {"x.mjs": [f"x{i}\n" for i in range(10)], "y.mjs": []}
    steps = []
    for number, edits in enumerate(history):
        for path, at, removed, added in edits:
            body = files[path]
            at = min(at, len(body))
            body[at : at + removed] = [f"{path} c{number} {k} {at}\n" for k in range(added)]
        steps.append(({path: "".join(body).encode() for path, body in files.items()}, ()))
    repo = build(tmp_path_factory.mktemp("h") / "repo", steps)
    assert_same_as_blame(repo)


def test_a_replay_past_its_bound_gives_way_to_blame(tmp_path, monkeypatch):
    repo = build(tmp_path / "repo", [({"a.mjs": b"".join(b"%d\n" % i for i in range(50))}, ())])
    monkeypatch.setattr(line_origins, "MAX_TRACKED_LINES", 10)
    try:
        line_origins.replay(repo.history_patches("HEAD"))
    except line_origins.TooLarge:
        pass
    else:
        raise AssertionError("the bound did not hold")
