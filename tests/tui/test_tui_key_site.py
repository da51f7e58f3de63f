"""On the submission screen, g from Key scope lands on the line that makes the key the request sends,
not on a request id or an order id made before it (real repo, real analysis, the real app)."""

from __future__ import annotations

from helpers import STARTER, commit_as, make_repo, open_submission, posted, wait_until
from review.tui.app import ReviewApp

PREAMBLE = "".join(f"export const RETRYABLE_{n} = {500 + n};\n" for n in range(60))
CLIENT = PREAMBLE + (
    'import { randomUUID } from "node:crypto";\n'
    "export async function chargeWithRetry(amount) {\n"
    "  const orderId = randomUUID();\n"
    "  const idempotencyKey = `charge-${randomUUID()}`;\n"
    "  for (let attempt = 0; attempt < 3; attempt++) {\n"
    "    const requestId = randomUUID();\n"
    '    const res = await fetch("http://localhost:8099/charge", {\n'
    '      method: "POST",\n'
    '      headers: { "X-Request-Id": requestId, "Idempotency-Key": idempotencyKey },\n'
    "      body: JSON.stringify({ amount, orderId }),\n"
    "    });\n"
    "    if (res.ok) return res.json();\n"
    "  }\n"
    "}\n"
)
KEY_LINE = 64


async def test_g_goes_to_the_line_that_makes_the_key_sent(tmp_path):
    cohort = tmp_path / "cohort"
    repo = make_repo(cohort / "sdk-style", STARTER, "starter")
    commit_as(repo, "Retry with one key per charge\n", {"checkout.mjs": CLIENT})
    app = ReviewApp(cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_submission(app, pilot, "sdk-style")
        view = screen.query_one("#diff-view")

        def shown_lines() -> list[int]:
            top = view.scroll_offset.y
            return [r.line.new_no for r in view.rows[top : top + view.size.height] if r.line is not None]

        assert KEY_LINE not in shown_lines()
        await pilot.press("4", "down")
        row = app.focused
        assert row.signal.id == "key-scope"
        assert row.hints[0].text == (
            f"the key is made at checkout.mjs:{KEY_LINE}: const idempotencyKey = `charge-${{randomUUID()}}`;"
        )
        await pilot.press("g")
        # Read while it is up: a notice fades after seconds, which a loaded machine can spend getting here.
        said = []
        await wait_until(
            pilot,
            lambda: said.extend(n.message for n in posted(app)) or KEY_LINE in shown_lines(),
            timeout=30,
        )
        assert any(message.startswith(f"Key scope: checkout.mjs:{KEY_LINE}") for message in said)
