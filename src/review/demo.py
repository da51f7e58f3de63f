"""Turn the plain-text sample series in ``sample_submissions/`` into real git repositories.

Each candidate folder holds one folder per commit (``commit.toml`` + ``tree/``); every
candidate starts from the shared ``_starter`` commit. Authors and dates are fixed, so the
commit ids come out the same on every machine.
"""

from __future__ import annotations

import os
import re
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

from review import gitsafe, paths

_IDENT = re.compile(r"^\s*(?P<name>[^<>]+?)\s*<(?P<email>[^<>]*)>\s*$")


class SampleError(Exception):
    pass


def samples_dir() -> Path:
    return paths.samples_dir()


def default_demo_dir() -> Path:
    return paths.demo_dir()


def _ident(value: str, where: Path) -> tuple[str, str]:
    match = _IDENT.match(value)
    if not match:
        raise SampleError(f"{where}: expected 'Name <email>', got {value!r}")
    return match["name"], match["email"]


def load_commit(folder: Path, root: Path) -> gitsafe.CommitSpec:
    meta_path = folder / "commit.toml"
    try:
        meta = tomllib.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise SampleError(f"{meta_path}: {error}") from None
    for key in ("author", "date", "message"):
        if key not in meta:
            raise SampleError(f"{meta_path}: missing field {key!r}")
    author = _ident(meta["author"], meta_path)
    committer = _ident(meta["committer"], meta_path) if "committer" in meta else author
    files: dict[str, bytes] = {}
    for path, shared in meta.get("shared", {}).items():
        files[path] = (root / shared).read_bytes()
    tree = folder / "tree"
    if tree.is_dir():
        for file in sorted(tree.rglob("*")):
            if file.is_file():
                files[file.relative_to(tree).as_posix()] = file.read_bytes()
    return gitsafe.CommitSpec(
        files=files, message=meta["message"], author_name=author[0], author_email=author[1],
        date=meta["date"], committer_name=committer[0], committer_email=committer[1],
        delete=tuple(meta.get("delete", ())),
    )


@dataclass
class Series:
    name: str
    commits: list[gitsafe.CommitSpec]


def load_series(root: Path | None = None) -> list[Series]:
    root = root or samples_dir()
    if not root.is_dir():
        raise SampleError(f"no sample submissions at {root}")
    starter = load_commit(root / "_starter", root)
    series = []
    for candidate in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        steps = sorted(p for p in candidate.iterdir() if p.is_dir())
        if not steps:
            raise SampleError(f"{candidate}: no commit folders")
        series.append(Series(candidate.name, [starter, *(load_commit(step, root) for step in steps)]))
    return series


def build_demo(into: Path | None = None, root: Path | None = None) -> Path:
    """Build (or refresh) one repository per sample candidate under `into`; returns the folder.

    Score files (``<name>.review.toml``) already in the folder are kept.
    """
    into = (into or default_demo_dir()).resolve()
    into.mkdir(parents=True, exist_ok=True)
    for item in load_series(root):
        target = into / item.name
        scratch = into / f".{item.name}.building"
        shutil.rmtree(scratch, ignore_errors=True)
        expected = gitsafe.build_repo(scratch, item.commits)
        try:
            current = gitsafe.read_head(target).sha if target.exists() else None
        except gitsafe.GitSafeError:
            current = None
        if current == expected:
            shutil.rmtree(scratch)
            continue
        shutil.rmtree(target, ignore_errors=True)
        os.rename(scratch, target)
    return into
