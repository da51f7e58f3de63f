"""Moved and copied blocks keep where they were first written, in the history replay as in
`git blame -M -C -C`: real repositories, the replay compared with git's own blame line by line."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from review import gitsafe
from review.core import line_origins
from review.services import samples

# 5 lines, 120 letters and digits: over both of git's thresholds (20 within a file, 40 between files).
FUNCTION = [
    "export function parseAmount(text) {\n",
    "  const value = Number.parseFloat(text);\n",
    '  if (!Number.isFinite(value)) throw new Error("bad amount");\n',
    "  return Math.round(value * 100);\n",
    "}\n",
]
HEAD_LINES = [f"export const head{i} = {i};\n" for i in range(4)]
TAIL_LINES = [f"export const tail{i} = {i};\n" for i in range(4)]


def build(folder, steps: list[tuple[dict[str, list[str]], tuple[str, ...]]]) -> tuple[gitsafe.SafeRepo, list[str]]:
    commits = [
        samples.CommitSpec(
            {path: "".join(lines).encode() for path, lines in files.items()},
            f"step {n}",
            f"Person {n}",
            f"p{n}@example.com",
            f"2026-11-01T10:{n:02d}:00+00:00",
            delete=deleted,
        )
        for n, (files, deleted) in enumerate(steps)
    ]
    samples.build_repo(folder, commits)
    repo = gitsafe.open_submission(folder)
    return repo, [c.sha for c in repo.commits()]


def replayed_like_blame(repo: gitsafe.SafeRepo) -> dict[str, line_origins.Origins]:
    """The replay's origins, after checking every file at HEAD against `git blame -M -C -C --porcelain`."""
    replayed = line_origins.replay(repo.history_patches("HEAD"))
    for entry in repo.files("HEAD"):
        assert [o[:3] for o in replayed.files[entry.path]] == [o[:3] for o in repo.blame("HEAD", entry.path)], (
            entry.path
        )
    return replayed.files


def test_a_block_moved_between_files_in_one_commit_keeps_its_origin(tmp_path):
    repo, (first, mover) = build(
        tmp_path / "r",
        [
            ({"a.mjs": HEAD_LINES + FUNCTION + TAIL_LINES, "b.mjs": HEAD_LINES[:2]}, ()),
            ({"a.mjs": HEAD_LINES + TAIL_LINES, "b.mjs": HEAD_LINES[:1] + FUNCTION + HEAD_LINES[1:2]}, ()),
        ],
    )
    files = replayed_like_blame(repo)
    assert files["b.mjs"][1:6] == [(first, 5 + k, "a.mjs", mover) for k in range(5)]
    assert files["a.mjs"][4] == (first, 10, "a.mjs", "")  # the lines left behind never moved


def test_a_function_copied_from_an_existing_file_into_a_new_one_keeps_its_origin(tmp_path):
    fresh = ['export const fresh = parseAmount("12.50");\n']
    repo, (first, second, copier) = build(
        tmp_path / "r",
        [
            ({"a.mjs": HEAD_LINES + FUNCTION}, ()),
            ({"a.mjs": HEAD_LINES + FUNCTION + TAIL_LINES}, ()),
            ({"c.mjs": fresh + FUNCTION + fresh}, ()),  # the original stays where it is: a copy
        ],
    )
    files = replayed_like_blame(repo)
    assert files["c.mjs"] == [
        (copier, 1, "c.mjs", ""),
        *((first, 5 + k, "a.mjs", copier) for k in range(5)),
        (copier, 7, "c.mjs", ""),
    ]
    assert [o[0] for o in files["a.mjs"]] == [first] * 9 + [second] * 4


def test_blocks_under_the_thresholds_are_the_movers_own(tmp_path):
    small = ["let a = 1;\n", "let b = 2;\n"]  # 8 letters and digits: under either threshold
    medium = ["const total = price + tax;\n", "count++;\n"]  # 25: a move within a file, not between files
    repo, (first, mover) = build(
        tmp_path / "r",
        [
            (
                {
                    "a.mjs": HEAD_LINES + small + TAIL_LINES,
                    "b.mjs": HEAD_LINES + medium + TAIL_LINES,
                    "c.mjs": HEAD_LINES + medium + TAIL_LINES,
                },
                (),
            ),
            (
                {
                    "a.mjs": HEAD_LINES + TAIL_LINES,
                    "b.mjs": HEAD_LINES[:1] + small + HEAD_LINES[1:] + TAIL_LINES,
                    # c.mjs: the medium block moved to the file's end (within the file); b.mjs: it goes to d.mjs
                    "c.mjs": HEAD_LINES + TAIL_LINES + medium,
                    "d.mjs": TAIL_LINES[:1] + medium,
                },
                (),
            ),
        ],
    )
    files = replayed_like_blame(repo)
    assert [o[0] for o in files["b.mjs"][1:3]] == [mover, mover]  # 8 between files: the mover's
    assert files["c.mjs"][8:] == [(first, 5, "c.mjs", mover), (first, 6, "c.mjs", mover)]  # 25 within: kept
    assert [o[0] for o in files["d.mjs"][1:]] == [mover, mover]  # 25 between files: under 40, the mover's


