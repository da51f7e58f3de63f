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


WORDS = [
    "randomUUID",
    "createHash",
    "uuidv4(",
    "crypto.random",
    "RandomBytes",
    "nanoid",
    "idempotency_key",
    "IDEMPOTENCY-KEY",
    "fetch (",
    "https.request(",
    "http.request (",
    "axios",
    "undici",
    "request(",
    "Fetch(",
    "uuid",
]


@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(WORDS), max_size=3), st.text(alphabet="abcdefgh .(){}'\"/*-_:;=", max_size=30)
        ),
        max_size=40,
    )
)
def test_the_quick_word_filter_never_drops_a_line_a_pattern_finds(parts):
    """The filter that runs on every line lets through every line any site pattern matches."""
    lines = [("client.mjs", n, noise.join(words) + noise) for n, (words, noise) in enumerate(parts, start=1)]
    expected = [
        (kind, n)
        for _, n, text in lines
        for kind, pattern in evidence.SITE_PATTERNS.items()
        if not text.strip().startswith(("//", "*", "/*", "import ", "import{"))
        and "require" not in text
        and pattern.search(text.strip())
    ]
    # Which lines name the key and whether they send it is decided after (key-named is a key-sent
    # line outside a request): the filter is about the lines.
    found = [("key-sent" if site.kind == "key-named" else site.kind, site.line) for site in evidence.code_sites(lines)]
    assert found == expected


def test_only_a_line_inside_a_request_sends_the_key():
    # chen-wei's client: the key is read back, made, written to a file, returned and declared before
    # the request; only the body field sends it.
    chen = [
        ("checkout.mjs", 13, "    if (pending.amount === amount) return pending.idempotencyKey;"),
        ("checkout.mjs", 17, "  const idempotencyKey = crypto.randomUUID();"),
        ("checkout.mjs", 18, '  writeFileSync(PENDING + ".tmp", JSON.stringify({ amount, idempotencyKey }));'),
        ("checkout.mjs", 20, "  return idempotencyKey;"),
        ("checkout.mjs", 26, "  const idempotencyKey = pendingKey(amount);"),
        ("checkout.mjs", 31, "      res = await fetch(`${GATEWAY}/charge`, {"),
        ("checkout.mjs", 34, "        body: JSON.stringify({ amount, idempotencyKey }),"),
    ]
    kinds = {(site.line, site.kind) for site in evidence.code_sites(chen)}
    assert {line for line, kind in kinds if kind == "key-sent"} == {34}
    assert {line for line, kind in kinds if kind == "key-named"} == {13, 17, 18, 20, 26}
    # The model draft: the key made inside the body sends it too.
    draft = [
        ("checkout.mjs", 4, '    const res = await fetch("http://localhost:8099/charge", {'),
        ("checkout.mjs", 9, "        idempotencyKey: crypto.randomUUID(), // fresh key per attempt"),
    ]
    assert {(site.line, site.kind) for site in evidence.code_sites(draft)} == {
        (4, "request"),
        (9, "key-made"),
        (9, "key-sent"),
    }
    # A header named by its own name, far from the request's first line.
    # An import makes nothing.
    assert evidence.code_sites([("checkout.mjs", 2, 'import { createHash } from "node:crypto";')]) == []
    header = [("client.mjs", 40, '  const headers = { "Idempotency-Key": key };')]
    assert [site.kind for site in evidence.code_sites(header)] == ["key-named"]
    header = [("client.mjs", 40, '    headers: { "Idempotency-Key": key },')]
    assert [site.kind for site in evidence.code_sites(header)] == ["key-sent"]
