"""The command line as a new user meets it: options in any order, help that lists what the docs
list, commands that behave in a pipe, revisions as git takes them, and a help text per benchmark."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import git, make_repo, settle
from review.cli import console, dev, main, registry

ROOT = Path(__file__).resolve().parents[2]


def parsed(*argv: str) -> argparse.Namespace:
    return registry.build_parser().parse_args(registry.normalise(list(argv)))


def review(*argv: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "review", *argv], capture_output=True, text=True, **kw)


# ---------------------------------------------------------------- options in any order


@pytest.mark.parametrize(
    "argv",
    [
        ["--theme", "review-light", "COHORT"],
        ["--theme=review-light", "COHORT"],
        ["COHORT", "--theme", "review-light"],
        ["--reviewer", "bob", "--no-harness", "COHORT", "--blind"],
        ["--no-harness", "--reviewer", "bob", "COHORT"],
    ],
)
def test_console_options_before_or_after_the_folder_open_the_console(argv):
    args = parsed(*argv)
    assert args.command == "open" and args.cohort == Path("COHORT")
    if "bob" in argv:
        assert args.reviewer == ["bob"] and args.no_harness
    else:
        assert args.theme == "review-light"


def test_console_options_before_a_command_go_to_it():
    args = parsed("--theme", "review-light", "--anonymous", "demo", "--build-only")
    assert args.command == "demo" and args.theme == "review-light" and args.anonymous and args.build_only
    # A folder named like an option value is still the folder.
    args = parsed("--reviewer", "triage", "cohort")
    assert args.command == "open" and args.reviewer == ["triage"] and args.cohort == Path("cohort")


def test_options_before_the_folder_reach_the_console(tmp_path):
    """What once exited 2 with "invalid choice: 'bob'" now gets to the console's own checks."""
    result = review("--theme", "nope", str(tmp_path))
    assert result.returncode == 2 and "unknown theme 'nope'" in result.stderr
    assert "invalid choice" not in result.stderr
    result = review("--reviewer", "x" * 70, "--no-harness", str(tmp_path))
    assert result.returncode == 2 and "at most 64 characters" in result.stderr


def test_a_console_option_before_a_command_that_does_not_take_it_is_named(tmp_path):
    result = review("--reviewer", "bob", "triage", str(tmp_path))
    assert result.returncode == 2
    assert (
        "--reviewer is an option of the console" in result.stderr
        and "`review triage` does not take it" in result.stderr
    )
    # Never the folder read as the option's value.
    assert str(tmp_path) not in result.stderr


async def test_the_console_opens_with_options_given_before_the_folder(sample_cohort):
    args = parsed("--theme", "review-light", "--reviewer", "bob", "--no-harness", str(sample_cohort))
    app = console.make_app(args.cohort, args)
    assert app is not None
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert app.theme == "review-light" and app.reviewers == ("bob",) and not app.run_harness
        assert app.screen.query("DataTable")


def test_options_alone_say_what_is_missing():
    result = review("--theme", "review-light")
    assert result.returncode == 2 and "a cohort folder or a command is needed" in result.stderr


def test_top_level_help_lists_the_console_options_and_every_command():
    text = review("--help").stdout
    for flag, _ in console.CONSOLE_OPTIONS:
        assert flag in text
    for command in registry.COMMANDS:
        assert re.search(rf"^\s+{re.escape(command.name)}\s", text, re.M), command.name


@pytest.mark.parametrize("command", [None, *(c.name for c in registry.COMMANDS)])
def test_every_help_fits_80_columns(command, monkeypatch):
    """Read in an 80-column terminal over SSH: no line of any command's help runs past it."""
    monkeypatch.setenv("COLUMNS", "80")
    text = review(*([command] if command else []), "--help").stdout
    assert text and all(len(line) <= 80 for line in text.splitlines()), text


def _readme_option_table() -> dict[str, str]:
    """The console options as docs/usage.md lists them (the README links there)."""
    readme = (ROOT / "docs" / "usage.md").read_text()
    block = readme[readme.index("| console option |") :]
    block = block[: block.index("\n\n")]
    rows = {}
    for line in block.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        rows[cells[0].strip("`")] = " ".join(cells[1].split())
    return rows


def test_the_readme_option_table_matches_review_help():
    parser = registry.build_parser()
    group = next(g for g in parser._action_groups if g.title and g.title.startswith("console options"))
    shown = {}
    for action in group._group_actions:
        name = action.option_strings[0] + (f" {action.metavar}" if action.metavar else "")
        shown[name] = " ".join((action.help or "").split())
    assert _readme_option_table() == shown
    # And the help printed is built from that same table.
    # Joined as printed, a name wrapped at its hyphen ("review-high-" / "contrast") made whole again.
    text = re.sub(r"(?<=\w)- (?=\w)", "-", " ".join(review("--help").stdout.split()))
    for name, help_text in shown.items():
        assert f"{name} {help_text}" in text


