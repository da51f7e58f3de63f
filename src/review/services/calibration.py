"""Calibration: known-answer submissions slipped into a cohort, unmarked, and each reviewer's drift.

``review calibrate COHORT`` builds submissions from the bundled sample archetypes under made-up
candidate names (authors, folder and note re-written, so nothing marks them), and records which
they are in the reviewer's own data folder — never in the cohort, where the reviewer would see it.
Their reference tiers are this module's (the article's rubric applied to each archetype). Once
scored, ``drift`` compares each reviewer's tiers with the reference and with the other reviewers of
the same submission: the mean difference per signal (below 0: stricter than the reference).
"""

from __future__ import annotations

import os
import random
import re
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from review import gitsafe
from review.core.agreement import ORDER
from review.services import samples, store
from review.support import files, paths

# The article's rubric applied to the archetypes (sample_submissions/README.md says what each did).
REFERENCE: dict[str, dict[str, str]] = {
    # The model draft left as it is: a fresh key per attempt, "it passes".
    "ada-okafor": {
        "found-defect": "weak",
        "key-scope": "weak",
        "evidence": "weak",
        "explanation": "weak",
        "blast-radius": "weak",
    },
    # Saw the key in the loop by reading, hoisted it per call, ran the stub once, names the restart as untested.
    "ben-larsen": {
        "found-defect": "acceptable",
        "key-scope": "acceptable",
        "evidence": "acceptable",
        "explanation": "acceptable",
        "blast-radius": "acceptable",
    },
    # A red test first, the key persisted before the request, before/after output, the restart gap, timeouts.
    "chen-wei": {
        "found-defect": "strong",
        "key-scope": "strong",
        "evidence": "strong",
        "explanation": "strong",
        "blast-radius": "strong",
    },
    # try/catch swallows the 503: the symptom fixed, a payment dropped in an outage.
    "dev-patel": {
        "found-defect": "weak",
        "key-scope": "weak",
        "evidence": "weak",
        "explanation": "weak",
        "blast-radius": "weak",
    },
}
# Made-up candidates: (folder, name, e-mail). None of them is a sample's.
PEOPLE = [
    ("jo-marsh", "Jo Marsh", "jo.marsh@example.net"),
    ("sam-ortiz", "Sam Ortiz", "sam.ortiz@example.net"),
    ("kai-lund", "Kai Lund", "kai.lund@example.net"),
    ("rae-ibsen", "Rae Ibsen", "rae.ibsen@example.net"),
    ("noa-brandt", "Noa Brandt", "noa.brandt@example.net"),
    ("lee-varga", "Lee Varga", "lee.varga@example.net"),
    ("ira-novak", "Ira Novak", "ira.novak@example.net"),
    ("tam-quinn", "Tam Quinn", "tam.quinn@example.net"),
]


class CalibrationError(Exception):
    """Calibration cannot be planted or read; the message says why."""


@dataclass(frozen=True)
class Planted:
    cohort: str
    name: str  # the folder in the cohort
    archetype: str  # which sample it was built from (the reference's key)
    head: str


def ledger_path() -> Path:
    return paths.data_dir() / "calibration.toml"


