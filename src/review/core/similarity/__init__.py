"""Code shared between submissions, found as MOSS and Dolos find it: the code read as tokens by a real
parser (tree-sitter) with identifiers, literals, comments and whitespace normalised, every k-gram of
tokens hashed and the hashes winnowed into fingerprints (Schleimer, Wilkerson and Aiken, "Winnowing:
local algorithms for document fingerprinting", SIGMOD 2003), then the fingerprints of a cohort compared
with the starter's, the model draft's and the ones most of the cohort holds left out. Pure: no I/O."""

from review.core.similarity.compare import (
    COMMON_MIN,
    COMMON_SHARE,
    Comparison,
    Fragment,
    Pair,
    Prints,
    compare,
    fragments,
    own_text,
    share_text,
)
from review.core.similarity.tokens import CODE_SUFFIXES, language_of, tokenize
from review.core.similarity.winnow import WINDOW, FilePrints, K, fingerprint

__all__ = [
    "CODE_SUFFIXES",
    "COMMON_MIN",
    "COMMON_SHARE",
    "K",
    "WINDOW",
    "Comparison",
    "FilePrints",
    "Fragment",
    "Pair",
    "Prints",
    "compare",
    "fingerprint",
    "fragments",
    "language_of",
    "own_text",
    "share_text",
    "tokenize",
]
