"""`review import`: real bundles, real zip and tar archives, real folders and file:// URLs; hostile
archives refused with their reasons and nothing half-made left in the cohort."""

from __future__ import annotations

import io
import json
import os
import stat
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from helpers import git, make_repo
from review.cli import main
from review.services import cohort, importer

CODE = {
    "checkout.mjs": "export async function chargeWithRetry(amount) { return amount; }\n",
    "NOTE.md": "## AI use\n\nNone.\n",
}


@pytest.fixture
def alice(tmp_path) -> Path:
    repo = make_repo(tmp_path / "src" / "alice", CODE)
    blob = git("hash-object", "-w", "--stdin", cwd=repo, input_text="checkout.mjs\n  s_1 1-1\n---\n{}\n").strip()
    git("notes", "--ref", "ai", "add", "-m", "git-ai note", "HEAD", cwd=repo)  # notes travel too
    assert blob
    return repo


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    with tarfile.open(path, "w:gz") as tarred:
        for info, data in members:
            tarred.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _zip_folder(path: Path, folder: Path, prefix: str = "") -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zipped:
        for item in sorted(folder.rglob("*")):
            zipped.write(item, prefix + str(item.relative_to(folder)))
    return path


def test_every_kind_of_source_becomes_one_sanitised_repository_each(tmp_path, alice, capsys):
    head = git("rev-parse", "HEAD", cwd=alice).strip()
    bundle = tmp_path / "bob.bundle"
    git("bundle", "create", str(bundle), "--all", cwd=alice)
    with tarfile.open(tmp_path / "carol.tar.gz", "w:gz") as tarred:
        tarred.add(alice, arcname="carol-submission")  # one top folder holding the repository
    _zip_folder(tmp_path / "dan.zip", alice)  # the repository at the archive's top
    sources = [
        str(alice),
        str(bundle),
        str(tmp_path / "carol.tar.gz"),
        str(tmp_path / "dan.zip"),
        f"file://{tmp_path / 'src'}/alice",
    ]
    dest = tmp_path / "cohort"
    assert main(["import", str(dest), *sources[:4]]) == 0
    assert main(["import", str(dest), "--json", sources[4]]) == 1  # alice again: a listed failure
    document = json.loads(capsys.readouterr().out.split("\n", 5)[-1])
    assert "already exists" in document["imports"][0]["problem"]
    assert sorted(p.name for p in cohort.list_submissions(dest)) == ["alice", "bob", "carol", "dan"]
    for name in ("alice", "bob", "carol", "dan"):
        assert git("rev-parse", "HEAD", cwd=dest / name).strip() == head
        assert (dest / name / "checkout.mjs").read_text() == CODE["checkout.mjs"]  # a work tree to browse
        assert git("remote", cwd=dest / name).strip() == ""  # no link back to the source
    assert "git-ai note" in git("notes", "--ref", "ai", "show", "HEAD", cwd=dest / "alice")
    rows = {row.name: row for row in cohort.triage(dest)}
    assert all(row.head == head and row.problem is None for row in rows.values())
    manifest = tomllib.loads((dest / importer.MANIFEST).read_text())["imports"]
    assert [(m["kind"], m.get("name")) for m in manifest] == [
        ("folder", "alice"),
        ("bundle", "bob"),
        ("tar", "carol"),
        ("zip", "dan"),
        ("url", None),
    ]
    assert stat.S_IMODE((dest / importer.MANIFEST).stat().st_mode) == 0o664


