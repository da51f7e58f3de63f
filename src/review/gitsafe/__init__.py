"""The only module that runs git.

A submission is an untrusted repository: its ``.git/config`` may set ``core.fsmonitor``,
``diff.external`` or hooks, its ``.gitattributes`` may pick a textconv driver, and it may be
owned by another user. So git never runs inside the submitted folder. Instead:

1. the submission's HEAD is read from its files, without git (``read_head``);
2. it is cloned with ``git clone --no-local --bare`` into a private per-user cache, under an
   environment that ignores system config and uses a private global config
   (``core.hooksPath=/dev/null``, ``core.fsmonitor=false``, ``safe.directory`` for just
   this source) — a no-local clone copies objects and refs, never config or hooks;
3. every later read (log, diff, show) runs in that clean clone with ``--no-ext-diff
   --no-textconv``, and revisions and paths are passed after ``--`` or validated as hex ids,
   so nothing the candidate chose is ever read by git as an option.

The cache is re-cloned when the submission's HEAD moves.
"""

from __future__ import annotations

from review.gitsafe.env import EMPTY_TREE, SHA_RE, GitSafeError, cache_path_for, cache_root, git_env, run_trusted
from review.gitsafe.head import HeadInfo, find_git_dir, read_head, refs_fingerprint

# typing's TYPE_CHECKING without importing typing (a warm triage loads it nowhere else); type
# checkers read the block below.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from review.gitsafe.clone import open_submission
    from review.gitsafe.early_copies import start_copies
    from review.gitsafe.objects import FileEntry, ObjectReader
    from review.gitsafe.repo import MAX_COMMITS, Commit, SafeRepo

# Loaded when first named: a warm triage reads HEADs from files and never copies, so it loads none of
# the copying and reading (their imports were a fifth of its start).
_LATER = {
    "open_submission": "clone",
    "start_copies": "early_copies",
    "FileEntry": "objects",
    "ObjectReader": "objects",
    "MAX_COMMITS": "repo",
    "Commit": "repo",
    "SafeRepo": "repo",
}


def __getattr__(name: str) -> object:
    if name not in _LATER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"review.gitsafe.{_LATER[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "MAX_COMMITS",
    "EMPTY_TREE",
    "SHA_RE",
    "Commit",
    "FileEntry",
    "GitSafeError",
    "HeadInfo",
    "ObjectReader",
    "SafeRepo",
    "cache_path_for",
    "cache_root",
    "find_git_dir",
    "git_env",
    "open_submission",
    "read_head",
    "refs_fingerprint",
    "run_trusted",
    "start_copies",
]
