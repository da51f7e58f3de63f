"""Triage rows for good, empty, broken and hostile folders; `review triage --json`."""

import json
import subprocess
import sys

from helpers import git, make_repo, seal_file
from review.cli import main
from review.services import cohort


def test_sample_rows(sample_cohort):
    rows = {r.name: r for r in cohort.triage(sample_cohort)}
    assert rows["ada-okafor"].assistants == ["Claude Code"]
    assert rows["dev-patel"].assistants == ["Aider"]
    assert rows["hal-kim"].assistants == ["Aider"]  # "Assisted-by: Priya Raman" is a person
    assert rows["chen-wei"].commits == 5
    assert all(r.state == "new" and r.problem is None and r.complete for r in rows.values())


def test_bad_folders_are_listed_with_their_reason(tmp_path):
    make_repo(tmp_path / "good", {"checkout.mjs": "x\n"})
    (tmp_path / "plain-folder").mkdir()
    (tmp_path / "plain-folder" / "checkout.mjs").write_text("x\n")
    empty = tmp_path / "empty-repo"
    empty.mkdir()
    git("init", "-q", cwd=empty)
    broken = make_repo(tmp_path / "broken-head", {"a": "1\n"})
    (broken / ".git" / "HEAD").write_text("nonsense\n")
    (tmp_path / "worktree-link").mkdir()
    (tmp_path / "worktree-link" / ".git").write_text("gitdir: /etc\n")
    (tmp_path / "link").symlink_to(tmp_path / "good")
    (tmp_path / "stray-file.txt").write_text("not a submission")
    rows = {r.name: r for r in cohort.triage(tmp_path)}
    assert set(rows) == {"good", "plain-folder", "empty-repo", "broken-head", "worktree-link", "link"}
    assert rows["good"].problem is None and rows["good"].commits == 1
    assert rows["plain-folder"].problem == "not a git repository (no .git folder)"
    assert rows["empty-repo"].problem == "empty repository (no commits yet)"
    assert "HEAD cannot be read" in rows["broken-head"].problem
    assert "worktree" in rows["worktree-link"].problem
    assert "symbolic link" in rows["link"].problem
    assert all(rows[n].state == "unreadable" for n in rows if n != "good")


def test_a_submission_left_as_an_archive_in_the_cohort_is_a_row_saying_how_to_unpack_it(tmp_path):
    """A candidate's zip, tarball or bundle dropped into the cohort as it came: never silently
    missing from the table; a stray text file still is no submission."""
    import zipfile

    make_repo(tmp_path / "good", {"checkout.mjs": "x\n"})
    with zipfile.ZipFile(tmp_path / "alice.zip", "w") as archive:
        archive.writestr("take-home/checkout.mjs", "x\n")
    (tmp_path / "bob.tar.gz").write_bytes(b"\x1f\x8b")
    (tmp_path / "notes.txt").write_text("not a submission")
    rows = {r.name: r for r in cohort.triage(tmp_path)}
    assert set(rows) == {"good", "alice.zip", "bob.tar.gz"}
    for name in ("alice.zip", "bob.tar.gz"):
        assert rows[name].state == "unreadable"
        assert f"review import {tmp_path} {tmp_path / name}" in rows[name].problem, rows[name].problem


def test_a_shallow_clone_says_its_history_is_cut(tmp_path):
    """A candidate who handed in a `git clone --depth 1`: the older commits, and what they would say
    of who wrote which line, are not there, and the row says so instead of reading as a one-commit
    history."""
    source = make_repo(tmp_path / "source", {"checkout.mjs": "x\n"})
    for n in range(3):
        (source / "checkout.mjs").write_text(f"x{n}\n")
        git("commit", "-q", "-am", f"step {n}", cwd=source)
    cohort_dir = tmp_path / "cohort"
    cohort_dir.mkdir()
    git("clone", "-q", "--depth", "1", f"file://{source}", str(cohort_dir / "shallow"), cwd=tmp_path)
    row = cohort.triage(cohort_dir)[0]
    assert row.commits == 1 and row.problem is None
    assert any("shallow clone" in line and "older commits" in line for line in row.attribution["cut"]), row.attribution[
        "cut"
    ]


