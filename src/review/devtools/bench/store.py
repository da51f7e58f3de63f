"""``review bench store``: many consoles saving into one score file at once."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path


def _store_writer(job: tuple[str, str, int]) -> tuple[str, int, list[str], float]:
    """One console saving `saves` times in a row, each save based on its last (what autosave does)."""
    from review.services import store

    folder, who, saves = job
    submission = Path(folder) / "shared"
    revision, saved, refused, longest = None, 0, [], 0.0
    for number in range(saves):
        review = store.Review(
            [who],
            "a" * 40,
            tiers={"evidence": ("weak", "acceptable", "strong")[number % 3]},
            comment=f"{who} save {number + 1}",
        )
        started = time.perf_counter()
        try:
            revision = store.save(submission, review, base_revision=revision).revision
            saved += 1
        except store.StoreError as error:
            refused.append(str(error))
        longest = max(longest, time.perf_counter() - started)
    return who, saved, refused, longest


def store_benchmark(writers: int, saves: int, into: Path | None) -> int:
    """`writers` processes (each one console) save into one score file at once: saves per second,
    saves refused (goal 0) and saves lost — on disk less than was acknowledged (goal 0)."""
    import multiprocessing

    from review.services import seal, store

    folder = into or Path(tempfile.mkdtemp(prefix="review-bench-store-"))
    (folder / "shared").mkdir(parents=True, exist_ok=True)
    os.environ[seal.KEY_ENV] = str(folder / "seal.key")  # the benchmark's own key, never the reviewer's
    seal.key(create=True)
    jobs = [(str(folder), f"reviewer-{index:02d}", saves) for index in range(writers)]
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(writers) as pool:
        results = pool.map(_store_writer, jobs)
    elapsed = time.perf_counter() - started
    on_disk = {r.who: r for r in store.read_scores(folder / "shared").reviews}
    acknowledged = sum(saved for _who, saved, _refused, _longest in results)
    lost = sum(saved - (on_disk[who].revision if who in on_disk else 0) for who, saved, _r, _l in results)
    refused = [reason for _who, _saved, reasons, _longest in results for reason in reasons]
    print(f"{writers} writer processes × {saves} saves into one score file ({folder / 'shared.review.toml'}):")
    print(
        f"  acknowledged saves   {acknowledged:6d} in {elapsed:.2f} s = {acknowledged / elapsed:.0f} saves/s "
        "(process start-up included)"
    )
    print(f"  longest single save  {max(r[3] for r in results) * 1000:6.0f} ms (waiting for the lock included)")
    print(f"  refused saves        {len(refused):6d}   (goal 0)" + (f": {refused[0]}" if refused else ""))
    print(f"  lost saves           {lost:6d}   (goal 0: on disk, each writer's entry is at the revision it was told)")
    return 0 if not refused and not lost else 1
