"""``review import DEST SOURCE…``: a cohort from git bundles, zip/tar archives of repositories,
folders, or clone URLs — one folder per candidate, each a sanitised clone, and a manifest.

Archives are hostile: they are unpacked here, in Python, never by a tool that follows what they
say. A member that is a symbolic or hard link, a device or a FIFO, an absolute path or one with
``..`` refuses the whole archive with the member named; so does unpacking past MAX_UNPACKED bytes
or MAX_MEMBERS members (counted as the bytes come out, so a header that lies changes nothing).
A source that fails is listed with its reason and leaves no folder behind.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tarfile
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from review import gitsafe
from review.gitsafe import importing
from review.services import cohort, failures
from review.services.store import now
from review.support import files

MAX_UNPACKED = 512 << 20  # bytes out of one archive: a repository, not a bomb
MAX_MEMBERS = 50_000
MANIFEST = "review-import.toml"


class ArchiveRefused(Exception):
    """The archive is refused as a whole; the message names the member and why."""


@dataclass
class Imported:
    source: str
    kind: str  # folder | bundle | zip | tar | url
    name: str | None = None  # the folder made in the cohort
    head: str | None = None
    problem: str | None = None

    def to_json(self) -> dict:
        return {"source": self.source, "kind": self.kind, "name": self.name, "head": self.head, "problem": self.problem}


def folder_name(source: str) -> str:
    """A cohort folder name from the source's last path segment: letters, digits, '.', '_', '-'."""
    last = source.rstrip("/").rsplit("/", 1)[-1]
    lowered = last.lower()
    for suffix in cohort.ARCHIVE_SUFFIXES:
        if lowered.endswith(suffix) and len(last) > len(suffix):
            last = last[: -len(suffix)]
            break
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", last).strip("-.")[:80]
    return cleaned or "candidate"


def kind_of(source: str) -> str:
    if re.match(r"^[a-z][a-z0-9+.-]*://", source, re.IGNORECASE):
        return "url"
    path = Path(source)
    if path.is_dir():
        return "folder"
    if importing.is_bundle(path):
        return "bundle"
    try:
        with open(path, "rb", buffering=0) as handle:
            start = handle.read(262 + 8)
    except OSError:
        return "missing"
    if start.startswith(b"PK\x03\x04") or start.startswith(b"PK\x05\x06"):
        return "zip"
    if start[:2] == b"\x1f\x8b" or start[:3] == b"BZh" or start[:6] == b"\xfd7zXZ\x00" or start[257:262] == b"ustar":
        return "tar"
    return "unknown"


def import_sources(dest: Path, sources: list[str]) -> list[Imported]:
    dest.mkdir(parents=True, exist_ok=True)
    results = []
    taken = {entry.name for entry in dest.iterdir()}
    for source in sources:
        kind = kind_of(source)
        result = Imported(source, kind)
        name = folder_name(source)
        try:
            if name in taken:
                raise gitsafe.GitSafeError(
                    f"{dest / name} already exists: not overwritten (rename the source or remove that folder)"
                )
            result.head = _import_one(dest / name, source, kind)
            result.name = name
            taken.add(name)
        except (gitsafe.GitSafeError, ArchiveRefused) as error:
            result.problem = str(error)
        except Exception as error:  # the boundary: one bad source is its line, never the end of the import
            result.problem = failures.record(f"import {source}", error)
        results.append(result)
    _write_manifest(dest, results)
    return results


def _import_one(target: Path, source: str, kind: str) -> str:
    if kind == "missing":
        raise gitsafe.GitSafeError("no such file or folder")
    if kind == "unknown":
        raise gitsafe.GitSafeError("not a folder, a git bundle, a zip or a tar archive")
    if kind == "folder":
        return importing.clone_into(target, folder=Path(source).resolve())
    if kind == "bundle":
        return importing.clone_into(target, bundle=Path(source).resolve())
    if kind == "url":
        local = importing.local_path_of(source)
        if local is not None:
            if not local.is_dir():
                raise gitsafe.GitSafeError(f"{local} is not a folder")
            return importing.clone_into(target, folder=local.resolve())
        return importing.clone_into(target, url=source)
    scratch = Path(tempfile.mkdtemp(prefix=".unpack-", dir=target.parent))
    try:
        unpack(Path(source), scratch, kind)
        return importing.clone_into(target, folder=find_repository(scratch))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# ----------------------------------------------------------------------------- archives


