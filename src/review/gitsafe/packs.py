"""Objects of a clean clone read from its own files (loose objects, version-2 packs, their deltas) in
this process: a cohort read for its fingerprints asks for about ten objects of each of a thousand
clones, and a `git cat-file` started for each cost more than the reading. Only for the clones git
made (never a submitted folder's files). Anything not found or odd here is None: the caller asks git.
No delta base is kept between reads (git's batch keeps them): for a few objects per clone.
"""

from __future__ import annotations

import os
import stat
import struct
import weakref
import zlib
from bisect import bisect_left
from pathlib import Path

# Object types as a pack numbers them; 6 and 7 are deltas on another object.
TYPES = {1: "commit", 2: "tree", 3: "blob", 4: "tag"}
OFS_DELTA, REF_DELTA = 6, 7
# Past these, git reads it: a chain of deltas this deep, an object this large, this many packs.
MAX_DEPTH = 64
MAX_SIZE = 1 << 20
MAX_PACKS = 16
_V2 = b"\377tOc"


class _Odd(Exception):
    """What this reader does not read: the caller asks git."""


def _read_file(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _Odd(path.name)
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read()
    finally:
        os.close(fd)


class _Ids:
    """The index's sorted object ids as a sequence bisect can search, read in place (a large history's
    hundred thousand ids are never copied out)."""

    def __init__(self, data: bytes, at: int, count: int, width: int) -> None:
        self.data, self.at, self.count, self.width = data, at, count, width

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int) -> bytes:
        start = self.at + index * self.width
        return self.data[start : start + self.width]


class _Pack:
    """One pack and its index (version 2): object id -> where its entry starts in the pack."""

    def __init__(self, idx: Path, width: int) -> None:
        data = _read_file(idx)
        if data[:4] != _V2 or struct.unpack(">I", data[4:8])[0] != 2:
            raise _Odd("pack index version")
        count = struct.unpack(">I", data[8 + 255 * 4 : 8 + 256 * 4])[0]
        ids_at = 8 + 1024
        self.offsets_at = ids_at + count * (width + 4)
        self.large_at = self.offsets_at + 4 * count
        if len(data) < self.large_at:
            raise _Odd("pack index too short")
        self.data = data
        self.ids = _Ids(data, ids_at, count, width)
        self.path = idx.with_suffix(".pack")
        self.fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
        self._closer = weakref.finalize(self, os.close, self.fd)
        if not stat.S_ISREG(os.fstat(self.fd).st_mode):
            self.close()
            raise _Odd("pack")

    def where(self, oid: bytes) -> int | None:
        at = bisect_left(self.ids, oid)
        if at == len(self.ids) or self.ids[at] != oid:
            return None
        offset = struct.unpack_from(">I", self.data, self.offsets_at + 4 * at)[0]
        if offset & 0x80000000:  # past 2 GiB: in the large offsets table
            offset = struct.unpack_from(">Q", self.data, self.large_at + 8 * (offset & 0x7FFFFFFF))[0]
        return offset

    def close(self) -> None:
        self._closer()