def test_a_block_moved_twice_keeps_its_first_origin(tmp_path):
    repo, (first, _, second_mover) = build(
        tmp_path / "r",
        [
            ({"a.mjs": HEAD_LINES + FUNCTION}, ()),
            ({"b.mjs": FUNCTION + TAIL_LINES, "a.mjs": HEAD_LINES}, ()),
            ({"c.mjs": TAIL_LINES[:1] + FUNCTION, "b.mjs": TAIL_LINES}, ()),
        ],
    )
    files = replayed_like_blame(repo)
    assert files["c.mjs"][1:] == [(first, 5 + k, "a.mjs", second_mover) for k in range(5)]


def test_lines_that_only_look_alike_in_small_pieces_are_not_a_move(tmp_path):
    """Braces and blank lines are everywhere: new code made of them and new lines is the writer's."""
    common = ["}\n", "\n", "  return;\n"]
    repo, (_, writer) = build(
        tmp_path / "r",
        [
            ({"a.mjs": (HEAD_LINES + common) * 3}, ()),
            ({"b.mjs": ["function fresh() {\n", *common, "function other() {\n", *common]}, ()),
        ],
    )
    files = replayed_like_blame(repo)
    assert {o[0] for o in files["b.mjs"]} == {writer}


BLOCK_LINES = st.lists(st.text(alphabet="abcdefgh =;(){}", min_size=0, max_size=24), min_size=1, max_size=6)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(block=BLOCK_LINES, at_from=st.integers(0, 4), at_to=st.integers(0, 4), salt=st.integers(0, 99))
def test_a_block_of_at_least_the_threshold_moved_between_files_keeps_its_origin(
    tmp_path_factory, block, at_from, at_to, salt
):
    lines = [f"{text} // block {salt}\n" for text in block]
    if sum(ch.isascii() and ch.isalnum() for line in lines for ch in line) < line_origins.COPY_MIN_ALNUM:
        lines.append("export const padding = 'enough letters and digits to count';\n")
    source = [f"export const s{i} = {i * 7};\n" for i in range(5)]
    target = [f"export const t{i} = {i * 11};\n" for i in range(5)]
    repo, (first, mover) = build(
        tmp_path_factory.mktemp("m") / "r",
        [
            ({"from.mjs": source[:at_from] + lines + source[at_from:], "to.mjs": target}, ()),
            ({"from.mjs": source, "to.mjs": target[:at_to] + lines + target[at_to:]}, ()),
        ],
    )
    files = line_origins.replay(repo.history_patches("HEAD")).files
    assert files["to.mjs"][at_to : at_to + len(lines)] == [
        (first, at_from + 1 + k, "from.mjs", mover) for k in range(len(lines))
    ]


WORDS = [
    "export const total = price + tax;",
    "}",
    "",
    "return retryWithBackoff(request, attempts);",
    "if (!response.ok) throw new Error(response.statusText);",
    "let a = 1;",
]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["x.mjs", "y.mjs", "z.mjs"]),
            st.sampled_from(["x.mjs", "y.mjs", "z.mjs"]),
            st.integers(0, 12),
            st.integers(1, 6),
            st.integers(0, 12),
            st.booleans(),
            st.lists(st.sampled_from(WORDS), max_size=4),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_every_origin_a_replay_gives_holds_the_same_text_there(tmp_path_factory, edits):
    """Random moves and copies of blocks between files, with new lines from a small vocabulary (so
    lines repeat everywhere): whatever origin a line is given, that commit's file has that text there."""
    files = {"x.mjs": [f"{w} // x{i}\n" for i, w in enumerate(WORDS * 2)], "y.mjs": [], "z.mjs": ["}\n"]}
    steps = [({p: list(body) for p, body in files.items()}, ())]
    for source, target, at, size, to, copy, fresh in edits:
        block = files[source][at : at + size]
        if not copy:
            del files[source][at : at + size]
        files[target][to:to] = block + [f"{w}\n" for w in fresh]
        steps.append(({p: list(body) for p, body in files.items()}, ()))
    repo, _ = build(tmp_path_factory.mktemp("o") / "r", steps)
    replayed = line_origins.replay(repo.history_patches("HEAD"))
    versions: dict[tuple[str, str], list[bytes]] = {}
    for path, origins in replayed.files.items():
        head = (repo.show("HEAD", path) or b"").splitlines()
        assert len(head) == len(origins)
        for text, (commit, line_no, there, _mover) in zip(head, origins):
            if (commit, there) not in versions:
                versions[commit, there] = (repo.show(commit, there) or b"").splitlines()
            assert versions[commit, there][line_no - 1] == text, (path, commit, line_no, there)
