"""Command line: ``review COHORT``, ``review demo``, ``review triage``, ``review bench``.

Exit codes: 0 ok, 1 the thing reviewed failed (with --check), 2 usage or input error.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path

from review import __version__, cli_tools, demo, gitsafe, tune_gc
from review.core.text import safe_line
from review.harness.scenarios import SCENARIOS
from review.services import cohort
from review.tui import DEFAULT_THEME

SUBCOMMANDS = ("open", "demo", "triage", "bench", "harness", "export", "doctor", "lint-prompt", "import", "calibrate")


UNSAFE_HELP = ("run candidate code without bubblewrap, with Node's permission flags alone (no network or "
               "process isolation): only for code you trust; every result says so")


def _common_ui(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--unsafe-no-sandbox", action="store_true", help=UNSAFE_HELP)
    parser.add_argument("--theme", default=DEFAULT_THEME,
                        help="theme name (bundled: review-dark, review-light, review-high-contrast; "
                             "also Textual's, e.g. ansi-dark for tmux)")
    parser.add_argument("--reviewer", action="append", default=[],
                        help="who is reviewing; give it twice for a pair")
    parser.add_argument("--blind", action="store_true",
                        help="hide other reviewers' scores until yours is final")
    parser.add_argument("--no-harness", action="store_true",
                        help="do not run the harness in the background for the triage column")
    parser.add_argument("--anonymous", action="store_true",
                        help="candidate-blind: names, e-mails and folder names shown as candidate-N (A twice lifts it)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="review", description="Grade take-home submissions in the terminal.")
    parser.add_argument("--version", action="version", version=f"review {__version__}")
    sub = parser.add_subparsers(dest="command",
                                metavar="{COHORT,demo,triage,harness,export,bench,doctor,lint-prompt,import,calibrate}")

    open_p = sub.add_parser("open", help="open the console on a cohort folder (the default: `review COHORT`)")
    open_p.add_argument("cohort", type=Path)
    _common_ui(open_p)

    demo_p = sub.add_parser("demo", help="build the bundled sample cohort as git repos and open it")
    demo_p.add_argument("--into", type=Path, default=None, help=f"where to build (default {demo.default_demo_dir()})")
    demo_p.add_argument("--build-only", action="store_true", help="build, print the folder, do not open")
    _common_ui(demo_p)

    triage_p = sub.add_parser("triage", help="the triage rows, headless")
    triage_p.add_argument("cohort", type=Path)
    triage_p.add_argument("--json", action="store_true", help="one JSON document (fields in README)")
    triage_p.add_argument("--harness", action="store_true",
                          help="run the harness suite where no result is cached for HEAD (slow)")

    harness_p = sub.add_parser("harness", help="run a submission against the pinned fake gateway")
    harness_p.add_argument("submission", type=Path)
    harness_p.add_argument("--commit", default="HEAD", help="commit id to run (default HEAD)")
    harness_p.add_argument("--scenario", action="append", choices=[s.name for s in SCENARIOS], default=None,
                           help="run only this scenario (repeatable)")
    harness_p.add_argument("--json", action="store_true", help="one JSON document (fields in README)")
    harness_p.add_argument("--check", action="store_true", help="exit 1 unless every verdict is ok")
    harness_p.add_argument("--log", action="store_true", help="stream the gateway log to stderr as it happens")
    harness_p.add_argument("--unsafe-no-sandbox", action="store_true", help=UNSAFE_HELP)
    harness_p.add_argument("--timeline", action="store_true",
                           help="every commit: the suite and the candidate's own tests (red/green); bubblewrap only "
                                "for the tests")

    export_p = sub.add_parser("export", help="every review of a cohort, with per-signal tiers and agreement")
    export_p.add_argument("cohort", type=Path)
    export_p.add_argument("--format", choices=["csv", "json", "md"], default="csv")
    export_p.add_argument("--anonymous", action="store_true",
                          help="candidate-blind: submissions as candidate-N, names masked in comments")
    export_p.add_argument("--reveal", action="store_true",
                          help="names shown although cohort.toml says anonymous = true")

    doctor_p = sub.add_parser("doctor", help="what this machine gives the console: versions, sandbox, folders")
    doctor_p.add_argument("--json", action="store_true", help="one JSON document")

    bench_p = sub.add_parser("bench", help="benchmarks that print figures and ratios")
    bench_p.add_argument("what", choices=["triage", "harness", "diff", "startup", "store", "repo", "goals"])
    bench_p.add_argument("--lines", type=int, default=100_000, help="for `bench diff` and `bench repo`")
    bench_p.add_argument("--commits", type=int, default=5000, help="for `bench repo`: the synthetic repository's")
    bench_p.add_argument("--json", action="store_true", help="for `bench repo` and `bench goals`: JSON")
    bench_p.add_argument("--submissions", type=int, default=300)
    bench_p.add_argument("--writers", type=int, default=60, help="for `bench store`")
    bench_p.add_argument("--saves", type=int, default=20, help="for `bench store`: saves per writer")
    bench_p.add_argument("--into", type=Path, default=None)
    cli_tools.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    as_program = argv is None  # the `review` command itself, not a caller in the same process
    tune_gc()  # triage of a large history allocates millions of objects too
    argv = list(sys.argv[1:] if argv is None else argv)
    # `review COHORT` is the everyday form: treat a first word that is no subcommand as a folder.
    if argv and not argv[0].startswith("-") and argv[0] not in SUBCOMMANDS:
        argv.insert(0, "open")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if getattr(args, "unsafe_no_sandbox", False):
        from review.harness import sandbox

        os.environ[sandbox.UNSAFE_ENV] = "1"  # this process and the runs it starts: said in every result
        sandbox.detect.cache_clear()
    headless = args.command not in ("open", "demo")  # the console handles its own keys and signals
    received: list[int] = []
    previous = _stop_on_signals(received) if headless else {}
    try:
        return {**COMMANDS, **cli_tools.COMMANDS}[args.command](args)
    except (cohort.CohortError, demo.SampleError) as error:
        print(f"review: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Runs in flight were cancelled on the way out, which kills their process groups.
        number = received[-1] if received else signal.SIGINT
        print(f"review: stopped by {signal.Signals(number).name}", file=sys.stderr)
        if as_program:
            # The runs were cancelled (and their processes killed) on the way here; what is left is
            # interpreter shutdown, where asyncio's half-closed transports would print tracebacks.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(128 + number)
        return 128 + number
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _stop_on_signals(received: list[int]) -> dict:
    """SIGTERM and SIGHUP (an SSH drop) end a command the way ctrl+c does: cleanly, with one line."""

    def stop(number: int, _frame) -> None:
        received.append(number)
        raise KeyboardInterrupt

    previous = {}
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        previous[number] = signal.signal(number, stop)
    return previous


def _check_theme(name: str):
    """The themes loaded, or None (with a message) when `name` is none of them. Textual is imported
    here, not at the top: the headless commands (triage --json, harness, export) never load it."""
    from textual.theme import BUILTIN_THEMES

    from review.tui import themes

    load = themes.load_themes()
    if name not in load.themes and name not in BUILTIN_THEMES:
        for failure in load.failures:
            print(f"review: theme not loaded: {failure}", file=sys.stderr)
        names = ", ".join(sorted({*load.themes, *BUILTIN_THEMES}))
        print(f"review: unknown theme {name!r}; available: {names}", file=sys.stderr)
        return None
    return load


def check_reviewers(names: list[str]) -> str | None:
    """Why these reviewer names cannot be saved in a score file, or None."""
    for name in names:
        if not name.strip():
            return "a reviewer name cannot be empty"
        if len(name) > MAX_REVIEWER:
            return f"a reviewer name is at most {MAX_REVIEWER} characters ({len(name)} given)"
        if safe_line(name, MAX_REVIEWER + 1) != name or any(ch.isspace() and ch != " " for ch in name):
            return f"reviewer name {safe_line(name, 80)!r} holds control, invisible or line-breaking characters"
    return None


MAX_REVIEWER = 64


def _open(cohort_dir: Path, args: argparse.Namespace) -> int:
    cohort.list_submissions(cohort_dir)  # a clear message and exit 2 before the screen takes over
    problem = check_reviewers(args.reviewer)
    if problem:
        print(f"review: {problem}", file=sys.stderr)
        return 2
    load = _check_theme(args.theme)
    if load is None:
        return 2
    from review.tui import keymap

    try:
        keymap.load()
    except keymap.KeymapError as error:
        print(f"review: {error}", file=sys.stderr)
        return 2
    from review.tui.app import ReviewApp

    app = ReviewApp(cohort_dir, theme=args.theme, reviewers=tuple(args.reviewer), theme_load=load,
                    run_harness=not args.no_harness, blind=args.blind,
                    anonymous=args.anonymous or cohort.cohort_blind(cohort_dir))
    app.run()
    return app.return_code or 0  # Textual sets 1 after an exception it printed: never "ok" after a crash


def cmd_open(args: argparse.Namespace) -> int:
    return _open(args.cohort, args)


def cmd_demo(args: argparse.Namespace) -> int:
    folder = demo.build_demo(args.into)
    if args.build_only:
        print(folder)
        return 0
    return _open(folder, args)


def cmd_triage(args: argparse.Namespace) -> int:
    rows = cohort.triage(args.cohort)
    rows.sort(key=lambda r: r.name)
    if args.harness:
        import asyncio

        asyncio.run(cohort.fill_harness(rows))
    if args.json:
        # One submission per line, each written by the C encoder (an indented dump is pure Python,
        # and was most of a warm triage's time on a large submission).
        rows_text = ",\n".join(f"    {json.dumps(r.to_json())}" for r in rows)
        sys.stdout.write(f'{{\n  "cohort": {json.dumps(str(args.cohort.resolve()))},\n  "submissions": [\n'
                         f"{rows_text}\n  ]\n}}\n")
        return 0
    from review.core import triage as marks

    print(f"{'candidate':24} {'state':10} {'key scope':11} {'runs':8} {'disclosure':10} detail")
    for row in rows:
        detail = row.problem or f"{row.commits} commits, assistants: {', '.join(row.assistants) or 'none'}"
        runs = marks.marks(row.scenarios) if row.scenarios else "—"
        print(safe_line(f"{row.name:24} {row.state:10} {row.key_scope or '—':11} {runs:8} "
                        f"{row.disclosure or '—':10} {detail}", 400))
    print("runs: " + " ".join(marks.SHORT.values()) + f" ({marks.OK} ok, {marks.BAD} not ok, {marks.NOT_RUN} not run)")
    return 0


def cmd_harness(args: argparse.Namespace) -> int:
    import asyncio

    from review.harness import runner, sandbox

    if not args.submission.is_dir():
        print(f"review: {args.submission}: not a folder", file=sys.stderr)
        return 2
    try:
        repo = gitsafe.open_submission(args.submission)
        commit = repo.resolve(args.commit)
        info = sandbox.detect()
        sandbox.require_runnable(info)
    except (gitsafe.GitSafeError, sandbox.SandboxError) as error:
        print(f"review: {args.submission}: {error}", file=sys.stderr)
        return 2

    def listener(event: runner.HarnessEvent) -> None:
        if args.log and event.text:
            print(event.text, file=sys.stderr, flush=True)

    if args.timeline:
        return _timeline(repo, info, listener, args.json)
    try:
        suite = asyncio.run(runner.run_suite(repo, commit, args.scenario, listener, info))
    except sandbox.SandboxError as error:  # a full disk, a cache that cannot be written: said, exit 2
        print(f"review: not run: {error}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(suite.to_json(), sys.stdout, indent=2)
        print()
    else:
        environment = suite.environment
        print(safe_line(f"{suite.submission} @ {commit[:12]} · sandbox {environment.get('sandbox', suite.sandbox)} · "
                        f"node {suite.node} · gateway {environment.get('gateway', '?')}", 300))
        for result in suite.scenarios:
            gaps = ",".join(f"{g:.0f}" for g in result.gaps_ms) or "-"
            print(safe_line(f"  {result.name:14} {result.verdict:18} requests {result.requests}  keys "
                            f"{result.distinct_keys}  charges {result.charges_created}  gaps(ms) {gaps}", 300))
            print(safe_line(f"  {'':14} {'; '.join(result.reasons)}", 600))
        if suite.sandbox == "reduced":
            print("  sandbox: reduced (bubblewrap not available): Node's permission flags only", file=sys.stderr)
    if args.check and any(s.verdict != "ok" for s in suite.scenarios):
        return 1
    return 0


def _timeline(repo, info, listener, as_json: bool) -> int:
    import asyncio

    from review.harness import timeline

    def show(entry: timeline.Entry) -> None:
        if as_json:
            return
        tests = entry.tests
        parts = [entry.commit[:12], entry.suite.summary if entry.suite else "suite not run",
                 f"own tests {tests.state}" + (f" ({tests.summary})" if tests and tests.summary else "") if tests
                 else "own tests not run"]
        if entry.same_code_as:
            parts.append(f"same code as {entry.same_code_as[:12]}")
        if entry.problem:
            parts.append(entry.problem)
        print(safe_line("  ".join(parts), 400), flush=True)

    entries = asyncio.run(timeline.run_timeline(repo, [c.sha for c in repo.commits()], show, listener, info))
    if as_json:
        json.dump({"submission": repo.source.name, "sandbox": info.kind, "commits": [
            {"commit": e.commit, "same_code_as": e.same_code_as, "problem": e.problem,
             "suite": e.suite.to_json() if e.suite else None, "tests": e.tests.to_json() if e.tests else None}
            for e in entries]}, sys.stdout, indent=2)
        print()
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from review.core import rubric
    from review.services import export

    try:
        blind = args.anonymous or (cohort.cohort_blind(args.cohort) and not args.reveal)
        sys.stdout.write(export.render(args.cohort, args.format, anonymous=blind))
    except (rubric.RubricError, cohort.CohortError) as error:
        print(f"review: {error}", file=sys.stderr)
        return 2
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from review import bench

    if args.what == "harness":
        return bench.harness_benchmark(args.into)
    if args.what == "diff":
        from review import bench_diff

        return bench_diff.diff_benchmark(args.lines, args.into)
    if args.what == "startup":
        return bench.startup_benchmark(args.into)
    if args.what == "goals":
        from review import bench_goals

        return bench_goals.run(args.json)
    if args.what == "repo":
        from review import bench_repo

        return bench_repo.repo_benchmark(args.commits, args.lines, args.into, args.json)
    if args.what == "store":
        return bench.store_benchmark(args.writers, args.saves, args.into)
    return bench.triage_benchmark(args.submissions, args.into)


def cmd_doctor(args: argparse.Namespace) -> int:
    from review import doctor

    text, code = doctor.report(args.json)
    print(text)
    return code


COMMANDS = {"doctor": cmd_doctor, "open": cmd_open, "demo": cmd_demo, "triage": cmd_triage, "harness": cmd_harness, "export": cmd_export,
            "bench": cmd_bench}