class LocalObjects:
    """Read objects by id from a clone's files. `read` gives (type, data, size) or None."""

    def __init__(self, git_dir: Path, width: int = 20) -> None:
        self.objects = git_dir / "objects"
        self.width = width
        self.packs: list[_Pack] = []
        names = sorted(e.name for e in os.scandir(self.objects / "pack") if e.name.endswith(".idx"))
        if len(names) > MAX_PACKS:
            raise _Odd("packs")
        try:
            for name in names:
                self.packs.append(_Pack(self.objects / "pack" / name, width))
        except BaseException:
            self.close()
            raise

    @classmethod
    def open(cls, git_dir: Path, width: int = 20) -> LocalObjects | None:
        try:
            return cls(git_dir, width)
        except (OSError, ValueError, struct.error, _Odd):
            return None

    def close(self) -> None:
        for pack in self.packs:
            pack.close()
        self.packs = []

    def read(self, oid: str) -> tuple[str, bytes] | None:
        """(type, data) of the object with this full id, None when not read here."""
        try:
            return self._find(oid, 0)
        except (OSError, ValueError, IndexError, struct.error, zlib.error, _Odd):
            return None

    def _find(self, oid: str, depth: int) -> tuple[str, bytes] | None:
        if len(oid) != 2 * self.width:
            return None
        raw = bytes.fromhex(oid)
        for pack in self.packs:
            offset = pack.where(raw)
            if offset is not None:
                return self._entry(pack, offset, depth)
        return self._loose(oid)

    def _loose(self, oid: str) -> tuple[str, bytes] | None:
        try:
            data = zlib.decompress(_read_file(self.objects / oid[:2] / oid[2:]))
        except FileNotFoundError:
            return None
        header, _, body = data.partition(b"\0")
        kind, _, size = header.partition(b" ")
        if kind.decode() not in TYPES.values() or int(size) != len(body):
            raise _Odd("loose object")
        return kind.decode(), body

    def _entry(self, pack: _Pack, offset: int, depth: int) -> tuple[str, bytes]:
        if depth > MAX_DEPTH:
            raise _Odd("delta chain")
        head = os.pread(pack.fd, 64, offset)
        byte = head[0]
        kind, size, shift, at = (byte >> 4) & 7, byte & 15, 4, 1
        while byte & 0x80:
            byte = head[at]
            size |= (byte & 0x7F) << shift
            shift, at = shift + 7, at + 1
        if size > MAX_SIZE:
            raise _Odd("large object")
        if kind in TYPES:
            return TYPES[kind], self._inflate(pack, offset + at, size)
        if kind == OFS_DELTA:
            byte = head[at]
            back, at = byte & 0x7F, at + 1
            while byte & 0x80:
                byte = head[at]
                back = ((back + 1) << 7) | (byte & 0x7F)
                at += 1
            base_kind, base = self._entry(pack, offset - back, depth + 1)
        elif kind == REF_DELTA:
            base_id = head[at : at + self.width].hex()
            at += self.width
            found = self._find(base_id, depth + 1)
            if found is None:
                raise _Odd("delta base")
            base_kind, base = found
        else:
            raise _Odd("object type")
        return base_kind, apply_delta(base, self._inflate(pack, offset + at, size))

    @staticmethod
    def _inflate(pack: _Pack, offset: int, size: int) -> bytes:
        inflater = zlib.decompressobj()
        out = b""
        chunk = max(4096, size + 64)
        while not inflater.eof:
            data = os.pread(pack.fd, chunk, offset)
            if not data:
                raise _Odd("pack ends")
            offset += len(data)
            out += inflater.decompress(data, size + 1 - len(out))
            if len(out) > size:
                raise _Odd("object larger than said")
            chunk = 1 << 16
        if len(out) != size:
            raise _Odd("object shorter than said")
        return out


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if not byte & 0x80:
            return value, at


def apply_delta(base: bytes, delta: bytes) -> bytes:
    """git's delta: the base's size, the result's, then copies from the base and bytes inserted."""
    base_size, at = _varint(delta, 0)
    size, at = _varint(delta, at)
    if base_size != len(base) or size > MAX_SIZE:
        raise _Odd("delta does not fit its base")
    out = bytearray()
    end = len(delta)
    while at < end:
        op = delta[at]
        at += 1
        if op & 0x80:
            offset = length = 0
            for bit in range(4):
                if op & (1 << bit):
                    offset |= delta[at] << (8 * bit)
                    at += 1
            for bit in range(3):
                if op & (0x10 << bit):
                    length |= delta[at] << (8 * bit)
                    at += 1
            length = length or 0x10000
            if offset + length > len(base):
                raise _Odd("delta copies past its base")
            out += base[offset : offset + length]
        elif op:
            out += delta[at : at + op]
            at += op
        else:
            raise _Odd("delta opcode 0")
    if len(out) != size:
        raise _Odd("delta result size")
    return bytes(out)
