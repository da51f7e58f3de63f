"""Histories with merges replay as `git blame -M -C -C` reads them: every line at HEAD has the same
origin commit. Real repositories built in tmp dirs: branches that touch the same files, conflicts
resolved by hand, octopus and criss-cross merges, renames, moves and copies on either side."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from review import gitsafe
from review.core import line_origins

FUNCTION = [
    "export function parseAmount(text) {",
    "  const value = Number.parseFloat(text);",
    '  if (!Number.isFinite(value)) throw new Error("bad amount");',
    "  return Math.round(value * 100);",
    "}",
]

Tree = dict[str, list[str]]


def build(folder, commits: list[tuple[list[int], Tree]]) -> gitsafe.SafeRepo:
    """A repository whose commit n has the parents (earlier indexes) and the whole tree given; HEAD is
    the last commit. One fast-import stream."""
    out = [b"reset refs/heads/main\n"]
    for number, (parents, tree) in enumerate(commits):
        out.append(b"commit refs/heads/main\nmark :%d\n" % (number + 1))
        stamp = b"%d +0000" % (1_767_225_600 + 60 * number)
        out.append(b"author P%d <p@example.com> %s\ncommitter P <p@example.com> %s\n" % (number, stamp, stamp))
        message = b"step %d" % number
        out.append(b"data %d\n%s\n" % (len(message), message))
        for k, parent in enumerate(parents):
            out.append(b"%s :%d\n" % (b"from" if k == 0 else b"merge", parent + 1))
        out.append(b"deleteall\n")
        for path, lines in sorted(tree.items()):
            data = "".join(f"{line}\n" for line in lines).encode()
            out.append(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
    folder.mkdir(parents=True)
    gitsafe.run_trusted(["init", "-q", "--template=", "--initial-branch=main", str(folder)])
    gitsafe.run_trusted(["--git-dir", str(folder / ".git"), "fast-import", "--quiet"], input_bytes=b"".join(out))
    return gitsafe.open_submission(folder)


def assert_like_blame(repo: gitsafe.SafeRepo, whole: bool = True) -> line_origins.Replay:
    """Every file at HEAD: the replay's origin commit for each line is blame's (`whole`: its line and
    path there too)."""
    replayed = line_origins.replay(repo.history_patches("HEAD"))
    width = 3 if whole else 1
    for entry in repo.files("HEAD"):
        theirs = [o[:width] for o in repo.blame("HEAD", entry.path)]
        assert [o[:width] for o in replayed.files.get(entry.path, [])] == theirs, entry.path
    return replayed


def assert_read_the_same_in_any_pieces(repo: gitsafe.SafeRepo, replayed: line_origins.Replay) -> None:
    """git's output comes in reads of any size: patches cut anywhere (a hunk's removed or added
    lines split between two reads) replay the same, moved blocks included (they are found by text)."""
    lines = [line for batch in repo.history_patches("HEAD") for line in batch]
    for size in (1, 2, 5, 13):
        cut = line_origins.replay(lines[i : i + size] for i in range(0, len(lines), size))
        assert (cut.files, cut.added, cut.changed) == (replayed.files, replayed.added, replayed.changed), size
        assert (cut.moved, cut.moved_into) == (replayed.moved, replayed.moved_into), size


def commit_ids(repo: gitsafe.SafeRepo) -> list[str]:
    return [c.sha for c in repo.commits()]


def test_both_sides_touch_a_file_and_the_merge_keeps_each_sides_lines(tmp_path):
    base = {"a.mjs": [f"line {i}" for i in range(10)]}
    main = {"a.mjs": ["main top", *base["a.mjs"]]}
    side = {"a.mjs": [*base["a.mjs"], "side end"], "b.mjs": ["side file"]}
    merged = {"a.mjs": ["main top", *base["a.mjs"], "side end"], "b.mjs": ["side file"]}
    repo = build(tmp_path / "r", [([], base), ([0], main), ([0], side), ([1, 2], merged)])
    replayed = assert_like_blame(repo)
    by_subject = {c.subject: c.sha for c in repo.commits()}
    assert replayed.files["a.mjs"][0][0] == by_subject["step 1"]
    assert replayed.files["a.mjs"][-1][0] == by_subject["step 2"]
    assert replayed.files["b.mjs"][0][0] == by_subject["step 2"]
    assert replayed.added[by_subject["step 3"]] == 0  # a clean merge wrote nothing of its own


def test_a_conflict_resolved_by_hand_is_the_merges_own_where_no_parent_has_the_line(tmp_path):
    base = {"a.mjs": [f"line {i}" for i in range(6)]}
    main = {"a.mjs": ["line 0", "main's line 1", *base["a.mjs"][2:]]}
    side = {"a.mjs": ["line 0", "side's line 1", *base["a.mjs"][2:]]}
    resolved = {"a.mjs": ["line 0", "main's line 1", "resolved by hand", "side's line 1", *base["a.mjs"][2:]]}
    repo = build(tmp_path / "r", [([], base), ([0], main), ([0], side), ([1, 2], resolved)])
    replayed = assert_like_blame(repo)
    first, mine, theirs, merge = [c.sha for c in repo.commits()]
    assert [o[0] for o in replayed.files["a.mjs"]] == [first, mine, merge, theirs, *[first] * 4]


def test_a_merge_taking_the_second_parents_file_whole_takes_its_origins(tmp_path):
    """Blame hands a file identical to a parent's to that parent, whichever it is, before comparing."""
    base = {"a.mjs": ["x", "y", "z"]}
    main = {"a.mjs": ["x", "y", "z", "y"]}  # the same text as the side's line: diffs could pair them
    side = {"a.mjs": ["y", "x", "y", "z"]}
    repo = build(tmp_path / "r", [([], base), ([0], main), ([0], side), ([1, 2], side)])
    assert_like_blame(repo)


