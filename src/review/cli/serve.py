"""``review serve COHORT``: the console in a browser tab, one console process per tab, for the reviewer
who has a browser and no terminal on this machine."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from review.cli import console
from review.services import cohort
from review.services.serve.address import DEFAULT_HOST, DEFAULT_PORT, ServeError, is_loopback, listen

DEFAULT_SESSIONS = 4


def serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Serves the console to browsers: prints one URL (with a random token: every request without it is "
        "refused) and runs a console per tab that opens it. The page asks for the reviewer's name "
        "(?reviewer=NAME in the URL, or --reviewer here, answers for it); the console options below are "
        "given to every tab's console. Ctrl-C stops the server and every console."
    )
    parser.epilog = "From a laptop: ssh -L 8000:127.0.0.1:8000 THIS-MACHINE, then open the printed URL there."
    parser.add_argument("cohort", type=Path)
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"the address to listen on (default {DEFAULT_HOST}: this machine only; from a laptop, "
        "reach it through ssh -L)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"the port to listen on (default {DEFAULT_PORT}; 0: any free port)",
    )
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=DEFAULT_SESSIONS,
        metavar="N",
        help=f"consoles open at once, each a process on this machine (default {DEFAULT_SESSIONS}); "
        "a page past it says so",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --host be an address other than loopback: anyone who reaches it and has the "
        "URL gets a console, over unencrypted HTTP",
    )
    console.console_arguments(parser)


def console_command(cohort_dir: Path, args: argparse.Namespace):
    """The command line of one tab's console: `review open COHORT` with the server's console options,
    and the reviewers the page named (as --reviewer=NAME, so a name starting with '-' stays a name)."""
    passed: list[str] = []
    for flag, keywords in console.CONSOLE_OPTIONS:
        if flag == "--reviewer":
            continue
        value = getattr(args, flag[2:].replace("-", "_"))
        if keywords.get("action") == "store_true":
            passed += [flag] if value else []
        else:
            passed.append(f"{flag}={value}")
    base = [sys.executable, "-m", "review", "open", str(cohort_dir.resolve()), *passed]

    def command(reviewers: tuple[str, ...]) -> list[str]:
        return [*base, *(f"--reviewer={name}" for name in reviewers)]

    return command


def run_serve(args: argparse.Namespace) -> int:
    problem = _check_arguments(args)
    if problem:
        print(f"review: {problem}", file=sys.stderr)
        return 2
    if console.check_options(args.cohort, args) is None:
        return 2
    submissions = len(cohort.list_submissions(args.cohort))
    if not is_loopback(args.host):
        print(
            f"review serve: WARNING: listening on {args.host}, not loopback: anyone who reaches this address "
            "and has the URL gets a console on this machine, over unencrypted HTTP. From a laptop, "
            "`ssh -L PORT:127.0.0.1:PORT` to this machine is the safer way.",
            file=sys.stderr,
        )
    try:
        listening = listen(args.host, args.port)
    except ServeError as error:
        print(f"review: {error}", file=sys.stderr)
        return 2
    # textual-serve, aiohttp and jinja2 are loaded by this command alone.
    from review.services.serve.server import ConsoleServer, ServeSettings

    settings = ServeSettings(
        args.cohort,
        console_command(args.cohort, args),
        console.check_reviewers,
        tuple(args.reviewer),
        args.max_sessions,
    )
    server = ConsoleServer(settings)

    def ready(url: str) -> None:
        print(url, flush=True)
        who = ", ".join(args.reviewer) if args.reviewer else "the name each page asks for"
        print(
            f"review serve: {args.cohort} ({submissions} submissions), up to {args.max_sessions} consoles at "
            f"once, as {who}. Open the URL above in a browser; Ctrl-C stops the server and every console.",
            file=sys.stderr,
            flush=True,
        )

    with listening:
        asyncio.run(server.run(listening, ready))
    print("review serve: stopped; every console it started has ended", file=sys.stderr)
    return 0


def _check_arguments(args: argparse.Namespace) -> str | None:
    if not 0 <= args.port <= 65535:
        return f"--port {args.port}: a port is 0 to 65535 (0: any free port)"
    if args.max_sessions < 1:
        return f"--max-sessions {args.max_sessions}: at least 1"
    if not is_loopback(args.host) and not args.allow_remote:
        return (
            f"--host {args.host} is not this machine's loopback: anyone who reaches it with the URL would get "
            "a console that runs candidates' code here. From a laptop, use "
            f"`ssh -L {args.port}:127.0.0.1:{args.port} THIS-MACHINE` and the printed URL; to listen there "
            "anyway, add --allow-remote"
        )
    return None
