"""The commands that print instead of opening the console: ``review triage``, ``review harness``
and ``review export`` (their JSON fields are described in docs/formats.md)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from review.cli import pipes
from review.cli.console import UNSAFE_HELP
from review.core.text import fit, safe_line, wrapped


def triage_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cohort", type=Path)
    parser.add_argument("--json", action="store_true", help="one JSON document (fields in docs/formats.md)")
    parser.add_argument(
        "--spans",
        action="store_true",
        help="with --json: every row's attribution spans too (runs of lines and who wrote them; "
        "large on a long history)",
    )
    parser.add_argument(
        "--files",
        action="store_true",
        help="with --json: every row's per-file figures too (added and AI-added lines, why a file "
        "is left out of the share); without it, counts of files per reason",
    )
    parser.add_argument(
        "--harness", action="store_true", help="run the harness suite where no result is cached for HEAD (slow)"
    )
    blind = parser.add_mutually_exclusive_group()
    blind.add_argument(
        "--anonymous",
        action="store_true",
        help="candidate-blind: submissions as candidate-N, names and e-mails masked everywhere",
    )
    blind.add_argument("--reveal", action="store_true", help="names shown although cohort.toml says anonymous = true")


def harness_arguments(parser: argparse.ArgumentParser) -> None:
    # Here, not at the top: `review triage` (the same module) never loads the scenarios.
    from review.harness.scenarios import SCENARIOS

    parser.add_argument("submission", type=Path)
    parser.add_argument("--commit", default="HEAD", help="commit id to run (default HEAD)")
    parser.add_argument(
        "--scenario",
        action="append",
        choices=[s.name for s in SCENARIOS],
        default=None,
        metavar="NAME",
        help=f"run only this scenario (repeatable): {', '.join(s.name for s in SCENARIOS)}",
    )
    parser.add_argument("--json", action="store_true", help="one JSON document (fields in docs/formats.md)")
    parser.add_argument("--check", action="store_true", help="exit 1 unless every verdict is ok")
    parser.add_argument(
        "--log", action="store_true", help="stream the gateway log to stdout as it happens (to stderr with --json)"
    )
    parser.add_argument("--unsafe-no-sandbox", action="store_true", help=UNSAFE_HELP)
    parser.add_argument(
        "--timeline",
        action="store_true",
        help="every commit: the suite and the candidate's own tests (red/green); bubblewrap only for the tests",
    )


def export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cohort", type=Path)
    parser.add_argument("--format", choices=["csv", "json", "md"], default="csv")
    blind = parser.add_mutually_exclusive_group()
    blind.add_argument(
        "--anonymous", action="store_true", help="candidate-blind: submissions as candidate-N, names masked in comments"
    )
    blind.add_argument("--reveal", action="store_true", help="names shown although cohort.toml says anonymous = true")


def run_triage(args: argparse.Namespace) -> int:
    for flag, shown in (("spans", "spans"), ("files", "per-file figures")):
        if getattr(args, flag) and not args.json:
            print(f"review: --{flag} goes with --json (the table shows no {shown})", file=sys.stderr)
            return 2
    _start_copies(args.cohort)
    from review.cli.progress import Progress
    from review.services import cohort

    paths = cohort.list_submissions(args.cohort)
    blind = None
    if args.anonymous or (cohort.cohort_blind(args.cohort) and not args.reveal):
        blind = cohort.blind_masker(args.cohort)
    # Counts and rate on a terminal's stderr while rows are read; nothing in a pipe or beside --json.
    progress = Progress("triage", len(paths), shown=not args.json)
    names = [path.name for path in paths]
    if blind is not None:
        from review.core import anonymity

        # In the candidates' numbers: name order would give the names' alphabetical order away.
        names.sort(key=lambda name: anonymity.alias_number(blind[1].get(name, "")))
    ordered = _in_name_order(cohort.load_rows(paths, spans=args.spans), names, progress)
    if args.json and not args.harness:
        # Streamed: each row is written as soon as the rows before it in name order are.
        _write_json(args.cohort, (_blinded(row, blind, args.files) for row in ordered))
        return 0
    rows = list(ordered)
    progress.done()
    if args.harness:
        import asyncio

        asyncio.run(cohort.fill_harness(rows))
    if not args.json:
        _fill_similar(args.cohort, rows, blind)
    rows = [_blinded(row, blind, args.files or not args.json) for row in rows]
    if args.json:
        _write_json(args.cohort, iter(rows))
        return 0
    if not rows:
        # A header over nothing reads as a failure to load; say what was found.
        print(safe_line(cohort.empty_cohort_text(args.cohort), 400))
        return 0
    print_table(rows)
    return 0


def _fill_similar(cohort_dir: Path, rows: list, blind) -> None:
    """Each row's top pair (`review similar`), as the console's Similar column has it; the other's
    name masked in a candidate-blind table."""
    from review.services import cohort, similarity

    try:
        comparison = similarity.build(cohort_dir).compare()
    except cohort.CohortError:
        return  # the cohort's own file cannot be read: the rows say why
    best = comparison.best()
    for row in rows:
        if row.name in best:
            other, share = best[row.name]
            if blind is not None:
                masker, aliases = blind
                other = aliases.get(other, masker.mask(other))
            row.similar = {"with": other, "share": share, "own": comparison.own[row.name]}


def _share(value: float | None) -> str:
    return f"{value:.0%}" if value is not None else "—"


def print_table(rows: list) -> None:
    """The rows, the facts the console's table shows within 80 columns: then the detail, which a
    terminal cuts (marked …) and a pipe keeps whole."""
    from review.core import triage
    from review.core.scenarios import HEADLESS_AGAIN
    from review.core.similarity import share_text

    header = (
        f"{'candidate':16} {'state':{triage.STATE_WIDTH}} {'key scope':13} {'runs':8} {'disclosure':10} "
        f"{'AI':>4} {'unkn':>4} {'sim':>4} detail"
    )
    # On a terminal each row keeps to one line, its end marked "…" when cut (--json has it whole);
    # into a pipe or a file, every row whole.
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    print(fit(header, max(40, width)) if width else header)
    for row in rows:
        similar = row.similar or {}
        detail = (
            row.problem
            or f"{row.commits} commits, assistants: {triage.assistants_text(row.assistants, row.attribution, 'none')}"
        )
        if similar:
            detail += f"; similar: {share_text(similar['share'], similar['own'])} are in {similar['with']}"
        if row.hung_under_load:
            detail += f"; {row.hung_under_load}; {HEADLESS_AGAIN}"
        runs = triage.marks(row.scenarios) if row.scenarios else "—"
        state = triage.state_word(row.state)
        line = safe_line(
            f"{row.name:16} {state:{triage.STATE_WIDTH}} {row.key_scope or '—':13} {runs:8} {row.disclosure or '—':10} "
            f"{_share(row.ai_share):>4} {_share(row.unknown_share):>4} {_share(similar.get('share')):>4} {detail}",
            400,
        )
        print(fit(line, max(40, width)) if width else line)
    print("runs: " + triage.legend() + f" ({triage.OK} ok, {triage.BAD} not ok, {triage.NOT_RUN} not run)")
    print("AI, unkn: the share of the lines written here by an AI, by no source known")
    print("sim: the largest share of its own code another submission holds (review similar)")


def _start_copies(folder: Path) -> None:
    """A new cohort's first copies begin before the rest of the program loads: git copies while
    Python imports. Only plain folders; the cohort's own listing decides what is a submission."""
    try:
        folders = sorted(
            entry
            for entry in folder.iterdir()
            if not entry.name.startswith(".") and entry.is_dir() and not entry.is_symlink()
        )
    except OSError:
        return  # the cohort's listing says why
    from review import gitsafe

    # A head start for the first rows, not the whole cohort (a warm one is not walked twice): the
    # rows' own threads take the rest.
    gitsafe.start_copies(folders[:4], at_most=2)


