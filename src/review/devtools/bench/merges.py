"""A synthetic history with merges, shaped like a project built through pull requests, as one
``git fast-import`` stream (``review bench repo``).

Branches start from the main line, add commits of their own while the main line moves on, and are
merged back: they touch the same files as the main line (one adds to a file's top while the main
line adds to its end), every so many merges two branches go in at once (an octopus), two branches
merge each other before both are merged (a criss-cross), and a branch and the main line replace the
same block, the merge resolving the conflict by hand with a block of its own. Every commit but a
merge adds lines and gets a git-ai note (authorship/3.0.0) naming them; every tenth has a
``Co-authored-by`` trailer.

A file is a list of blocks, each the lines one commit wrote; a merge's file is the first parent's
blocks with the blocks the other parents added put after the block they follow there, and the blocks
they removed removed: what git's merge gives for changes that do not touch each other.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

FILES = 250
SESSION = "s_8f3a"

Tree = dict[str, tuple[int, ...]]  # path -> its blocks, in order


@dataclass
class History:
    commits: int
    merges: int
    lines: int
    out: list[bytes] = field(default_factory=list)
    notes: list[tuple[int, str]] = field(default_factory=list)
    blocks: list[list[str]] = field(default_factory=list)  # block id -> its lines
    trees: dict[int, Tree] = field(default_factory=dict)  # mark -> its tree
    made: int = 0  # commits written
    merged: int = 0  # merges written
    octopus: int = 0
    criss_cross: int = 0
    resolved: int = 0

    def block(self, number: int, size: int) -> int:
        self.blocks.append(
            [f"export const value_{number}_{i} = {number * 1000 + i}; // commit {number}" for i in range(size)]
        )
        return len(self.blocks) - 1

    def write(self, parents: list[int], tree: Tree, message: str, added: tuple[str, int] | None) -> int:
        """A commit of `tree` on `parents` (marks); `added`: the path and block it wrote (its note)."""
        self.made += 1
        mark = self.made
        when = 1_767_225_600 + 60 * mark
        out = self.out
        out.append(b"commit refs/heads/main\nmark :%d\n" % mark)
        out.append(b"author Bench Candidate <bench@example.com> %d +0000\n" % when)
        out.append(b"committer Bench Candidate <bench@example.com> %d +0000\n" % when)
        out.append(_data(message))
        if parents[0]:  # mark 0: the empty tree before the first commit
            out.append(b"from :%d\n" % parents[0])
            out += [b"merge :%d\n" % parent for parent in parents[1:]]
        before = self.trees[parents[0]]
        for path, blocks in tree.items():
            if before.get(path) != blocks:
                text = "".join(f"{line}\n" for block in blocks for line in self.blocks[block])
                out.append(f"M 100644 inline {path}\n".encode() + _data(text))
        for path in before.keys() - tree.keys():
            out.append(f"D {path}\n".encode())
        self.trees[mark] = tree
        if added is not None:
            path, block = added
            start = 1 + sum(len(self.blocks[b]) for b in tree[path][: tree[path].index(block)])
            self.notes.append((mark, f"{path}\n  {SESSION} {start}-{start + len(self.blocks[block]) - 1}\n"))
        return mark


def _data(text: str) -> bytes:
    raw = text.encode("utf-8")
    return b"data %d\n" % len(raw) + raw + b"\n"


def merge_trees(base: Tree, ours: Tree, others: list[Tree]) -> Tree:
    """Ours, with what each other side added since `base` put after the block it follows there, and
    what it removed removed."""
    merged = {path: list(blocks) for path, blocks in ours.items()}
    for theirs in others:
        for path, blocks in theirs.items():
            was = base.get(path, ())
            if blocks == was or merged.get(path) == list(blocks):
                continue
            mine = merged.setdefault(path, [])
            gone = set(was) - set(blocks)
            mine[:] = [b for b in mine if b not in gone]
            present = set(mine)
            after = -1  # the position in mine of the last block of theirs seen there
            for block in blocks:
                if block in present:
                    after = mine.index(block)
                elif block not in was:
                    mine.insert(after + 1, block)
                    present.add(block)
                    after += 1
    return {path: tuple(blocks) for path, blocks in merged.items() if blocks}


def _add(history: History, tree: Tree, path: str, at_top: bool, size: int, number: int) -> tuple[Tree, int]:
    block = history.block(number, size)
    blocks = tree.get(path, ())
    return {**tree, path: (block, *blocks) if at_top else (*blocks, block)}, block


def _commit(history: History, parent: int, path: str, at_top: bool, size: int) -> int:
    number = history.made + 1
    tree, block = _add(history, history.trees[parent], path, at_top, size, number)
    trailer = "\n\nCo-authored-by: Claude <noreply@anthropic.com>" if number % 10 == 0 else ""
    return history.write([parent], tree, f"Add {size} lines to {path} (commit {number}){trailer}", (path, block))


def _merge(history: History, base: int, parents: list[int], resolve: tuple[str, int] | None = None) -> int:
    """A merge of `parents` (the first the main line); `resolve`: a conflict in that file resolved by hand,
    the blocks both sides put at its top replaced by a block of the merge's own."""
    trees = [history.trees[p] for p in parents]
    tree = merge_trees(history.trees[base], trees[0], trees[1:])
    message = f"Merge {len(parents) - 1} branch(es) into main"
    if resolve is not None:
        path, size = resolve
        theirs = {b for t in trees for b in t.get(path, ())[:1]} - set(history.trees[base].get(path, ()))
        own = history.block(history.made + 1, size)
        tree = {**tree, path: (own, *(b for b in tree[path] if b not in theirs))}
        message += " (a conflict resolved by hand)"
        history.resolved += 1
    history.merged += 1
    history.octopus += len(parents) > 2
    return history.write(parents, tree, message, None)