def test_octopus_criss_cross_renames_and_a_no_ff_merge(tmp_path):
    base = {"a.mjs": [f"a {i}" for i in range(8)], "b.mjs": [f"b {i}" for i in range(8)]}
    one = {**base, "a.mjs": ["one", *base["a.mjs"]]}
    two = {**base, "b.mjs": [*base["b.mjs"], "two"]}
    three = {"a.mjs": base["a.mjs"], "c.mjs": base["b.mjs"]}  # b.mjs renamed
    octopus = {"a.mjs": ["one", *base["a.mjs"]], "c.mjs": [*base["b.mjs"], "two"]}
    left = {**octopus, "a.mjs": [*octopus["a.mjs"], "left"]}
    right = {**octopus, "c.mjs": ["right", *octopus["c.mjs"]]}
    cross_l = {"a.mjs": left["a.mjs"], "c.mjs": right["c.mjs"]}
    cross_r = {"a.mjs": left["a.mjs"], "c.mjs": ["right", *octopus["c.mjs"][:-1], "right's own"]}
    final = {"a.mjs": left["a.mjs"], "c.mjs": ["right", *octopus["c.mjs"][:-1], "right's own", "two"]}
    feature = {**final, "d.mjs": ["feature"]}
    repo = build(
        tmp_path / "r",
        [
            ([], base),  # 0
            ([0], one),
            ([0], two),
            ([0], three),
            ([1, 2, 3], octopus),  # 4: three parents, b.mjs renamed on one of them
            ([4], left),
            ([4], right),
            ([5, 6], cross_l),  # 7 and 8: each side merges the other
            ([6, 5], {**cross_r, "a.mjs": left["a.mjs"]}),
            ([7, 8], final),  # the criss-cross merged again, by hand
            ([9], feature),
            ([9, 10], feature),  # a merge that changes nothing of the first parent's... it takes the second's tree
        ],
    )
    assert_read_the_same_in_any_pieces(repo, assert_like_blame(repo))


