"""The commands for the people who build the console: ``review bench`` and ``review doctor``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

INTO_HELP = "the folder to build the benchmark's inputs in (default: a new temporary folder)"


@dataclass(frozen=True)
class Benchmark:
    """One `review bench NAME`: its own options, its own --help, and what runs it."""

    name: str
    help: str
    description: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def _into(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--into", type=Path, default=None, metavar="DIR", help=INTO_HELP)


def _json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON document")


def _triage_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--submissions",
        type=int,
        default=300,
        metavar="N",
        help="how many submissions the generated cohort holds (default 300)",
    )
    _into(parser)


def _diff_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lines",
        type=int,
        default=100_000,
        metavar="N",
        help="how many lines the generated submission's diff adds (default 100000)",
    )
    _into(parser)


def _repo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--commits",
        type=int,
        default=5000,
        metavar="N",
        help="how many commits the generated repository has (default 5000)",
    )
    parser.add_argument(
        "--lines",
        type=int,
        default=100_000,
        metavar="N",
        help="how many lines those commits add in all (default 100000)",
    )
    _json(parser)
    _into(parser)


def _memory_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--submissions",
        type=int,
        default=300,
        metavar="N",
        help="how many ordinary submissions the generated cohort holds beside the huge one (default 300)",
    )
    parser.add_argument(
        "--distinct",
        type=int,
        default=60,
        metavar="N",
        help="how many of them are opened one after another (default 60)",
    )
    parser.add_argument(
        "--reopen",
        type=int,
        default=15,
        metavar="N",
        help="how many times the huge submission is opened again (default 15)",
    )
    parser.add_argument(
        "--lines",
        type=int,
        default=130_000,
        metavar="N",
        help="how many lines the huge submission's diff adds (default 130000)",
    )
    _into(parser)


def _cold_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--submissions",
        type=int,
        default=1000,
        metavar="N",
        help="how many submissions the generated cohort holds (default 1000)",
    )
    _into(parser)


def _goals_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smaller sizes (and no 1,000-submission cold triage): a few minutes less, and figures "
        "that are not the goals' own",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=None,
        metavar="STEP",
        help="run only this benchmark (startup, repo, diff, memory, triage, cold; repeatable)",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the figures as one JSON document")
    output.add_argument(
        "--markdown", action="store_true", help="only the table of goals, in Markdown (as docs/benchmarks.md holds it)"
    )


def _store_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--writers",
        type=int,
        default=60,
        metavar="N",
        help="how many processes save into the one score file at once (default 60)",
    )
    parser.add_argument(
        "--saves", type=int, default=20, metavar="N", help="how many saves each of those processes makes (default 20)"
    )
    _into(parser)


def _run_triage(args: argparse.Namespace) -> int:
    from review.devtools.bench import triage

    return triage.triage_benchmark(args.submissions, args.into)


def _run_harness(args: argparse.Namespace) -> int:
    from review.devtools.bench import harness

    return harness.harness_benchmark(args.into)


def _run_diff(args: argparse.Namespace) -> int:
    from review.devtools.bench import diff

    return diff.diff_benchmark(args.lines, args.into)


def _run_startup(args: argparse.Namespace) -> int:
    from review.devtools.bench import startup

    return startup.startup_benchmark(args.into)


def _run_store(args: argparse.Namespace) -> int:
    from review.devtools.bench import store

    return store.store_benchmark(args.writers, args.saves, args.into)


def _run_repo(args: argparse.Namespace) -> int:
    from review.devtools.bench import repo

    return repo.repo_benchmark(args.commits, args.lines, args.into, args.json)


def _run_memory(args: argparse.Namespace) -> int:
    from review.devtools.bench import memory

    return memory.memory_benchmark(args.submissions, args.distinct, args.reopen, args.lines, args.into)


def _run_cold(args: argparse.Namespace) -> int:
    from review.devtools.bench import triage

    return triage.cold_cohort_benchmark(args.submissions, args.into)


def _run_goals(args: argparse.Namespace) -> int:
    from review.devtools.bench import goals

    return goals.run(args.json, args.quick, args.only, args.markdown)


# Each benchmark is imported only when it is the one asked for.
BENCHMARKS = (
    Benchmark(
        "triage",
        "a generated cohort: the triage table painted and complete, beside a git log loop",
        "Generates a cohort of N submissions and times the console until the triage table is painted and "
        "until every row is complete, cold (an empty cache) and warm (the console started again), beside a "
        "shell loop of `git log -1` over the same folders, with the ratio.",
        _triage_arguments,
        _run_triage,
    ),
    Benchmark(
        "harness",
        "every sample submission's suite against its floor, then 2, 4 and 8 suites at once",
        "Runs each sample submission's harness suite and prints its wall time beside its physical floor "
        "(node's start-up in the sandbox, the waits the candidate's backoff asked for, the hung client's "
        "limit), then the whole cohort with 2, 4 and 8 suites at once.",
        _into,
        _run_harness,
    ),
    Benchmark(
        "diff",
        "a huge diff: reading it, the first screen, a page of new rows, Enter to first frame",
        "Builds a submission whose diff adds N lines and prints the time to read it, the memory peak, the "
        "first screen, one page of never-seen rows against a 60 Hz frame, and Enter on the triaged row "
        "until the first frame, beside `git diff` into a pipe; then, in tmux, from Enter until the diff's first "
        "screen is on the terminal, for the console and for `tig show HEAD` typed at a shell (process start "
        "included), and their ratio (goal ≤ 2); then a page of changed lines with their changed words marked, "
        "beside the same page drawn plain.",
        _diff_arguments,
        _run_diff,
    ),
    Benchmark(
        "startup",
        "review --version and --help beside python3 -I -c pass; the console's first paint in tmux",
        "Times `review --version` and `review --help` as whole processes, in turns with `python3 -I -c pass` "
        "(median of 15, goal ≤ 4×); then starts the console for real in a tmux window on the sample cohort "
        "five times and prints the median time to the first painted triage table, beside a bare Textual app "
        "started the same way (that part needs tmux).",
        _into,
        _run_startup,
    ),
    Benchmark(
        "store",
        "many processes saving into one score file: saves per second, refused and lost saves",
        "Starts N writer processes, each saving its own review into one score file as autosave does, and "
        "prints saves per second, the longest save (lock wait included), refused saves and lost saves; "
        "exits 1 when any save was refused or lost.",
        _store_arguments,
        _run_store,
    ),
    Benchmark(
        "repo",
        "a generated long history with notes: triage cold and warm beside git log, peak memory",
        "Generates one submission with N commits (git-ai notes on each, a trailer on every tenth) and runs "
        "`review triage --json` on it in its own process, cold and warm, beside `git log`, `git log -p` "
        "and one batch read of every note, with each ratio and peak RSS beside its goal.",
        _repo_arguments,
        _run_repo,
    ),
    Benchmark(
        "memory",
        "a day's work in one console: RSS after each submission opened and left",
        "Generates a cohort of N submissions and one with a huge diff, reads its rows once, then drives one "
        "console (Pilot, in a process of its own) as a reviewer does: Enter, Escape, Down over the "
        "submissions, then the huge one opened again and again; prints the console's RSS after each step, "
        "the growth per submission, per reopening and the peak, each beside its goal.",
        _memory_arguments,
        _run_memory,
    ),
    Benchmark(
        "cold",
        "a generated cohort of 1,000 triaged cold, beside the safe copies alone on the same cores",
        "Generates a cohort of N submissions and runs `review triage --json` on it with an empty cache, a "
        "whole process timed from outside, beside a loop that makes each submission's safe copy (git clone "
        "--bare --no-local) and nothing else, as many at once as there are cores, with the ratio (goal ≤ 1.3).",
        _cold_arguments,
        _run_cold,
    ),
    Benchmark(
        "goals",
        "every benchmark with a goal, each in its own process, and one table: met or MISSED",
        "Runs the startup, repo, diff, memory, triage and cold benchmarks at their goal sizes, each in a "
        "process of its own, and ends with one table: what was measured, against what, the ratio, the goal, "
        "and met or MISSED. Exits 1 when a goal is missed or a benchmark fails.",
        _goals_arguments,
        _run_goals,
    ),
)
BENCHMARK_BY_NAME = {benchmark.name: benchmark for benchmark in BENCHMARKS}


def bench_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(
        dest="benchmark", metavar="BENCHMARK", required=True, title="benchmarks (each has its own --help)"
    )
    for benchmark in BENCHMARKS:
        benchmark.arguments(sub.add_parser(benchmark.name, help=benchmark.help, description=benchmark.description))


def doctor_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="one JSON document")


def run_bench(args: argparse.Namespace) -> int:
    return BENCHMARK_BY_NAME[args.benchmark].run(args)


def run_doctor(args: argparse.Namespace) -> int:
    from review.devtools import doctor

    text, code = doctor.report(args.json)
    print(text)
    return code
