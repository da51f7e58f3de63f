"""Command line: ``review COHORT`` opens the console; every command is listed in
``review.cli.registry``, one module per group of them.

Exit codes: 0 ok, 1 the thing reviewed failed (with --check), 2 usage or input error, 141 the reader of
stdout left early (`| head`), as git.
"""

from __future__ import annotations

import os
import signal
import sys

from review.cli import pipes, registry
from review.support import gc


def main(argv: list[str] | None = None) -> int:
    pipes.reset()
    try:
        code = _main(argv)
        # What is still buffered fails here, not at the interpreter's exit, when its reader has gone.
        sys.stdout.flush()
    except BrokenPipeError:
        return pipes.reader_gone()
    if argv is None:
        gc.before_exit()
    return pipes.READER_GONE if pipes.gone() else code


def _main(argv: list[str] | None) -> int:
    # The `review` command itself, not a caller in the same process.
    as_program = argv is None
    # Triage of a large history allocates millions of objects too.
    gc.tune()
    argv = list(sys.argv[1:] if argv is None else argv)
    words = registry.normalise(argv)
    # Only the command typed is declared (its module imported): start-up stays small.
    parser = registry.build_parser(words[0] if words and words[0] in registry.BY_NAME else None)
    typo = registry.mistyped_command(argv, words) or registry.misplaced_option(argv, words)
    if typo:
        parser.error(typo)
    args, extra = parser.parse_known_args(words)
    if extra:
        # Said by the command's own parser: its usage line, not review's.
        registry.command_parser(parser, args.command).error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command is None:
        if argv:
            parser.error("a cohort folder or a command is needed")
        parser.print_help()
        return 2
    if getattr(args, "unsafe_no_sandbox", False):
        from review.harness import sandbox

        # This process and the runs it starts: said in every result.
        os.environ[sandbox.UNSAFE_ENV] = "1"
        sandbox.detect.cache_clear()
    command = registry.BY_NAME[args.command]
    received: list[int] = []
    previous = {} if command.opens_console else _stop_on_signals(received)
    try:
        code = command.run(args)
        if as_program and not command.opens_console and _process_is_ours():
            _end_now(code)
        return code
    except Exception as error:
        if not _is_input_error(error):
            raise
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


def _process_is_ours() -> bool:
    """Whether this process is the `review` program (`python -m review`, or the installed script), not
    a tool running it inside its own process to measure it (the benchmarks), which must get the
    command's end back."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return spec is None or spec.name == "review.__main__"


def _end_now(code: int) -> None:
    """The command is done and nothing follows but freeing its heap object by object (10-25 ms after
    a large triage): its output flushed, the process ends here, as mypy's own command line does. A
    reader gone is met in the flush, as on the way out of `main`."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(pipes.READER_GONE if pipes.gone() else code)


def _is_input_error(error: Exception) -> bool:
    """A cohort or sample folder that cannot be used: said in one line, exit 2. The services that
    raise these are imported only by the commands that use them (start-up stays small); one that was
    never imported raised nothing."""
    cohort, samples = sys.modules.get("review.services.cohort"), sys.modules.get("review.services.samples")
    return (cohort is not None and isinstance(error, cohort.CohortError)) or (
        samples is not None and isinstance(error, samples.SampleError)
    )


def _stop_on_signals(received: list[int]) -> dict:
    """SIGTERM and SIGHUP (an SSH drop) end a command the way ctrl+c does: cleanly, with one line."""

    def stop(number: int, _frame) -> None:
        received.append(number)
        raise KeyboardInterrupt

    previous = {}
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        previous[number] = signal.signal(number, stop)
    return previous