def test_moves_and_copies_on_a_side_branch_keep_their_first_origin_through_the_merge(tmp_path):
    filler = [f"export const v{i} = {i};" for i in range(6)]
    base = {"a.mjs": filler[:3] + FUNCTION + filler[3:], "b.mjs": ["export const b = 1;"]}
    moved = {"a.mjs": filler, "b.mjs": ["export const b = 1;", *FUNCTION]}
    main = {**base, "m.mjs": ["main only"]}
    copied = {**moved, "c.mjs": ["fresh", *FUNCTION]}
    merged = {**copied, "m.mjs": ["main only"]}
    repo = build(tmp_path / "r", [([], base), ([0], moved), ([0], main), ([1], copied), ([2, 3], merged)])
    replayed = assert_like_blame(repo)
    first = commit_ids(repo)[0]
    assert {o[0] for o in replayed.files["c.mjs"][1:]} == {first}
    assert replayed.moved
    assert_read_the_same_in_any_pieces(repo, replayed)


# A history drawn by hypothesis: each step works on a branch (a list of the commits made on it).
STEP = st.one_of(
    st.tuples(st.just("edit"), st.integers(0, 3), st.sampled_from(["x", "y"]), st.integers(0, 12), st.integers(0, 3)),
    st.tuples(st.just("add"), st.integers(0, 3), st.sampled_from(["x", "y"]), st.integers(0, 12), st.integers(1, 3)),
    st.tuples(st.just("move"), st.integers(0, 3), st.sampled_from(["x", "y"]), st.sampled_from(["x", "y", "z"])),
    st.tuples(st.just("copy"), st.integers(0, 3), st.sampled_from(["x", "y"]), st.sampled_from(["w", "z"])),
    st.tuples(st.just("rename"), st.integers(0, 3), st.sampled_from(["x", "y"])),
    st.tuples(st.just("branch"), st.integers(0, 3)),
    st.tuples(
        st.just("merge"), st.integers(0, 3), st.integers(0, 3), st.sampled_from(["ours", "theirs", "both", "hand"])
    ),
    st.tuples(st.just("octopus"), st.integers(0, 3)),
)


def _function(tag: str) -> list[str]:
    return [f"{line} // {tag}" for line in FUNCTION]


def _draw_history(steps: list[tuple]) -> list[tuple[list[int], Tree]]:
    """Commits (parents, tree) from the steps: units of lines (a single line or a five-line function)
    are inserted, removed, moved and copied whole, so a moved block is never cut under the thresholds."""
    units: list[dict[str, list[list[str]]]] = [
        {"x.mjs": [[f"x {i}"] for i in range(6)] + [_function("x")], "y.mjs": [[f"y {i}"] for i in range(4)]}
    ]
    commits: list[tuple[list[int], Tree]] = [([], {})]
    tips = [0]

    def tree_of(state: dict[str, list[list[str]]]) -> Tree:
        return {path: [line for unit in body for line in unit] for path, body in state.items()}

    def commit(parents: list[int], state: dict[str, list[list[str]]]) -> int:
        units.append(state)
        commits.append((parents, tree_of(state)))
        return len(commits) - 1

    commits[0] = ([], tree_of(units[0]))
    for number, step in enumerate(steps):
        kind, branch = step[0], step[1] % len(tips)
        state = {path: list(body) for path, body in units[tips[branch]].items()}
        name = next((p for p in state if p.startswith(str(step[2]) if len(step) > 2 else "")), None)
        if kind in ("edit", "add") and name is not None:
            at = min(step[3], len(state[name]))
            removed = step[4] if kind == "edit" else 0
            state[name][at : at + removed] = [
                [f"{name} c{number} {k}"] for k in range(1 if kind == "edit" else step[4])
            ]
        elif kind in ("move", "copy") and name is not None:
            blocks = [i for i, unit in enumerate(state[name]) if len(unit) > 1]
            if not blocks:
                state[name].append(_function(f"f{number}"))
            else:
                unit = state[name][blocks[0]]
                if kind == "move":
                    del state[name][blocks[0]]
                target = next((p for p in state if p.startswith(step[3])), f"{step[3]}{number}.mjs")
                state.setdefault(target, []).insert(len(state.get(target, [])) // 2, unit)
        elif kind == "rename" and name is not None:
            state[f"{name[0]}{number}.mjs"] = state.pop(name)
        elif kind == "branch":
            tips.append(tips[branch])
            continue
        elif kind == "merge" and tips[step[2] % len(tips)] != tips[branch]:
            other = units[tips[step[2] % len(tips)]]
            state = _merged(state, other, step[3], number)
            tips[branch] = commit([tips[branch], tips[step[2] % len(tips)]], state)
            continue
        elif kind == "octopus" and len(set(tips)) >= 3:
            parents = [tips[branch], *[tip for tip in dict.fromkeys(tips) if tip != tips[branch]][:2]]
            for other in parents[1:]:
                state = _merged(state, units[other], "both", number)
            tips[branch] = commit(parents, state)
            continue
        else:
            continue
        tips[branch] = commit([tips[branch]], state)
    return commits


def _merged(ours: dict, theirs: dict, how: str, number: int) -> dict:
    """Each side's units where that side has them (a unit only theirs goes after the unit it follows
    there, as git's merge places it; a merge moving code is a case the replay leaves to the merge)."""
    state = {path: list(body) for path, body in ours.items()}
    for path, body in theirs.items():
        mine = state.get(path)
        if mine is None or how == "theirs":
            state[path] = list(body)
        elif mine != body and how in ("both", "hand"):
            after = -1
            for unit in body:
                if unit in mine:
                    after = mine.index(unit)
                else:
                    mine.insert(after + 1, unit)
                    after += 1
            if how == "hand":
                mine.insert(after + 1, [f"resolved {number}"])
    return state


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(STEP, min_size=2, max_size=14))
def test_any_history_with_merges_gives_every_line_blames_commit(tmp_path_factory, steps):
    commits = _draw_history(steps)
    repo = build(tmp_path_factory.mktemp("h") / "r", commits)
    assert_like_blame(repo, whole=False)


