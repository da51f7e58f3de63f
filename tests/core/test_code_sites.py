"""Where the candidate's code makes and sends the key and the request (the sites `g` jumps to)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from review.core import evidence


def test_the_sites_of_a_typical_client_and_what_is_left_out():
    lines = [
        ("checkout.mjs", 3, "  const key = crypto.randomUUID();"),
        ("checkout.mjs", 7, '    headers: { "Idempotency-Key": key },'),
        ("checkout.mjs", 9, "  const res = await fetch(`${BASE}/charge`, {"),
        ("checkout.mjs", 12, "  // the Idempotency-Key header is what makes a retry safe"),
        ("checkout.mjs", 13, "  return Number(total); // nothing here"),
        ("test/checkout.test.mjs", 4, "  await fetch(url)"),  # tests call the client; they do not send its requests
        ("README.md", 1, "fetch( this is prose )"),
        ("checkout.mjs", 20, "const k = nanoid(); " + "x" * evidence.MAX_SITE_LINE),  # too long to be read
    ]
    found = [(site.kind, site.line) for site in evidence.code_sites(lines)]
    assert found == [("key-made", 3), ("key-sent", 7), ("request", 9)]


WORDS = ["randomUUID", "uuidv4(", "crypto.random", "RandomBytes", "nanoid", "idempotency_key", "IDEMPOTENCY-KEY",
         "fetch (", "https.request(", "http.request (", "axios", "undici", "request(", "Fetch(", "uuid"]


@given(st.lists(st.tuples(st.lists(st.sampled_from(WORDS), max_size=3),
                          st.text(alphabet="abcdefgh .(){}'\"/*-_:;=", max_size=30)), max_size=40))
def test_the_quick_word_filter_never_drops_a_line_a_pattern_finds(parts):
    """The filter that runs on every line lets through every line any site pattern matches."""
    lines = [("client.mjs", n, noise.join(words) + noise) for n, (words, noise) in enumerate(parts, start=1)]
    expected = [(kind, n) for _, n, text in lines for kind, pattern in evidence.SITE_PATTERNS.items()
                if not text.strip().startswith(("//", "*", "/*")) and pattern.search(text.strip())]
    assert [(site.kind, site.line) for site in evidence.code_sites(lines)] == expected