def test_the_readme_and_the_usage_synopsis_name_every_command():
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("## Commands") : readme.index("## Documentation")]
    usage = (ROOT / "docs" / "usage.md").read_text()
    synopsis = usage[usage.index("## Synopsis") : usage.index("## Console options")]
    for command in registry.COMMANDS:
        if command.name != "open":
            assert f"review {command.name}" in table, command.name
            assert f"review {command.name}" in synopsis, command.name


# ---------------------------------------------------------------- pipes


def _with_closed_reader(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `review ARGV` with stdout a pipe whose reader has already gone, as `| head -1` leaves it."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "review", *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=timeout,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "argv",
    [
        ["triage", "{cohort}"],
        ["triage", "{cohort}", "--json"],
        ["export", "{cohort}"],
        ["--help"],
        ["bench", "--help"],
        ["doctor"],
    ],
)
def test_every_command_exits_quietly_when_its_reader_leaves(sample_cohort_master, argv):
    argv = [word.replace("{cohort}", str(sample_cohort_master)) for word in argv]
    result = _with_closed_reader(*argv)
    assert "Traceback" not in result.stderr and "BrokenPipeError" not in result.stderr, result.stderr
    # The rest say the reader left, as git. Help may be either: argparse drops what it cannot write and
    # exits 0, or the write fails on the way out and says the reader left.
    assert result.returncode in ((0, 141) if "--help" in argv else (141,))


