"""The commands for the people who build the console: ``review bench`` and ``review doctor``."""

from __future__ import annotations

import argparse
from pathlib import Path

BENCHMARKS = ("triage", "harness", "diff", "startup", "store", "repo", "goals")


def bench_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("what", choices=BENCHMARKS)
    parser.add_argument("--lines", type=int, default=100_000, help="for `bench diff` and `bench repo`")
    parser.add_argument("--commits", type=int, default=5000, help="for `bench repo`: the synthetic repository's")
    parser.add_argument("--json", action="store_true", help="for `bench repo` and `bench goals`: JSON")
    parser.add_argument("--submissions", type=int, default=300)
    parser.add_argument("--writers", type=int, default=60, help="for `bench store`")
    parser.add_argument("--saves", type=int, default=20, help="for `bench store`: saves per writer")
    parser.add_argument("--into", type=Path, default=None)


def doctor_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="one JSON document")


def run_bench(args: argparse.Namespace) -> int:
    # Each benchmark imported only when it is the one asked for.
    if args.what == "harness":
        from review.devtools.bench import harness

        return harness.harness_benchmark(args.into)
    if args.what == "diff":
        from review.devtools.bench import diff

        return diff.diff_benchmark(args.lines, args.into)
    if args.what == "startup":
        from review.devtools.bench import startup

        return startup.startup_benchmark(args.into)
    if args.what == "goals":
        from review.devtools.bench import goals

        return goals.run(args.json)
    if args.what == "repo":
        from review.devtools.bench import repo

        return repo.repo_benchmark(args.commits, args.lines, args.into, args.json)
    if args.what == "store":
        from review.devtools.bench import store

        return store.store_benchmark(args.writers, args.saves, args.into)
    from review.devtools.bench import triage

    return triage.triage_benchmark(args.submissions, args.into)


def run_doctor(args: argparse.Namespace) -> int:
    from review.devtools import doctor

    text, code = doctor.report(args.json)
    print(text)
    return code