def _read_ledger() -> list[Planted]:
    try:
        document = tomllib.loads(ledger_path().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise CalibrationError(f"{ledger_path()} cannot be read: {error}") from None
    found = []
    for entry in document.get("planted", []) if isinstance(document.get("planted"), list) else []:
        if isinstance(entry, dict) and all(isinstance(entry.get(k), str) for k in ("cohort", "name", "archetype")):
            found.append(Planted(entry["cohort"], entry["name"], entry["archetype"], str(entry.get("head", ""))))
    return found


def _write_ledger(entries: list[Planted]) -> None:
    path = ledger_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    files.write_atomic(path, tomli_w.dumps({"planted": [e.__dict__ for e in entries]}).encode("utf-8"))  # 0600


def planted_in(cohort_dir: Path) -> dict[str, str]:
    """Folder name -> archetype, for this cohort's calibration submissions (from this reviewer's data)."""
    key = str(cohort_dir.resolve())
    return {p.name: p.archetype for p in _read_ledger() if p.cohort == key and (cohort_dir / p.name).is_dir()}


def _disguise(spec: samples.CommitSpec, original: tuple[str, str], person: tuple[str, str, str]) -> samples.CommitSpec:
    """The sample's commit as the made-up candidate's: their name in authors and in the files."""
    _folder, name, email = person
    first, _, last = original[0].partition(" ")
    fake_first, _, fake_last = name.partition(" ")

    def swap(text: str) -> str:
        for old, new in ((original[0], name), (original[1], email), (first, fake_first), (last, fake_last)):
            if old:
                text = re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", new, text)
        return text

    files = {
        path: swap(data.decode("utf-8")).encode("utf-8") if path.endswith((".md", ".txt")) else data
        for path, data in spec.files.items()
    }
    changed = spec.author_email == original[1]
    return samples.CommitSpec(
        files,
        swap(spec.message),
        swap(spec.author_name) if changed else spec.author_name,
        email if changed else spec.author_email,
        spec.date,
        swap(spec.committer_name) if spec.committer_name else None,
        email if spec.committer_email == original[1] else spec.committer_email,
        spec.delete,
        spec.executable,
    )


def plant(cohort_dir: Path, count: int = 2, seed: int | None = None) -> list[Planted]:
    if not cohort_dir.is_dir():
        raise CalibrationError(f"{cohort_dir}: no such folder")
    if not 1 <= count <= len(REFERENCE):
        raise CalibrationError(f"--count must be between 1 and {len(REFERENCE)}")
    chooser = random.Random(seed)
    taken = {p.name for p in cohort_dir.iterdir()}
    people = [p for p in PEOPLE if p[0] not in taken]
    series = {s.name: s for s in samples.load_series()}
    already = set(planted_in(cohort_dir).values())
    archetypes = [name for name in REFERENCE if name not in already] or list(REFERENCE)
    if len(people) < count:
        raise CalibrationError("no unused made-up names left in this cohort")
    ledger = _read_ledger()
    planted = []
    for archetype, person in zip(
        chooser.sample(archetypes, min(count, len(archetypes))), chooser.sample(people, count)
    ):
        commits = series[archetype].commits
        candidate = commits[1]  # the first commit after the starter is the candidate's
        original = (candidate.author_name.replace(" (aider)", ""), candidate.author_email)
        target = cohort_dir / person[0]
        scratch = cohort_dir / f".{person[0]}.building"  # hidden until whole
        shutil.rmtree(scratch, ignore_errors=True)
        head = samples.build_repo(scratch, [commits[0], *(_disguise(c, original, person) for c in commits[1:])])
        os.rename(scratch, target)
        entry = Planted(str(cohort_dir.resolve()), person[0], archetype, head)
        planted.append(entry)
        ledger.append(entry)
    _write_ledger(ledger)
    return planted


@dataclass(frozen=True)
class Drift:
    reviewer: str
    signal: str
    items: int  # calibration submissions this reviewer gave a tier on this signal
    vs_reference: float | None  # mean (their tier − reference), weak=0 … strong=2
    vs_pair: float | None  # mean (their tier − the other reviewers' mean) where others scored it too


def drift(cohort_dir: Path) -> list[Drift]:
    """Per reviewer and signal, over the final reviews of this cohort's calibration submissions."""
    to_reference: dict[tuple[str, str], list[int]] = {}
    to_pair: dict[tuple[str, str], list[float]] = {}
    for name, archetype in sorted(planted_in(cohort_dir).items()):
        reference = REFERENCE.get(archetype, {})
        try:
            head = gitsafe.read_head(cohort_dir / name).sha  # a few files, not a triage row (a clone when cold)
        except gitsafe.GitSafeError:
            continue
        finals = [r for r in store.read_scores(cohort_dir / name).reviews if r.state == "final" and r.commit == head]
        for review in finals:
            for signal, tier in review.tiers.items():
                if tier not in ORDER:
                    continue
                if signal in reference:
                    to_reference.setdefault((review.who, signal), []).append(ORDER[tier] - ORDER[reference[signal]])
                others = [ORDER[o.tiers[signal]] for o in finals if o is not review and o.tiers.get(signal) in ORDER]
                if others:
                    to_pair.setdefault((review.who, signal), []).append(ORDER[tier] - sum(others) / len(others))
    keys = sorted(to_reference.keys() | to_pair.keys())
    return [
        Drift(
            who,
            signal,
            len(to_reference.get((who, signal), [])),
            _mean(to_reference.get((who, signal))),
            _mean(to_pair.get((who, signal))),
        )
        for who, signal in keys
    ]


def _mean(values: list | None) -> float | None:
    return sum(values) / len(values) if values else None
