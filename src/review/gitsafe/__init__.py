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

from review.gitsafe.clone import cache_path_for, open_submission, start_copies
from review.gitsafe.env import EMPTY_TREE, SHA_RE, GitSafeError, cache_root, git_env, run_trusted
from review.gitsafe.head import HeadInfo, find_git_dir, read_head, refs_fingerprint
from review.gitsafe.objects import FileEntry, ObjectReader
from review.gitsafe.repo import MAX_COMMITS, Commit, SafeRepo

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