def test_review_state_from_score_files(sample_cohort):
    head = cohort.load_row(sample_cohort / "ben-larsen").head
    (sample_cohort / "ben-larsen.review.toml").write_text(
        f'schema = 1\n[[reviews]]\nreviewers = ["ana"]\nstate = "final"\ncommit = "{head}"\n'
    )
    (sample_cohort / "ada-okafor.review.toml").write_text(
        'schema = 1\n[[reviews]]\nreviewers = ["ben"]\nstate = "final"\ncommit = "' + "0" * 40 + '"\n'
    )
    (sample_cohort / "chen-wei.review.toml").write_text(
        f'schema = 1\n[[reviews]]\nreviewers = ["ana", "ben"]\nstate = "draft"\ncommit = "{head}"\n'
    )
    for name in ("ben-larsen", "ada-okafor", "chen-wei"):
        seal_file(sample_cohort / f"{name}.review.toml")
    (sample_cohort / "dev-patel.review.toml").write_text("this is [not toml")
    rows = {r.name: r for r in cohort.triage(sample_cohort)}
    assert rows["ben-larsen"].state == "scored" and rows["ben-larsen"].reviewers == ["ana"]
    assert rows["ada-okafor"].state == "stale"
    assert rows["chen-wei"].state == "in review" and rows["chen-wei"].reviewers == ["ana", "ben"]
    assert "is not valid TOML" in rows["dev-patel"].problem and rows["dev-patel"].state == "new"