def _member_path(name: str) -> Path:
    if "\0" in name or "\\" in name:
        raise ArchiveRefused(f"member {name[:120]!r}: a name with a NUL or a backslash")
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise ArchiveRefused(f"member {name[:120]!r}: an absolute path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if any(part == ".." for part in parts):
        raise ArchiveRefused(f"member {name[:120]!r}: a path that climbs out with '..'")
    return Path(*parts) if parts else Path()


class _Budget:
    def __init__(self) -> None:
        self.bytes = 0
        self.members = 0

    def member(self) -> None:
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise ArchiveRefused(f"more than {MAX_MEMBERS} members: refused (a bomb, or not one repository)")

    def add(self, count: int) -> None:
        self.bytes += count
        if self.bytes > MAX_UNPACKED:
            raise ArchiveRefused(
                f"unpacks to more than {MAX_UNPACKED >> 20} MiB: refused (a bomb, or not one repository)"
            )


def _write_member(root: Path, relative: Path, reader, budget: _Budget) -> None:
    target = root / relative
    _make_dirs(root, relative.parent)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        raise ArchiveRefused(
            f"member {str(relative)[:120]!r} appears twice (a later copy would replace what was checked)"
        ) from None
    with os.fdopen(fd, "wb") as out:
        while chunk := reader.read(1 << 16):
            budget.add(len(chunk))
            out.write(chunk)


def _make_dirs(root: Path, relative: Path) -> None:
    current = root
    for part in relative.parts:
        current = current / part
        try:
            os.mkdir(current, 0o755)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(current).st_mode):
                raise ArchiveRefused(f"member {str(relative)[:120]!r}: a folder where a file already is") from None


def unpack(archive: Path, into: Path, kind: str) -> None:
    if archive.stat().st_size > MAX_UNPACKED:  # bounds what the zip reader holds of its directory, too
        raise ArchiveRefused(f"the archive itself is over {MAX_UNPACKED >> 20} MiB: refused (not one repository)")
    budget = _Budget()
    if kind == "zip":
        with zipfile.ZipFile(archive) as zipped:
            for info in zipped.infolist():
                budget.member()
                relative = _member_path(info.filename)
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raise ArchiveRefused(
                        f"member {info.filename[:120]!r}: a symbolic link (archives with links are refused)"
                    )
                if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):  # 0: a zip from a tool without types
                    raise ArchiveRefused(f"member {info.filename[:120]!r}: a device, FIFO or socket")
                if info.is_dir():
                    _make_dirs(into, relative)
                    continue
                with zipped.open(info) as reader:
                    _write_member(into, relative, reader, budget)
        return
    with tarfile.open(archive, mode="r:*") as tarred:
        for member in tarred:
            budget.member()
            relative = _member_path(member.name)
            if member.issym() or member.islnk():
                raise ArchiveRefused(
                    f"member {member.name[:120]!r}: a {'symbolic' if member.issym() else 'hard'} "
                    f"link to {member.linkname[:120]!r} (archives with links are refused)"
                )
            if member.isdir():
                _make_dirs(into, relative)
            elif member.isreg():
                member_reader = tarred.extractfile(member)
                assert member_reader is not None
                _write_member(into, relative, member_reader, budget)
            else:
                raise ArchiveRefused(f"member {member.name[:120]!r}: a device, FIFO or other special file")


def _is_repository(folder: Path) -> bool:
    if (folder / ".git").is_dir() and not (folder / ".git").is_symlink():
        return True
    return (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir()


def find_repository(root: Path) -> Path:
    """The one repository an archive holds: at its top, or in its one top folder (two levels at most)."""
    current = root
    for _ in range(3):
        if _is_repository(current):
            return current
        entries = [entry for entry in current.iterdir() if entry.name != "__MACOSX"]
        folders = [entry for entry in entries if entry.is_dir()]
        repos = [folder.name for folder in folders if _is_repository(folder)]
        if len(repos) > 1:
            raise ArchiveRefused(
                f"the archive holds {len(repos)} repositories ({', '.join(sorted(repos)[:5])}): "
                "one per candidate — import them one archive each"
            )
        if len(folders) != 1 or len(entries) != 1:
            break
        current = folders[0]
    raise ArchiveRefused("no git repository in the archive (a folder with .git, or a bare repository)")


# ----------------------------------------------------------------------------- manifest


def _write_manifest(dest: Path, results: list[Imported]) -> None:
    """DEST/review-import.toml: every source ever imported into this cohort, kept across runs."""
    path = dest / MANIFEST
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        document = {}
    kept = document.get("imports")
    entries: list = kept if isinstance(kept, list) else []
    stamp = now()
    for result in results:
        entry = {key: value for key, value in result.to_json().items() if value is not None}
        entries.append({**entry, "at": stamp})
    # 0664: the pair's other reviewer reads it too
    files.write_atomic(path, tomli_w.dumps({"schema": 1, "imports": entries}).encode("utf-8"), 0o664)