def _info(name: str, kind: bytes = tarfile.REGTYPE, size: int = 0, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.size, info.linkname = kind, size, link
    return info


@pytest.mark.parametrize(
    ("members", "words"),
    [
        ([(_info("../evil.txt", size=3), b"bad")], "climbs out"),
        ([(_info("/etc/evil", size=3), b"bad")], "absolute path"),
        ([(_info("repo/link", tarfile.SYMTYPE, link="/etc/passwd"), None)], "symbolic link to '/etc/passwd'"),
        ([(_info("repo/hard", tarfile.LNKTYPE, link="/etc/shadow"), None)], "hard link"),
        ([(_info("repo/dev", tarfile.CHRTYPE), None)], "device, FIFO"),
        ([(_info("repo/fifo", tarfile.FIFOTYPE), None)], "device, FIFO"),
    ],
)
def test_hostile_tar_members_refuse_the_archive_with_the_member_named(tmp_path, members, words, capsys):
    archive = _tar(tmp_path / "eve.tar.gz", members)
    dest = tmp_path / "cohort"
    assert main(["import", str(dest), str(archive)]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and words in out
    assert sorted(p.name for p in dest.iterdir()) == [importer.MANIFEST]  # nothing half-made, no scratch left
    assert not (tmp_path / "evil.txt").exists()


def test_a_zip_with_a_symlink_or_a_climbing_name_is_refused(tmp_path):
    linked = tmp_path / "linked.zip"
    with zipfile.ZipFile(linked, "w") as zipped:
        info = zipfile.ZipInfo("repo/link")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zipped.writestr(info, "/etc/passwd")
    climbing = tmp_path / "climbing.zip"
    with zipfile.ZipFile(climbing, "w") as zipped:
        zipped.writestr("../../outside.txt", "x")
    results = importer.import_sources(tmp_path / "cohort", [str(linked), str(climbing)])
    assert "symbolic link" in results[0].problem and "climbs out" in results[1].problem
    assert not (tmp_path / "outside.txt").exists()


def test_a_zip_bomb_is_stopped_by_the_bytes_that_come_out_not_by_its_headers(tmp_path, monkeypatch):
    monkeypatch.setattr(importer, "MAX_UNPACKED", 1 << 20)
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("repo/zeros.bin", b"\0" * (8 << 20))  # 8 MiB of zeros: a few KiB packed
    assert bomb.stat().st_size < 100_000
    result = importer.import_sources(tmp_path / "cohort", [str(bomb)])[0]
    assert "more than 1 MiB" in result.problem and result.name is None
    assert [p.name for p in (tmp_path / "cohort").iterdir()] == [importer.MANIFEST]


def test_bad_sources_are_listed_failures_and_the_good_ones_still_land(tmp_path, alice):
    (tmp_path / "notes.txt").write_text("just text")
    make_repo(tmp_path / "two" / "a", CODE)
    make_repo(tmp_path / "two" / "b", CODE)
    with tarfile.open(tmp_path / "two.tar", "w") as tarred:
        tarred.add(tmp_path / "two", arcname="two")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "checkout.mjs").write_text("x")
    fake_bundle = tmp_path / "fake.bundle"
    fake_bundle.write_bytes(b"# v2 git bundle\nnot really\n")
    borrowed = make_repo(tmp_path / "borrowed", CODE)
    (borrowed / ".git" / "objects" / "info" / "alternates").write_text(str(alice / ".git" / "objects") + "\n")
    sources = [
        str(tmp_path / "missing"),
        str(tmp_path / "notes.txt"),
        str(tmp_path / "two.tar"),
        str(tmp_path / "plain"),
        str(fake_bundle),
        str(borrowed),
        "ssh://example.com/x.git",
        str(alice),
    ]
    results = {Path(r.source).name: r for r in importer.import_sources(tmp_path / "cohort", sources)}
    assert results["missing"].problem == "no such file or folder"
    assert "not a folder, a git bundle" in results["notes.txt"].problem
    assert "holds 2 repositories" in results["two.tar"].problem
    assert "not a git repository" in results["plain"].problem
    assert "cannot be copied" in results["fake.bundle"].problem
    assert "alternates" in results["borrowed"].problem
    assert "only file:// and https://" in results["x.git"].problem
    assert results["alice"].problem is None
    assert sorted(p.name for p in (tmp_path / "cohort").iterdir()) == ["alice", importer.MANIFEST]
    assert os.listdir(tmp_path / "cohort" / "alice")  # the one good source is whole


def test_a_member_twice_or_an_oversized_archive_is_refused(tmp_path, monkeypatch):
    twice = _tar(tmp_path / "twice.tar.gz", [(_info("repo/a.txt", size=1), b"1"), (_info("repo/a.txt", size=1), b"2")])
    assert "appears twice" in importer.import_sources(tmp_path / "cohort", [str(twice)])[0].problem
    monkeypatch.setattr(importer, "MAX_UNPACKED", 100)
    big = _tar(tmp_path / "big.tar.gz", [(_info("repo/r.bin", size=4000), os.urandom(4000))])
    assert "the archive itself is over" in importer.import_sources(tmp_path / "cohort2", [str(big)])[0].problem


def _object_files(objects: Path) -> dict[int, Path]:
    return {
        path.stat().st_ino: path for path in objects.rglob("*") if path.is_file() and path.parent.name not in ("info",)
    }


def test_an_imported_submission_is_copied_once_not_again_by_triage(tmp_path, alice):
    from review import gitsafe

    dest = tmp_path / "cohort"
    assert main(["import", str(dest), str(alice)]) == 0
    submission = dest / "alice"
    clone = gitsafe.cache_path_for(submission)
    made = clone.stat().st_ino
    rows = cohort.triage(dest)
    assert rows[0].problem is None and rows[0].commits == 1
    # The first triage found the cache's copy made by the import: not cloned again.
    assert clone.stat().st_ino == made
    # One copy of the objects on disk: every object file of the cache's copy is the cohort's, linked.
    cohort_objects = _object_files(submission / ".git" / "objects")
    cache_objects = _object_files(clone / "objects")
    assert cache_objects and set(cache_objects) <= set(cohort_objects)
    # And the notes travelled into the cache's copy: the row read them.
    assert gitsafe.open_submission(submission).git("notes", "--ref", "ai", "list").strip()