def merge_history(commits: int = 5000, merges: int = 1000, lines: int = 100_000, seed: int = 7) -> History:
    """The history's fast-import stream in `History.out` (notes not yet written: `stream`)."""
    rng = random.Random(seed)
    history = History(commits, merges, lines)
    plain = max(1, commits - merges)
    size = max(1, lines // plain)
    paths = [f"src/module_{n:03d}.mjs" for n in range(FILES)]
    history.trees[0] = {}
    main = _commit(history, 0, paths[0], False, size)
    per_branch = max(1, (plain - merges) // max(1, merges))  # commits on a branch; the rest on the main line
    # In every `period` merges: one octopus, one conflict resolved by hand, one criss-cross.
    period = max(10, min(50, merges // 2))
    octopus, conflicted, criss_cross = period // 5, 2 * period // 5, 3 * period // 5
    while history.made < commits - 2:
        kind = history.merged % period
        fork = main
        branches = 2 if kind in (octopus, criss_cross) and history.made < commits - 8 else 1
        tips, touched = [], []
        for _ in range(branches):
            tip = fork
            for _ in range(per_branch):
                path = rng.choice(paths)
                touched.append(path)
                tip = _commit(history, tip, path, True, size)  # a branch adds to a file's top
            tips.append(tip)
        # The main line moves on meanwhile, in a file the branch touched too.
        main = _commit(history, main, touched[0], False, size)
        conflict = kind == conflicted
        if conflict:
            main = _commit(history, main, touched[0], True, size)  # the same place as the branch: a conflict
        if branches == 2 and kind == criss_cross and history.merged + 4 <= merges:
            # Criss-cross: each branch merges the other, then both are merged.
            left = _merge(history, fork, [tips[0], tips[1]])
            right = _merge(history, fork, [tips[1], tips[0]])
            main = _merge(history, fork, [main, left])
            main = _merge(history, fork, [main, right])
            history.criss_cross += 1
        else:
            main = _merge(history, fork, [main, *tips], (touched[0], size) if conflict else None)
        if history.merged >= merges:
            break
    while history.made < commits:
        main = _commit(history, main, rng.choice(paths), False, size)
    return history


def stream(history: History, note_meta: str) -> bytes:
    """The fast-import stream: the commits, `main` at the last, and the git-ai notes."""
    out = [b"reset refs/heads/main\n", *history.out]
    when = 1_767_225_600
    out.append(b"commit refs/notes/ai\nauthor git-ai <git-ai@example.com> %d +0000\n" % when)
    out.append(b"committer git-ai <git-ai@example.com> %d +0000\n" % when)
    out.append(_data("Notes added by 'git notes add'"))
    for mark, note in history.notes:
        out.append(b"N inline :%d\n" % mark + _data(f"{note}---\n{note_meta}\n"))
    out.append(b"reset refs/heads/main\nfrom :%d\n" % history.made)
    return b"".join(out)
