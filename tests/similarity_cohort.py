"""The sample cohort with planted submissions, built as real repositories from the sample starter:
a disguised copy of chen-wei (every identifier renamed, reformatted, two functions swapped, no
assistant disclosed), two candidates who hand in the model draft unchanged, and two who each keep a
copy of the starter's gateway stub beside code of their own."""

from __future__ import annotations

from pathlib import Path

from js_disguise import disguise, swap_blocks
from review.services import samples

SAMPLES = Path(__file__).resolve().parents[1] / "sample_submissions"
CHEN = (SAMPLES / "chen-wei" / "03-persist-key" / "tree" / "checkout.mjs").read_text()
CHEN_TEST = (SAMPLES / "chen-wei" / "02-failing-test" / "tree" / "test" / "checkout.test.mjs").read_text()
DRAFT = (SAMPLES / "_draft" / "checkout.mjs").read_bytes()
GATEWAY = (SAMPLES / "_starter" / "tree" / "gateway" / "fake-gateway.mjs").read_bytes()


def starter() -> samples.CommitSpec:
    return samples.load_series()[0].commits[0]


def commit(files: dict[str, bytes | str], message: str = "checkout", who: str = "Cand") -> samples.CommitSpec:
    data = {path: text.encode() if isinstance(text, str) else text for path, text in files.items()}
    return samples.CommitSpec(data, message, who, f"{who.lower()}@example.com", "2026-11-05T10:00:00+00:00")


def disguised(source: str) -> str:
    return disguise(source, lambda name: "z" + name[::-1], lambda i, _: "\n    " if i % 5 == 0 else " ")


def plant(cohort: Path, name: str, *commits: samples.CommitSpec) -> Path:
    samples.build_repo(cohort / name, [starter(), *commits])
    return cohort / name


def plant_all(cohort: Path) -> Path:
    swapped = swap_blocks(CHEN, "// The key must", "const backoff")
    plant(cohort, "zed-copy", commit({"checkout.mjs": disguised(swapped), "test/pay.test.mjs": disguised(CHEN_TEST)}))
    for name in ("ivy-draft", "jon-draft"):
        plant(cohort, name, commit({"checkout.mjs": DRAFT}, "Add payment client"))
    own = {
        "kai-stub": "export const total = (xs) => xs.reduce((a, b) => a + b.price * b.qty, 0);\n",
        "lee-stub": "class Ledger { constructor() { this.rows = new Map(); } add(k, v) { this.rows.set(k, v); } }\n",
    }
    for name, code in own.items():
        plant(cohort, name, commit({"checkout.mjs": DRAFT, "lib/own.mjs": code, f"lib/{name}-gw.mjs": GATEWAY}))
    return cohort