def test_triage_into_head_prints_its_first_line_quietly(sample_cohort_master):
    triage = subprocess.Popen(
        [sys.executable, "-m", "review", "triage", str(sample_cohort_master)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert triage.stdout is not None
    head = subprocess.run(["head", "-1"], stdin=triage.stdout, capture_output=True, text=True)
    triage.stdout.close()
    _, err = triage.communicate(timeout=120)
    assert head.stdout.startswith("candidate") and b"Traceback" not in err


@pytest.mark.sandbox
def test_triage_on_a_terminal_keeps_each_row_to_one_line_and_marks_a_cut(sample_cohort_master):
    import pty

    controller, terminal = pty.openpty()
    env = {**os.environ, "COLUMNS": "80", "LINES": "24"}
    with subprocess.Popen(
        [sys.executable, "-m", "review", "triage", str(sample_cohort_master)],
        stdout=terminal,
        stderr=subprocess.DEVNULL,
        env=env,
    ) as process:
        os.close(terminal)
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
    os.close(controller)
    rows = b"".join(chunks).decode().replace("\r", "").splitlines()
    assert rows[0].startswith("candidate") and len(rows) > 3
    assert all(len(row) <= 80 for row in rows)
    assert any(row.endswith("…") for row in rows)
    # Into a pipe, every row whole.
    piped = review("triage", str(sample_cohort_master), env=env).stdout.splitlines()
    assert any(len(row) > 80 for row in piped) and not any(row.endswith("…") for row in piped)


def test_harness_log_goes_to_stdout_and_quietly_into_a_closed_pipe(tmp_path, isolated_dirs):
    from helpers import submission

    submission(tmp_path / "sub", {"checkout.mjs": "export async function chargeWithRetry() {}\n"})
    result = review("harness", str(tmp_path / "sub"), "--scenario", "happy", "--log")
    assert "happy: start" in result.stdout and "happy: start" not in result.stderr
    # With --json the document owns stdout: the log goes to stderr.
    result = review("harness", str(tmp_path / "sub"), "--scenario", "happy", "--log", "--json")
    assert json.loads(result.stdout)["scenarios"][0]["name"] == "happy" and "happy: start" in result.stderr
    result = _with_closed_reader("harness", str(tmp_path / "sub"), "--scenario", "happy", "--log")
    assert "Traceback" not in result.stderr and result.returncode == 141, result.stderr


# ---------------------------------------------------------------- revisions


def _two_commits(folder: Path) -> tuple[str, str]:
    make_repo(folder, {"checkout.mjs": "export async function chargeWithRetry() { return 1 }\n"})
    first = git("rev-parse", "HEAD", cwd=folder).strip()
    git("branch", "first", cwd=folder)
    (folder / "checkout.mjs").write_text("export async function chargeWithRetry() { return 2 }\n")
    git("commit", "-qam", "second", cwd=folder)
    return first, git("rev-parse", "HEAD", cwd=folder).strip()


def test_any_revision_git_accepts_is_resolved_in_the_clone(tmp_path):
    from review import gitsafe

    first, second = _two_commits(tmp_path / "sub")
    repo = gitsafe.open_submission(tmp_path / "sub")
    assert repo.resolve("HEAD") == second
    assert repo.resolve("HEAD~1") == repo.resolve("HEAD^") == repo.resolve("first") == first
    assert repo.resolve(first[:7]) == repo.resolve(first[:7].upper()) == first
    with pytest.raises(gitsafe.GitSafeError, match="^no such revision: deadbeef$"):
        repo.resolve("deadbeef")
    with pytest.raises(gitsafe.GitSafeError, match="not a revision"):
        repo.resolve("--output=/tmp/x")
    with pytest.raises(gitsafe.GitSafeError, match="not a revision"):
        repo.resolve("HEAD\n~1")


def test_a_bad_revision_is_named_on_the_command_line(tmp_path, capsys):
    _two_commits(tmp_path / "sub")
    assert main(["harness", str(tmp_path / "sub"), "--commit", "deadbeef"]) == 2
    err = capsys.readouterr().err
    assert "no such revision: deadbeef" in err and "git --git-dir" not in err


def test_harness_refuses_a_linked_submission_as_triage_does(tmp_path, capsys):
    """A submission folder that is a symbolic link (to another candidate's folder) is refused by
    triage; `review harness` on it refuses too, rather than running the other candidate's code
    under the name typed."""
    _two_commits(tmp_path / "ada")
    (tmp_path / "bob").symlink_to(tmp_path / "ada")
    assert main(["harness", str(tmp_path / "bob"), "--scenario", "happy"]) == 2
    assert "a symbolic link" in capsys.readouterr().err


def test_harness_names_a_hostile_folder_without_its_escapes(tmp_path, capsys):
    folder = tmp_path / "eve\x1b]52;c;cGF3bmVk\x07\x1b[2J"
    folder.mkdir()
    assert main(["harness", str(folder), "--scenario", "happy"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "not a git repository" in err, repr(err)


@pytest.mark.sandbox
def test_harness_runs_the_commit_head_tilde_one_names(tmp_path, isolated_dirs, capsys):
    first, _ = _two_commits(tmp_path / "sub")
    assert main(["harness", str(tmp_path / "sub"), "--commit", "HEAD~1", "--scenario", "happy", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["commit"] == first


# ---------------------------------------------------------------- benchmarks


def _bench_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = registry.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    bench = commands.choices["bench"]
    benchmarks = next(a for a in bench._actions if isinstance(a, argparse._SubParsersAction))
    return dict(benchmarks.choices)


def test_each_benchmark_is_its_own_subcommand_with_full_help():
    parsers = _bench_parsers()
    assert set(parsers) == {b.name for b in dev.BENCHMARKS}
    descriptions = set()
    for name, parser in parsers.items():
        assert parser.description and parser.description.endswith("."), name
        descriptions.add(parser.description)
        for action in parser._actions:
            if action.dest == "help":
                continue
            assert action.help and len(action.help.split()) >= 4, (name, action.dest)
            # A help text ends where its sentence does, not mid-word or on a colon.
            assert not action.help.rstrip().endswith((":", "'s", ",")), (name, action.dest)
    assert len(descriptions) == len(parsers)


def test_bench_options_belong_to_their_benchmark():
    assert parsed("bench", "repo", "--commits", "60", "--json").commits == 60
    with pytest.raises(SystemExit):
        parsed("bench", "triage", "--commits", "60")
    result = review("bench", "triage", "--help")
    assert "--submissions N" in result.stdout and "--commits" not in result.stdout
    assert "Generates a cohort" in result.stdout


def test_each_command_help_starts_with_its_own_usage_line(capsys):
    for words in (["triage"], ["demo"], ["export"], ["bench", "triage"]):
        try:
            main([*words, "--help"])
        except SystemExit as end:
            assert end.code == 0
        first = capsys.readouterr().out.splitlines()[0]
        assert first.startswith(f"usage: review {' '.join(words)} ["), first


def test_triage_shows_progress_on_a_terminal_and_nowhere_else(sample_cohort_master, tmp_path):
    import pty

    cache = {"REVIEW_CACHE_DIR": str(tmp_path / "cache")}
    main_fd, terminal = pty.openpty()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "review", "triage", str(sample_cohort_master)],
            stdout=subprocess.PIPE,
            stderr=terminal,
            env={**os.environ, **cache},
            timeout=300,
        )
        os.close(terminal)
        seen = b""
        while True:
            try:
                chunk = os.read(main_fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(main_fd)
    assert result.returncode == 0
    count = len([p for p in sample_cohort_master.iterdir() if p.is_dir()])
    # Counts and rate, then erased: the table on stdout is untouched by it.
    assert f"triage: {count}/{count} submissions".encode() in seen and seen.endswith(b"\r\x1b[K")
    assert b"triage:" not in result.stdout and result.stdout.startswith(b"candidate")
    # In a pipe (and with --json anywhere) not a byte of it.
    piped = review("triage", str(sample_cohort_master), env={**os.environ, **cache})
    assert piped.returncode == 0 and piped.stderr == ""


def test_a_mistyped_command_or_option_is_named_as_such(tmp_path, capsys):
    cohort = tmp_path / "cohort"
    make_repo(cohort / "ada", {"checkout.mjs": "x\n"})
    # Read as a cohort folder, `trige` would end in "unrecognized arguments: COHORT".
    result = review("trige", str(cohort))
    assert result.returncode == 2 and "'trige' is neither a command nor a folder" in result.stderr
    assert "review triage" in result.stderr
    # An option the command does not know: said with that command's usage, not review's.
    result = review("triage", "--bogus", str(cohort))
    assert result.returncode == 2 and result.stderr.startswith("usage: review triage ")
    assert "review triage: error: unrecognized arguments: --bogus" in result.stderr
    # Two options that undo each other.
    result = review("triage", str(cohort), "--anonymous", "--reveal")
    assert result.returncode == 2 and "not allowed with argument --anonymous" in result.stderr
    # One repository instead of the cohort that holds it.
    assert main(["triage", str(cohort / "ada")]) == 0
    assert "is itself a git repository: its parent folder may be the cohort" in capsys.readouterr().out


def test_copies_begun_before_the_program_loads_end_in_the_same_rows(tmp_path, isolated_dirs, monkeypatch):
    """`review triage` begins the first submissions' copies before it loads the rest of itself: a
    broken folder among them still gets its own reason, the rows are those an in-process triage with
    no early copy gives, and no copy is left half made."""
    cohort = tmp_path / "cohort"
    git("init", "-q", str(cohort / "a-empty"), cwd=tmp_path)
    (cohort / "b-plain").mkdir(parents=True)
    (cohort / "b-plain" / "checkout.mjs").write_text("export {}\n")
    make_repo(cohort / "c-good", {"checkout.mjs": "export const x = 1;\n"})
    done = review("triage", str(cohort), "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: (row["state"], row["problem"], row["head"]) for row in json.loads(done.stdout)["submissions"]}
    monkeypatch.setenv("REVIEW_CACHE_DIR", str(tmp_path / "other-cache"))
    from review.services import cohort as cohorts

    expected = {row.name: (row.state, row.problem, row.head) for row in cohorts.triage(cohort)}
    assert rows == expected
    assert rows["c-good"][1] is None and rows["c-good"][2]
    assert rows["a-empty"][1] and rows["b-plain"][1]
    assert not list((isolated_dirs / "cache" / "repos").glob(".clone-*"))


def test_triage_columns_align_in_every_state_and_say_the_consoles_words(sample_cohort):
    """Every state a row can be in (new, in review, scored, stale, unreadable): each row's columns
    start where the header's do, and a draft reads "in review" and a final review at HEAD "final", the
    words the console shows."""
    from review import gitsafe
    from review.core import triage
    from review.services import store

    def save(name: str, state: str, commit: str | None = None) -> None:
        head = gitsafe.open_submission(sample_cohort / name).head
        review = store.Review(reviewers=["ana"], commit=commit or head, state=state, rubric_version="article-v1")
        store.save(sample_cohort / name, review)

    save("ben-larsen", "draft")
    save("chen-wei", "final")
    save("dev-patel", "final", commit="c" * 40)
    (sample_cohort / "zz-broken").mkdir()
    (sample_cohort / "zz-broken" / "checkout.mjs").write_text("export {}\n")
    result = subprocess.run(
        [sys.executable, "-m", "review", "triage", str(sample_cohort)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    header = lines[0]
    rows = {line.split()[0]: line for line in lines[1:] if line.split() and line.split()[0] in _names(sample_cohort)}
    states = {name: line[17 : 17 + triage.STATE_WIDTH].strip() for name, line in rows.items()}
    assert {"new", "in review", "final", "stale", "unreadable"} <= set(states.values()), states
    assert states["ben-larsen"] == "in review" and states["chen-wei"] == "final" and states["zz-broken"] == "unreadable"
    for column in ("state", "key scope", "runs", "disclosure"):
        start = header.index(column)
        for name, line in rows.items():
            assert line[start - 1] == " " and line[start] != " ", (column, name, line)
    assert triage.state_word("draft") == "in review"


def _names(cohort) -> set[str]:
    return {path.name for path in cohort.iterdir() if not path.name.startswith(("_", "."))}