def test_triage_json_has_the_documented_fields(sample_cohort, capsys):
    assert main(["triage", str(sample_cohort), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["cohort"] == str(sample_cohort.resolve())
    first = document["submissions"][0]
    assert list(first) == [
        "name",
        "path",
        "problem",
        "head",
        "commits",
        "last_commit",
        "assistants",
        "ai_share",
        "person_share",
        "unknown_share",
        "harness",
        "state",
        "reviewers",
        "complete",
        "attribution",
        "scenarios",
        "key_scope",
        "disclosure",
        "states",
        "agreement",
    ]
    ada = next(s for s in document["submissions"] if s["name"] == "ada-okafor")
    # The untouched draft: every added line of code is the assistant's (the note is prose, not counted).
    assert ada["attribution"]["tools"] == ["Claude Code"] and ada["ai_share"] == 1.0
    # Lean: counts, tools and conflicts; the per-file list and the spans only on request.
    assert set(ada["attribution"]) >= {"tools", "share", "conflicts", "unmapped", "file_counts", "cut", "added_lines"}
    assert "spans" not in ada["attribution"] and "files" not in ada["attribution"]
    assert ada["attribution"]["file_counts"] == {
        "files": 2,
        "counted": 1,
        "left_out": {"prose: the note, a README": 1},
    }
    assert main(["triage", str(sample_cohort), "--json", "--files"]) == 0
    listed = next(s for s in json.loads(capsys.readouterr().out)["submissions"] if s["name"] == "ada-okafor")
    counted = {f["path"]: f["counted"] for f in listed["attribution"]["files"]}
    assert counted == {"NOTE.md": False, "checkout.mjs": True}
    assert main(["triage", str(sample_cohort), "--files"]) == 2
    assert [s["name"] for s in document["submissions"]] == sorted(s["name"] for s in document["submissions"])
    # --spans, warm (the row cache answers) as cold: every span of the AI-written code.
    assert main(["triage", str(sample_cohort), "--json", "--spans"]) == 0
    full = next(s for s in json.loads(capsys.readouterr().out)["submissions"] if s["name"] == "ada-okafor")
    assert {(s["path"], s["tool"]) for s in full["attribution"]["spans"]} == {("checkout.mjs", "Claude Code")}
    assert {k: v for k, v in full["attribution"].items() if k != "spans"} == ada["attribution"]
    assert "file_counts" in full["attribution"]
    assert main(["triage", str(sample_cohort), "--spans"]) == 2


def test_triage_anonymous_shows_no_candidate_name_or_address(sample_cohort, capsys):
    from review.services import samples

    people = {
        person
        for series in samples.load_series()
        for spec in series.commits[1:]
        for person in (spec.author_name, spec.author_email)
    }
    names = {p.name for p in sample_cohort.iterdir() if p.is_dir()}
    assert main(["triage", str(sample_cohort), "--anonymous", "--json"]) == 0
    blind = capsys.readouterr().out
    assert main(["triage", str(sample_cohort), "--anonymous"]) == 0
    table = capsys.readouterr().out
    for text in (blind, table):
        # "Ada Okafor", "ada-okafor", "ada@…": none of them anywhere, the spans' evidence included.
        leaked = [
            who for who in names | people if who.lower() in text.lower() and "[bot]" not in who and "noreply" not in who
        ]
        assert leaked == []
    document = json.loads(blind)
    assert [s["name"] for s in document["submissions"]] == [f"candidate-{n}" for n in range(1, len(names) + 1)]
    # The assistants stay named: a tool is no candidate's identity.
    ada = next(s for s in document["submissions"] if s["head"] == cohort.load_row(sample_cohort / "ada-okafor").head)
    assert ada["assistants"] == ["Claude Code"] and ada["attribution"]["tools"] == ["Claude Code"]
    assert main(["triage", str(sample_cohort)]) == 0
    assert "ada-okafor" in capsys.readouterr().out


def test_triage_of_an_empty_cohort_says_so(tmp_path, capsys):
    assert main(["triage", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"no submissions in {tmp_path}") and "candidate" not in out.splitlines()[0][:9]


def test_cli_errors_exit_2_with_a_message(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "review", "triage", str(tmp_path / "nope")], capture_output=True, text=True
    )
    assert result.returncode == 2 and "no such folder" in result.stderr
    (tmp_path / "file").write_text("x")
    result = subprocess.run([sys.executable, "-m", "review", str(tmp_path / "file")], capture_output=True, text=True)
    assert result.returncode == 2 and "not a folder" in result.stderr


def test_hostile_names_are_sanitised_in_text_output(tmp_path, capsys):
    make_repo(tmp_path / "evil\x1b]0;PWNED\x07name", {"a": "1\n"})
    assert main(["triage", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "␛]0;PWNED" in out


def test_a_warm_triage_reads_no_history_and_a_new_commit_or_note_is_read_again(sample_cohort):
    """Rows are kept per (submission, HEAD, base, notes refs, code): a second console's triage analyses
    nothing; a new commit, or a git-ai note added, makes that row (and only it) be read again."""
    from review.services.session import Session

    def rows(session):
        return {row.name: row for row in session.rows(cohort.list_submissions(sample_cohort))}

    cold = Session(sample_cohort)
    first = rows(cold)
    assert sum(cold.analyses_made.values()) == 8
    warm = Session(sample_cohort)
    second = rows(warm)
    assert sum(warm.analyses_made.values()) == 0  # no clone, no git process: the rows came from the cache
    assert {n: r.to_json() for n, r in second.items()} == {n: r.to_json() for n, r in first.items()}

    ben = sample_cohort / "ben-larsen"
    git("checkout", "-q", "main", cwd=ben)
    (ben / "later.mjs").write_text("export const later = 1;\n")
    git("add", "-A", cwd=ben)
    git("commit", "-qm", "Later", cwd=ben)
    ada = sample_cohort / "ada-okafor"
    head = git("rev-parse", "HEAD", cwd=ada).strip()
    git("notes", "--ref=ai", "add", "-m", "checkout.mjs\n  h_aaaaaaaaaaaaaa 1\n---\n{}\n", head, cwd=ada)
    again = Session(sample_cohort)
    third = rows(again)
    assert {name for name, _ in again.analyses_made} == {"ben-larsen", "ada-okafor"}
    assert third["ben-larsen"].commits == first["ben-larsen"].commits + 1


def test_the_boundary_holds_when_the_cache_cannot_keep_the_traceback(tmp_path, monkeypatch):
    from review.services import failures

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("REVIEW_CACHE_DIR", str(blocker / "cache"))  # cannot be made, even by root
    reason = failures.record("triage row x", PermissionError(13, "Permission denied"))
    assert reason == "unreadable: PermissionError: [Errno 13] Permission denied"


def test_the_session_hands_the_ui_what_it_last_opened_only_at_that_head(sample_cohort):
    """What lets a submission screen paint its diff in its first frame: the analysis a worker opened,
    asked for without I/O, and only while it is at the HEAD triage showed."""
    from review.services.session import Session

    session = Session(sample_cohort)
    ben = sample_cohort / "ben-larsen"
    assert session.last_opened(ben, "0" * 40) is None
    opened = session.open(ben)
    assert session.last_opened(ben, opened.head) is opened
    assert session.last_opened(ben, "0" * 40) is None and session.last_opened(ben, None) is None
    git("checkout", "-q", "main", cwd=ben)
    (ben / "later.mjs").write_text("export const later = 1;\n")
    git("add", "-A", cwd=ben)
    git("commit", "-qm", "Later", cwd=ben)
    moved = session.open(ben)
    assert moved.head != opened.head and session.last_opened(ben, opened.head) is None
    for other in sorted(p for p in sample_cohort.iterdir() if p.is_dir() and p != ben)[: Session.OPENED_KEPT]:
        session.open(other)
    assert session.last_opened(ben, moved.head) is None  # only the last few are kept for the UI


def test_the_session_holds_analyses_up_to_its_bound_in_diff_lines_and_keeps_the_newest(sample_cohort):
    """A day's work does not pile up: past the bound the least recently used analysis goes (and is
    read again if asked), the one used last stays whatever its size, and one opened again is reused."""
    from review.services.session import Session, diff_lines

    folders = sorted(p for p in sample_cohort.iterdir() if p.is_dir())
    sizes = {folder.name: diff_lines(Session(sample_cohort).open(folder)) for folder in folders[:3]}
    first, second, third = folders[:3]
    # Room for the first two, not for the third as well.
    session = Session(sample_cohort, max_lines=sizes[first.name] + sizes[second.name])
    a, b = session.open(first), session.open(second)
    assert session.held() == (2, sizes[first.name] + sizes[second.name])
    assert session.open(first) is a and sum(session.analyses_made.values()) == 2
    c = session.open(third)
    # The least recently used (the second: the first was opened again since) let go, never the newest.
    assert session.last_opened(second, b.head) is None and session.last_opened(third, c.head) is c
    assert session.held()[1] <= session.max_lines or session.held()[0] == 1
    tiny = Session(sample_cohort, max_lines=1)
    tiny.open(first)
    big = tiny.open(second)
    assert tiny.held() == (1, sizes[second.name]) and tiny.last_opened(second, big.head) is big


def test_whoever_opens_a_submission_under_analysis_gets_its_diff_as_soon_as_it_is_parsed(sample_cohort):
    """The diff is handed out before the lines are attributed: to the thread computing it, and to a
    second one that asks meanwhile (it does not wait for the attribution); the analysis is made once."""
    import threading

    from review.services.session import Session

    session = Session(sample_cohort)
    ben = sample_cohort / "ben-larsen"
    seen: dict[str, object] = {}
    second_saw = threading.Event()
    results: dict[str, object] = {}

    def second(parsed) -> None:
        seen["second"] = parsed
        second_saw.set()

    def first(parsed) -> None:
        seen["first"] = parsed
        assert not any(line.tool for f in parsed.files for h in f.hunks for line in h.lines)  # not marked yet
        threading.Thread(target=lambda: results.setdefault("second", session.open(ben, on_diff=second))).start()
        assert second_saw.wait(10), "the second opener waited for the whole analysis"

    analysis = session.open(ben, on_diff=first)
    for _ in range(200):
        if "second" in results:
            break
        threading.Event().wait(0.05)
    assert seen["first"] is seen["second"] is analysis.diff is results["second"].diff
    assert any(line.tool for f in analysis.diff.files for h in f.hunks for line in h.lines)  # marked since
    assert sum(session.analyses_made.values()) == 1
    assert session.open(ben, on_diff=lambda _: seen.setdefault("third", True)) is analysis and "third" not in seen


def test_a_long_diff_is_handed_out_first_by_its_first_lines_then_whole(tmp_path):
    """What paints a 100k-line diff before it is all parsed: the first screen's worth, then the rest."""
    from review.services.session import Session

    folder = tmp_path / "cohort" / "long"
    make_repo(folder, {"README.md": "starter\n"})
    (folder / "big.mjs").write_text("".join(f"export const v{i} = {i};\n" for i in range(6000)))
    git("add", "-A", cwd=folder)
    git("commit", "-qm", "big\n\nCo-authored-by: Claude <noreply@anthropic.com>", cwd=folder)
    handed: list = []
    analysis = Session(tmp_path / "cohort").open(folder, on_diff=handed.append)
    assert [d.partial for d in handed] == [True, False] and handed[1] is analysis.diff
    first, whole = ([line.text for f in d.files for h in f.hunks for line in h.lines] for d in handed)
    assert 1000 < len(first) < len(whole) == 6000 and whole[: len(first)] == first
    assert analysis.diff.ai_added == 6000  # the whole one is the one marked


def test_a_sha256_repository_is_read_like_any_other(tmp_path):
    """`git init --object-format=sha256`: 64-digit ids through the safe clone, the diff from the
    starter, the attribution and the one-commit diff against SHA-256's own empty tree."""

    def sha256_repo(name: str, *commits: tuple[dict[str, str], str]) -> None:
        repo = tmp_path / name
        repo.mkdir()
        git("init", "-q", "--object-format=sha256", "-b", "main", cwd=repo)
        for files, message in commits:
            for path, text in files.items():
                (repo / path).write_text(text)
            git("add", "-A", cwd=repo)
            git("commit", "-q", "-m", message, cwd=repo)

    sha256_repo(
        "sha256-cand",
        ({"README.md": "the task\n"}, "starter"),
        (
            {"checkout.mjs": "export async function chargeWithRetry(amount) {\n  return amount;\n}\n"},
            "checkout\n\nCo-authored-by: Claude <noreply@anthropic.com>",
        ),
    )
    sha256_repo("sha256-single", ({"checkout.mjs": "export const x = 1;\n"}, "all at once"))

    rows = {r.name: r for r in cohort.triage(tmp_path, spans=True)}
    row = rows["sha256-cand"]
    assert row.problem is None, row.problem
    assert len(row.head) == 64 and row.commits == 2
    assert row.assistants == ["Claude Code"]
    assert row.ai_share == 1.0
    assert [span["path"] for span in row.attribution["spans"]] == ["checkout.mjs"]
    single_row = rows["sha256-single"]
    assert single_row.problem is None and len(single_row.head) == 64 and single_row.commits == 1