def _in_name_order(rows, names: list[str], progress):
    """Rows as they complete (warm ones first, cold ones as their threads finish), yielded in `names`
    order: a row waits only for the rows before it."""
    waiting: dict[str, object] = {}
    position = 0
    for row in rows:
        progress.step()
        waiting[row.name] = row
        while position < len(names) and names[position] in waiting:
            yield waiting.pop(names[position])
            position += 1
    yield from waiting.values()


def _blinded(row, blind, files: bool = True):
    from review.services import cohort

    if blind is not None:
        cohort.blind_row(row, *blind)
    if not files:
        cohort.summarise_files(row)
    return row


def _write_json(cohort_dir: Path, rows) -> None:
    """One submission per line, each written by the C encoder (an indented dump is pure Python, and
    was most of a warm triage's time on a large submission)."""
    sys.stdout.write(f'{{\n  "cohort": {json.dumps(str(cohort_dir.resolve()))},\n  "submissions": [')
    separator = "\n"
    for row in rows:
        sys.stdout.write(f"{separator}    {json.dumps(row.to_json())}")
        separator = ",\n"
    sys.stdout.write("\n  ]\n}\n")


def run_harness(args: argparse.Namespace) -> int:
    import asyncio

    from review import gitsafe
    from review.harness import runner, sandbox

    # The folder's name is the candidate's (an unpacked archive's): shown, never sent to the terminal raw.
    named = safe_line(str(args.submission))
    if args.submission.is_symlink():
        # As triage: a link would run another folder's code under the name typed.
        print(f"review: {named}: a symbolic link; not followed (name the folder it points to)", file=sys.stderr)
        return 2
    if not args.submission.is_dir():
        why = "not a folder" if args.submission.exists() else "no such folder"
        print(f"review: {named}: {why}", file=sys.stderr)
        return 2
    try:
        repo = gitsafe.open_submission(args.submission)
        commit = repo.resolve(args.commit)
        info = sandbox.detect()
        sandbox.require_runnable(info)
    except (gitsafe.GitSafeError, sandbox.SandboxError) as error:
        print(f"review: {named}: {safe_line(str(error))}", file=sys.stderr)
        return 2

    # The log goes where `review harness SUB --log | less` reads it; beside --json's document, to stderr.
    log_to = sys.stderr if args.json else sys.stdout

    def listener(event: runner.HarnessEvent) -> None:
        if args.log and event.text and not pipes.gone():
            try:
                print(event.text, file=log_to, flush=True)
            except BrokenPipeError:
                # The reader left (`| head`): the run still ends cleanly, its processes killed.
                pipes.reader_gone()

    if args.timeline:
        return _timeline(repo, info, listener, args.json)
    try:
        suite = asyncio.run(runner.run_suite(repo, commit, args.scenario, listener, info))
    # a full disk, a cache that cannot be written: said, exit 2.
    except sandbox.SandboxError as error:
        print(f"review: not run: {error}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(suite.to_json(), sys.stdout, indent=2)
        print()
    else:
        environment = suite.environment
        lines = wrapped(f"{suite.submission} @ {commit[:12]}")
        lines += wrapped(
            f"sandbox {environment.get('sandbox', suite.sandbox)} · node {suite.node} · "
            f"gateway {environment.get('gateway', '?')}",
            "  ",
            "    ",
        )
        for result in suite.scenarios:
            waits = f"waits {', '.join(f'{g:.0f}' for g in result.gaps_ms)} ms" if result.gaps_ms else "no waits"
            lines += wrapped(f"{result.name:14} {result.verdict}", "  ", "    ")
            lines += wrapped(
                f"requests seen {result.requests} · keys {result.distinct_keys} · charges created "
                f"{result.charges_created} · {waits}",
                "    ",
                "      ",
            )
            lines += wrapped("; ".join(result.reasons), "    ", "      ")
        print("\n".join(lines))
        if suite.sandbox == "reduced":
            print("  sandbox: reduced (bubblewrap not available): Node's permission flags only", file=sys.stderr)
    if args.check and any(s.verdict != "ok" for s in suite.scenarios):
        return 1
    return 0


def _timeline(repo, info, listener, as_json: bool) -> int:
    import asyncio

    from review.harness import timeline

    commits = [c.sha for c in repo.commits()]
    shown = 0

    def show(entry: timeline.Entry) -> None:
        nonlocal shown
        shown += 1
        if not as_json:
            print("\n".join(timeline.describe(entry, shown, len(commits))), flush=True)

    entries = asyncio.run(timeline.run_timeline(repo, commits, show, listener, info))
    if as_json:
        json.dump(
            {
                "submission": repo.source.name,
                "sandbox": info.kind,
                "commits": [
                    {
                        "commit": e.commit,
                        "same_code_as": e.same_code_as,
                        "problem": e.problem,
                        "suite": e.suite.to_json() if e.suite else None,
                        "tests": e.tests.to_json() if e.tests else None,
                    }
                    for e in entries
                ],
            },
            sys.stdout,
            indent=2,
        )
        print()
    return 0


def run_export(args: argparse.Namespace) -> int:
    from review.core import rubric
    from review.services import cohort, export

    try:
        blind = args.anonymous or (cohort.cohort_blind(args.cohort) and not args.reveal)
        sys.stdout.write(export.render(args.cohort, args.format, anonymous=blind))
    except (rubric.RubricError, cohort.CohortError) as error:
        print(f"review: {error}", file=sys.stderr)
        return 2
    return 0
