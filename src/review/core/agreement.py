"""How far reviewers agree, per signal: on one submission (how many signals they scored alike) and
over a cohort (Cohen's weighted kappa for two reviewers, Krippendorff's ordinal alpha for any
number, each reviewer's lean). Tiers are ordinal: Weak < Acceptable < Strong. Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

ORDER = {"weak": 0, "acceptable": 1, "strong": 2}  # "no-decision" and unknown tiers are not compared


def tier_value(tier: str | None) -> int | None:
    return ORDER.get(tier) if tier else None


def submission_agreement(reviews: Sequence[Mapping[str, str]], signals: Sequence[str]) -> tuple[int, int]:
    """(signals where every reviewer who scored it chose the same tier, signals scored by two or more)."""
    same = compared = 0
    for signal in signals:
        values = [tier_value(tiers.get(signal)) for tiers in reviews]
        chosen = [v for v in values if v is not None]
        if len(chosen) >= 2:
            compared += 1
            same += len(set(chosen)) == 1
    return same, compared


def cohen_kappa(pairs: Sequence[tuple[int, int]], categories: int = 3) -> float | None:
    """Quadratic-weighted Cohen's kappa for two raters; None when it is undefined (no pairs, or no
    spread in what either rater chose)."""
    n = len(pairs)
    if n == 0 or categories < 2:
        return None
    observed = [[0.0] * categories for _ in range(categories)]
    for a, b in pairs:
        observed[a][b] += 1
    rows = [sum(r) for r in observed]
    cols = [sum(observed[i][j] for i in range(categories)) for j in range(categories)]
    disagree_seen = disagree_expected = 0.0
    for i in range(categories):
        for j in range(categories):
            weight = (i - j) ** 2 / (categories - 1) ** 2
            disagree_seen += weight * observed[i][j]
            disagree_expected += weight * rows[i] * cols[j] / n
    if disagree_expected == 0:
        return None
    return 1 - disagree_seen / disagree_expected


def krippendorff_alpha(units: Sequence[Sequence[int]], categories: int = 3) -> float | None:
    """Krippendorff's alpha with the ordinal metric; `units` are the values given to each item (a
    unit with fewer than two values is not pairable and does not count). None when undefined."""
    coincidence = [[0.0] * categories for _ in range(categories)]
    for values in units:
        m = len(values)
        if m < 2:
            continue
        for i, a in enumerate(values):
            for j, b in enumerate(values):
                if i != j:
                    coincidence[a][b] += 1 / (m - 1)
    totals = [sum(row) for row in coincidence]
    n = sum(totals)
    if n <= 1:
        return None

    def distance(c: int, k: int) -> float:
        low, high = min(c, k), max(c, k)
        return (sum(totals[low : high + 1]) - (totals[c] + totals[k]) / 2) ** 2

    seen = sum(coincidence[c][k] * distance(c, k) for c in range(categories) for k in range(categories))
    expected = sum(totals[c] * totals[k] * distance(c, k) for c in range(categories) for k in range(categories))
    if expected == 0:
        return None
    return 1 - (n - 1) * seen / expected


@dataclass
class SignalAgreement:
    signal: str
    items: int  # submissions scored by two or more reviewers on this signal
    same: int  # of those, where every reviewer chose the same tier
    kappa: float | None  # two reviewers only
    alpha: float | None

    def to_json(self) -> dict:
        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, 3)

        return {
            "signal": self.signal,
            "items": self.items,
            "same": self.same,
            "kappa": rounded(self.kappa),
            "alpha": rounded(self.alpha),
        }


def cohort_agreement(
    scored: Sequence[Mapping[str, Mapping[str, str]]], signals: Sequence[str]
) -> list[SignalAgreement]:
    """`scored`: per submission, reviewer -> their tiers. One result per signal."""
    reviewers = sorted({who for submission in scored for who in submission})
    results = []
    for signal in signals:
        units = []
        for submission in scored:
            values = [
                v for who in sorted(submission) for v in [tier_value(submission[who].get(signal))] if v is not None
            ]
            if len(values) >= 2:
                units.append(values)
        same = sum(len(set(values)) == 1 for values in units)
        kappa = None
        if len(reviewers) == 2:
            first, second = reviewers
            pairs = [
                (a, b)
                for submission in scored
                for a, b in [
                    (
                        tier_value(submission.get(first, {}).get(signal)),
                        tier_value(submission.get(second, {}).get(signal)),
                    )
                ]
                if a is not None and b is not None
            ]
            kappa = cohen_kappa(pairs)
        results.append(SignalAgreement(signal, len(units), same, kappa, krippendorff_alpha(units)))
    return results


def leans(scored: Sequence[Mapping[str, Mapping[str, str]]], signals: Sequence[str]) -> dict[str, float]:
    """Each reviewer's mean tier minus the mean of the others on the same items (in tiers: below 0
    is stricter than the others, above 0 looser). Only items scored by that reviewer and another."""
    sums: dict[str, list[float]] = {}
    for submission in scored:
        for signal in signals:
            values = {
                who: v for who, tiers in submission.items() for v in [tier_value(tiers.get(signal))] if v is not None
            }
            if len(values) < 2:
                continue
            for who, value in values.items():
                others = [v for other, v in values.items() if other != who]
                sums.setdefault(who, []).append(value - sum(others) / len(others))
    return {who: round(sum(diffs) / len(diffs), 3) for who, diffs in sums.items()}
