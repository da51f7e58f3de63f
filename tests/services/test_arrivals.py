"""A submission that arrives in a cohort while the console is open: handed over once it has stopped
changing, and handed over again when it was read unreadable and changed since."""

from __future__ import annotations

import os

from helpers import make_repo
from review.services import arrivals, cohort


def test_a_new_folder_is_handed_over_once_it_looked_the_same_twice(tmp_path):
    make_repo(tmp_path / "ada", {"checkout.mjs": "// ada\n"})
    watch = arrivals.Arrivals(tmp_path, ["ada"])
    assert watch.look() == []
    make_repo(tmp_path / "ben", {"checkout.mjs": "// ben\n"})
    # Seen once: it may still be being copied.
    assert watch.look() == []
    assert watch.look() == [tmp_path / "ben"]
    # Once only.
    assert watch.look() == []
    # Hidden folders are the console's own scratch space (review import builds in one).
    (tmp_path / ".import-tmp").mkdir()
    assert watch.look() == [] and watch.look() == []


def test_a_folder_still_changing_waits(tmp_path):
    watch = arrivals.Arrivals(tmp_path, [])
    (tmp_path / "carol").mkdir()
    assert watch.look() == []
    # The copy goes on: the folder's contents change between the looks.
    (tmp_path / "carol" / "part-1").write_text("x")
    os.utime(tmp_path / "carol", ns=(1, 1))
    assert watch.look() == []
    assert watch.look() == [tmp_path / "carol"]


def test_an_arrival_read_unreadable_is_read_again_once_it_changed(tmp_path):
    watch = arrivals.Arrivals(tmp_path, [])
    (tmp_path / "dev").mkdir()
    watch.look()
    [path] = watch.look()
    row = cohort.load_row(path)
    assert row.head is None and row.state == "unreadable"
    watch.read([row])
    assert watch.look() == [] and watch.look() == []
    # The repository is made in place (or the rest of the copy lands).
    make_repo(tmp_path / "dev", {"checkout.mjs": "// dev\n"})
    assert watch.look() == []
    [again] = watch.look()
    row = cohort.load_row(again)
    assert row.head is not None and row.problem is None
    watch.read([row])
    assert watch.look() == []


def test_a_linked_git_folder_is_not_followed(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "many").mkdir(parents=True)
    (tmp_path / "cohort" / "eve").mkdir(parents=True)
    (tmp_path / "cohort" / "eve" / ".git").symlink_to(elsewhere)
    before = arrivals.stamp(tmp_path / "cohort" / "eve")
    (elsewhere / "more").mkdir()
    assert arrivals.stamp(tmp_path / "cohort" / "eve") == before


def test_a_listed_submission_whose_head_moved_is_handed_over_once_per_new_head(tmp_path):
    from helpers import git

    repo = make_repo(tmp_path / "ada", {"checkout.mjs": "// ada\n"})
    first = git("rev-parse", "HEAD", cwd=repo).strip()
    watch = arrivals.Arrivals(tmp_path, ["ada"], {"ada": first})
    assert watch.moved() == []
    # Packed: the loose ref goes, the same HEAD is read from packed-refs.
    git("pack-refs", "--all", cwd=repo)
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert watch.moved() == []
    (repo / "checkout.mjs").write_text("// ada, fixed\n")
    git("commit", "-qam", "fix", cwd=repo)
    assert watch.moved() == [repo]
    assert watch.moved() == []
    # A HEAD moved only in packed-refs (a copy of a packed repository over the old one).
    second = git("rev-parse", "HEAD", cwd=repo).strip()
    git("pack-refs", "--all", cwd=repo)
    packed = (repo / ".git" / "packed-refs").read_text()
    (repo / ".git" / "packed-refs").write_text(packed.replace(second, first))
    assert watch.moved() == [repo]
    # An unreadable row is no longer watched for a new HEAD (arrivals read it again once it changes).
    watch.read([cohort.placeholder(repo)])
    assert watch.heads == {}