def test_the_bound_counts_the_lines_of_every_commit_kept_for_a_child(tmp_path, monkeypatch):
    """A commit with two children is kept while the first is read: its lines count beside the child's."""
    base = {"a.mjs": [f"line {i}" for i in range(20)]}
    one, two = {"a.mjs": [*base["a.mjs"], "one"]}, {"a.mjs": ["two", *base["a.mjs"]]}
    linear = build(tmp_path / "linear", [([], base), ([0], one), ([1], {"a.mjs": ["two", *one["a.mjs"]]})])
    branched = build(
        tmp_path / "branched", [([], base), ([0], one), ([0], two), ([1, 2], {"a.mjs": ["two", *one["a.mjs"]]})]
    )
    monkeypatch.setattr(line_origins, "MAX_TRACKED_LINES", 30)
    assert len(line_origins.replay(linear.history_patches("HEAD")).files["a.mjs"]) == 22
    try:
        line_origins.replay(branched.history_patches("HEAD"))
    except line_origins.TooLarge:
        pass
    else:
        raise AssertionError("the lines kept for the second child were not counted")


def test_a_block_a_merge_itself_moves_is_the_merges_where_blame_finds_the_move(tmp_path):
    """The one case the replay leaves to the merge on purpose (docs/attribution.md): a merge's own lines
    are not searched for blocks in its parents, where blame runs -M and -C on them."""
    tail = [f"export const t{i} = {i};" for i in range(10)]
    base = {"a.mjs": ["top", *FUNCTION, *tail]}
    side = {"a.mjs": [*base["a.mjs"], "side"]}
    moved = {"a.mjs": ["main", "top", *tail, "side", *FUNCTION]}  # the resolution moves the function down
    repo = build(tmp_path / "r", [([], base), ([0], {"a.mjs": ["main", *base["a.mjs"]]}), ([0], side), ([1, 2], moved)])
    first, *_, merge = commit_ids(repo)
    replayed = line_origins.replay(repo.history_patches("HEAD")).files["a.mjs"]
    assert {o[0] for o in replayed[-5:]} == {merge}
    assert {o[0] for o in repo.blame("HEAD", "a.mjs")[-5:]} == {first}
