"""The triage screen driven with Pilot on the real sample cohort."""

import pytest
from textual.coordinate import Coordinate
from textual.widgets import DataTable, Input

from helpers import posted, seal_file, type_in_one_burst, wait_until, workers_done
from review.tui.app import ReviewApp
from review.tui.screens.cohort import CohortScreen
from review.tui.screens.help import HelpScreen
from review.tui.screens.submission.screen import SubmissionScreen


async def loaded(app, pilot):
    await pilot.pause()
    await workers_done(app, pilot)
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, CohortScreen)
    return screen


def names(table: DataTable) -> list[str]:
    return [key.value for key in table.rows]


async def test_rows_fill_in_and_open_and_back(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(app, pilot)
        table = screen.table
        assert names(table) == sorted(names(table)) and len(names(table)) == 8
        assert str(table.get_cell("ada-okafor", "assistants")) == "Claude Code"
        assert str(table.get_cell("chen-wei", "commits")) == "5"
        await pilot.press("down", "enter")
        await pilot.pause()
        await workers_done(app, pilot)
        await pilot.pause()
        assert isinstance(app.screen, SubmissionScreen) and app.screen.row.name == "ben-larsen"
        await pilot.press("3")
        commits = app.screen.query_one("#commits-table", DataTable)
        assert commits.row_count == 4 and app.focused is commits
        diff_files = [f.path for f in app.screen.analysis.diff.files]
        assert diff_files == ["NOTE.md", "checkout.mjs"]
        await pilot.press("escape")
        assert app.screen is screen


async def test_filter_narrows_and_escape_clears(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(app, pilot)
        await pilot.press("slash", *"tool:copilot")  # typed at once after the slash: all of it lands in the box
        assert isinstance(app.focused, Input) and app.focused.value == "tool:copilot"
        assert names(screen.table) == ["ben-larsen", "eve-santos", "gia-romano"]
        await pilot.press("enter")  # back to the table, filter kept
        assert app.focused is screen.table and len(names(screen.table)) == 3
        await pilot.press("n")  # typing keys work again as bindings
        await pilot.press("escape")
        assert len(names(screen.table)) == 8
        await pilot.press("slash", *"ada")  # a plain word matches names only, not "unreadable" or a reviewer
        assert names(screen.table) == ["ada-okafor"]
        await pilot.press("ctrl+u", *"disclosure:conflict")
        assert names(screen.table) == ["finn-mueller"]  # the note says no AI; its commits name Cursor
        await pilot.press("ctrl+u", *"colour:red")
        assert "not understood: colour:red" in str(screen.query_one("#triage-filter-problem").render())


async def test_a_filter_typed_in_one_burst_lands_whole_in_the_box(sample_cohort):
    """Over SSH or in a browser tab the slash and the words after it arrive in one read: every key is
    queued before the box is shown. None of them may reach the table ("s" sorts it)."""
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(app, pilot)
        order = names(screen.table)
        type_in_one_burst(app, "/state:new")
        box = screen.query_one("#triage-filter", Input)
        await wait_until(pilot, lambda: box.value == "state:new", timeout=30)
        assert app.focused is box
        assert names(screen.table) == order  # not re-sorted by a stray "s"


async def test_sort_by_column_and_reverse(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(app, pilot)
        from review.tui.widgets.triage.cells import COLUMN_INDEX

        for _ in range(COLUMN_INDEX["commits"]):
            await pilot.press("s")
        order = names(screen.table)
        assert order[-1] == "chen-wei"  # the only one with 5 commits
        await pilot.press("S")
        assert names(screen.table)[0] == "chen-wei"
        assert "▼" in str(screen.table.columns["commits"].label)


async def test_next_unscored_skips_scored(sample_cohort):
    from review.services import cohort

    for name, who in (("ben-larsen", "ana"), ("chen-wei", "ana"), ("dev-patel", "bob")):
        head = cohort.load_row(sample_cohort / name).head
        (sample_cohort / f"{name}.review.toml").write_text(
            f'schema = 1\n[[reviews]]\nreviewers = ["{who}"]\nstate = "final"\ncommit = "{head}"\n'
        )
        seal_file(sample_cohort / f"{name}.review.toml")
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(app, pilot)
        assert screen.current_name() == "ada-okafor"
        await pilot.press("n")
        assert screen.current_name() == "dev-patel"  # bob's final is bob's: ana has not scored it
        assert str(screen.table.get_cell("ben-larsen", "mine")) == "final"
        assert str(screen.table.get_cell("dev-patel", "mine")) == "new"
        assert str(screen.table.get_cell("dev-patel", "others")) == "bob final"
        assert "6 for ana to score" in str(screen.query_one("#triage-title").render())


async def test_help_lists_every_key_of_the_screen(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(app, pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        listed = {binding_id for _, _, _, ids in app.screen.rows for binding_id in ids.split()}
        assert {
            "triage.open",
            "triage.next-unscored",
            "triage.filter",
            "triage.sort",
            "triage.down",
            "triage.up",
            "app.quit",
            "app.help",
        } <= listed
        await pilot.press("escape")
        assert isinstance(app.screen, CohortScreen)
        table = app.screen.table
        start = table.cursor_row
        await pilot.press("j", "j")
        assert table.cursor_row == start + 2
        await pilot.press("k")
        assert table.cursor_row == start + 1


async def test_unreadable_submission_is_shown_not_opened(tmp_path):
    (tmp_path / "not-a-repo").mkdir()
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(app, pilot)
        assert str(screen.table.get_cell("not-a-repo", "problem")) == "not a git repository (no .git folder)"
        await pilot.press("enter")
        assert isinstance(app.screen, CohortScreen)


async def test_an_empty_cohort_says_what_a_cohort_is_and_a_repository_given_as_one_is_named(tmp_path):
    from helpers import make_repo

    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(app, pilot)
        assert "a cohort is a folder with one git repository per candidate" in str(screen.detail.render())
    # A submission's own folder opened as the cohort: its parent is what was meant.
    repo = make_repo(tmp_path / "ada", {"checkout.mjs": "x\n"})
    app = ReviewApp(repo, run_harness=False)
    async with app.run_test(size=(120, 24)) as pilot:
        screen = await loaded(app, pilot)
        assert "is itself a git repository: its parent folder may be the cohort" in str(screen.detail.render())


async def test_keymap_remaps_by_binding_id(sample_cohort, isolated_dirs):
    config = isolated_dirs / "config" / "review"
    config.mkdir(parents=True)
    (config / "keymap.toml").write_text('"triage.next-unscored" = "u"\n')
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(app, pilot)
        await pilot.press("u")
        assert screen.current_name() == "ben-larsen"


def two_submissions(sample_cohort, tmp_path):
    """A cohort of chen-wei and ada-okafor: two suites for the background harness to run."""
    import shutil

    cohort_dir = tmp_path / "two"
    cohort_dir.mkdir()
    for name in ("chen-wei", "ada-okafor"):
        shutil.copytree(sample_cohort / name, cohort_dir / name)
    return cohort_dir


async def test_harness_column_fills_in_the_background_and_quitting_stops_it(sample_cohort, tmp_path):
    from helpers import leftovers_after, wait_until

    app = ReviewApp(two_submissions(sample_cohort, tmp_path))
    async with app.run_test(size=(100, 24)) as pilot:

        def harness_filled() -> bool:
            screen = app.screen
            return (
                isinstance(screen, CohortScreen)
                and bool(screen.rows.get("chen-wei"))
                and screen.rows["chen-wei"].harness not in (None, "queued", "running…")
            )

        def title() -> str:
            return str(app.screen.query_one("#triage-title").render()) if isinstance(app.screen, CohortScreen) else ""

        from review.harness import sandbox

        bwrap = sandbox.detect().kind == "bwrap"
        if bwrap:  # progress while the column fills: how many are left and which are running
            await wait_until(pilot, lambda: "to run (" in title(), timeout=30)
        # chen-wei's suite takes about 5 s, after ada-okafor's on a machine whose cap is one suite at once.
        await wait_until(pilot, harness_filled, timeout=180)
        screen = app.screen
        if bwrap:  # one mark per scenario, and the key's scope as the gateway saw it
            assert str(screen.table.get_cell("chen-wei", "runs")) == "✓" * 8
            assert str(screen.table.get_cell("chen-wei", "key_scope")) == "persisted"
            await pilot.press("down")
            await wait_until(pilot, lambda: screen.rows["ada-okafor"].scenarios is not None, timeout=180)
            assert screen.rows["ada-okafor"].key_scope == "per-attempt"  # the model draft's bug, told apart
            assert str(screen.table.get_cell("ada-okafor", "runs")).count("✗") >= 3
        else:  # opening a cohort never runs its code unsandboxed, opt-in or not: the column says why
            assert str(screen.table.get_cell("chen-wei", "runs")).startswith("not run: needs bubblewrap")
        await pilot.press("down")  # the UI answers while ada-okafor's suite is still running
        assert screen.current_name() == "chen-wei" or screen.current_name() == "ada-okafor"
    assert await leftovers_after("driver.mjs") == []


async def test_r_says_when_the_rows_are_read_again(sample_cohort):
    """A warm cohort's reload looks the same on screen: R says it read every submission again."""
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(app, pilot)
        assert not any("Read again" in str(n.message) for n in posted(app))
        await pilot.press("R")
        await wait_until(pilot, lambda: any(str(n.message) == "Read again: 8 submissions" for n in posted(app)))


async def test_reloading_while_the_harness_runs_counts_each_suite_once_and_settles(sample_cohort, tmp_path):
    """R while the background harness runs: the reload's worker takes over the suites left; the title
    never counts one twice, names no suite that no longer runs, and says nothing once all are done."""
    import re

    app = ReviewApp(two_submissions(sample_cohort, tmp_path))
    async with app.run_test(size=(100, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, CohortScreen))
        screen = app.screen

        def title() -> str:
            return str(screen.query_one("#triage-title").render())

        # A suite is running (not only queued) when R is pressed.
        await wait_until(pilot, lambda: "to run (" in title() and "(starting)" not in title(), timeout=60)
        await pilot.press("R")
        counts: list[int] = []

        def settled() -> bool:
            counts.extend(int(n) for n in re.findall(r"harness: (\d+) to run", title()))
            return all(row.harness not in (None, "queued", "running…") for row in screen.rows.values())

        await wait_until(pilot, settled, timeout=240)
        await wait_until(pilot, lambda: "to run" not in title(), timeout=10)
        assert max(counts, default=0) <= 2, counts


async def test_opening_a_triaged_submission_reuses_its_analysis(sample_cohort, monkeypatch):
    """Triage analysed every row; the submission screen asks the same session and gets that analysis:
    each submission's history, diff and blame are read once per HEAD, however often it is opened."""
    from collections import Counter

    from review.services import analysis

    made: Counter = Counter()  # every real analysis, whoever asks for it (the real function runs)
    real = analysis.analyse

    def counted(repo, *args, **kwargs):
        made[(repo.source.name, repo.head)] += 1
        return real(repo, *args, **kwargs)

    monkeypatch.setattr(analysis, "analyse", counted)
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(app, pilot)
        assert len(made) == 8 and set(made.values()) == {1}
        assert app.session.analyses_made == made
        for _ in range(2):  # open chen-wei, back, and open it again
            screen.table.move_cursor(row=list(screen.table.rows).index("chen-wei"))
            await pilot.press("enter")
            await pilot.pause()
            await workers_done(app, pilot)
            await pilot.pause()
            assert isinstance(app.screen, SubmissionScreen) and app.screen.analysis is not None
            head = app.screen.analysis.head
            await pilot.press("escape")
        assert made[("chen-wei", head)] == 1 and sum(made.values()) == 8


def test_sorting_by_agree_puts_the_most_disagreement_first(tmp_path):
    from review.services import cohort
    from review.tui.widgets.triage.cells import COLUMN_INDEX, COLUMNS

    rows = []
    for name, agreement in (
        ("all-ten", [10, 10]),
        ("two-of-five", [2, 5]),
        ("unscored", None),
        ("four-of-five", [4, 5]),
    ):
        row = cohort.placeholder(tmp_path / name)
        row.agreement = agreement
        rows.append(row)
    column = COLUMNS[COLUMN_INDEX["agreement"]]
    ordered = [row.name for row in sorted(rows, key=lambda row: column.sort_key(row, "ana"))]
    assert ordered == ["two-of-five", "four-of-five", "all-ten", "unscored"]  # "10/10" as text would come first


async def test_help_lists_each_key_once_even_when_remapped_onto_another_binding_of_the_same_action(
    sample_cohort, isolated_dirs
):
    config = isolated_dirs / "config" / "review"
    config.mkdir(parents=True)
    # What the README's keymap example once suggested: q's binding moved onto ctrl+q, which quits already.
    (config / "keymap.toml").write_text('"app.quit" = "ctrl+q"\n')
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(app, pilot)
        await pilot.press("question_mark")
        quits = [row for row in app.screen.rows if row[2] == "Quit"]
        assert quits == [("Everywhere", "^q", "Quit", "app.quit app.quit-alt")]
    app = ReviewApp(sample_cohort, run_harness=False, keymap={})
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(app, pilot)
        await pilot.press("question_mark")
        assert [row for row in app.screen.rows if row[2] == "Quit"] == [
            ("Everywhere", "q ^q", "Quit", "app.quit app.quit-alt")
        ]


async def test_a_paint_before_the_table_measures_its_rows_never_shows_cells_cut_to_the_header(
    sample_cohort, monkeypatch
):
    """Seen once at 100×30 under TERM=dumb: every column cut to its header (`fina`, `per-attem`, 4 of 8
    marks, `10` for 100%). DataTable measures new cells only when it is next idle, and caches the lines
    it paints by its update count, which measuring does not change: a frame painted between a rebuild
    (or a cell's update) and that idle showed header-wide columns, and kept showing them until something
    else changed the table. Here the screen paints at exactly that moment, every time."""
    from helpers import seed_ben_suite

    seed_ben_suite()
    cut: list[str] = []

    def paint(screen: CohortScreen) -> None:
        table = screen.table
        painted = [table.render_line(y).text for y in range(table.size.height)]
        for key in table.rows:
            # The row's own line: its name first (the Similar column names other candidates).
            line = next((text for text in painted if text.lstrip().startswith(f"{key.value} ")), None)
            # Candidate, Mine, Key scope, Runs, Disclosure, AI: what 100 columns show whole.
            for cell in table.get_row(key)[:6] if line is not None else []:
                if str(cell) not in line:
                    cut.append(f"{str(cell)!r} in {line.strip()!r}")

    for method in ("rebuild", "update_row"):
        original = getattr(CohortScreen, method)

        def painted_after(screen, *args, original=original):
            original(screen, *args)
            paint(screen)

        monkeypatch.setattr(CohortScreen, method, painted_after)
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(app, pilot)
    assert cut == []


async def test_rows_slow_to_read_show_as_named_placeholders_and_then_fill_in(sample_cohort, monkeypatch):
    """The table waits for the first batch of rows before it is painted (a warm cohort is painted once),
    but never longer than a batch's time: a first row that takes long to read (a cold copy of a long
    history) leaves the names on screen, each marked as still being read, and the detail saying so."""
    import threading

    from review.services.session import Session

    release = threading.Event()
    real_rows = Session.rows

    def slow_rows(self, paths, workers=4):
        release.wait(60)  # the first row's read, held until the test has seen the placeholders
        yield from real_rows(self, paths, workers)

    monkeypatch.setattr(Session, "rows", slow_rows)
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, CohortScreen) and app.screen.table.row_count == 8)
        screen = app.screen
        assert names(screen.table) == sorted(names(screen.table))
        assert str(screen.table.get_cell("ada-okafor", "assistants")) == "…"
        assert "loading 0/8" in str(screen.title_bar.render())
        release.set()
        await wait_until(pilot, lambda: str(screen.table.get_cell("ada-okafor", "assistants")) == "Claude Code")
        await workers_done(app, pilot)


async def test_the_table_is_as_wide_and_as_tall_as_datatables_own_measuring_makes_it(sample_cohort):
    """TriageTable skips DataTable's pass that measures every new cell (the columns are fitted as rows
    are added): after a load, a sort and a suite's result, DataTable's own pass changes nothing. A
    Textual release whose pass does more than fit the columns and set the scrollable size fails here."""
    from helpers import seed_ben_suite
    from review.tui.widgets.triage.table import TriageTable

    seed_ben_suite()
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(app, pilot)
        await pilot.press("s", "s")
        # Sorted by the third column, and the table's idle pass (the one TriageTable replaces) has run.
        await wait_until(pilot, lambda: screen.table.sorted_by == 2 and not screen.table._require_update_dimensions)
        table = screen.table
        assert isinstance(table, TriageTable) and table.row_count == 8
        ours = (table.virtual_size, [column.content_width for column in table.columns.values()])
        DataTable._update_dimensions(table, list(table.rows))
        theirs = (table.virtual_size, [column.content_width for column in table.columns.values()])
        assert ours == theirs
        # Wider than 80 columns: the table scrolls sideways (a size left at zero would not).
        assert ours[0].width > 80 and ours[0].height == 9


async def test_every_column_shows_its_sort_mark_and_the_sorted_column_comes_into_view(sample_cohort):
    from review.tui.widgets.triage.cells import COLUMNS

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(app, pilot)
        table = screen.table
        for column in COLUMNS:
            await pilot.press("S")
            await pilot.pause()
            header = table.render_line(0).text
            assert f"{column.label} ▼" in header, (column.label, header)
            await pilot.press("s")
            await pilot.pause()
    # s went round every column and back to the first.
    assert screen.sort == (0, False)


def test_verdict_like_columns_sort_worst_first(tmp_path):
    from review.services import cohort
    from review.tui.widgets.triage.cells import COLUMN_INDEX, COLUMNS

    def ordered(key: str, rows: list) -> list[str]:
        column = COLUMNS[COLUMN_INDEX[key]]
        return [row.name for row in sorted(rows, key=lambda row: column.sort_key(row, "ana"))]

    rows = []
    for scope in ("persisted", "per-call", "no retry seen", "unknown", "per-attempt", None, "none", "per-amount"):
        row = cohort.placeholder(tmp_path / f"scope-{scope}")
        row.key_scope = scope
        rows.append(row)
    assert ordered("key_scope", rows) == [
        "scope-none",
        "scope-per-attempt",
        "scope-per-amount",
        "scope-unknown",
        "scope-no retry seen",
        "scope-per-call",
        "scope-persisted",
        "scope-None",
    ]
    runs = {
        "all-ok": {"happy": "ok", "first-503": "ok"},
        "one-hung": {"happy": "ok", "first-503": "hung"},
        "one-double": {"happy": "ok", "first-503": "double-charge"},
        "two-bad": {"happy": "no-backoff", "first-503": "no-retry"},
        "not-run": None,
    }
    rows = []
    for name, verdicts in runs.items():
        row = cohort.placeholder(tmp_path / name)
        row.scenarios = verdicts
        rows.append(row)
    assert ordered("runs", rows) == ["two-bad", "one-double", "one-hung", "all-ok", "not-run"]
    rows = []
    for disclosure in ("ok", "no-ai", "conflict", "none", "unmapped"):
        row = cohort.placeholder(tmp_path / disclosure)
        row.disclosure = disclosure
        rows.append(row)
    assert ordered("disclosure", rows) == ["conflict", "none", "unmapped", "no-ai", "ok"]


def test_the_scope_filter_finds_a_client_that_never_retried(tmp_path):
    from review.core import triage
    from review.services import cohort
    from review.tui.widgets.triage.cells import filter_fields

    row = cohort.placeholder(tmp_path / "never")
    row.key_scope = triage.NO_RETRY_SEEN
    for typed, found in (("scope:no-retry-seen", True), ("scope:no-retry", True), ("scope:per-call", False)):
        terms, problems = triage.parse_filter(typed)
        assert not problems and triage.matches(terms, filter_fields(row, "ana")) is found, typed


async def test_a_submission_copied_in_while_the_console_is_open_appears_marked_and_a_reaches_it(
    sample_cohort, tmp_path, monkeypatch
):
    import shutil

    from helpers import wait_until

    monkeypatch.setattr(CohortScreen, "WATCH_SECONDS", 0.1)
    # Outside the cohort until the console is open: then copied in, as a reviewer would.
    shutil.move(sample_cohort / "hal-kim", tmp_path / "hal-kim")
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await loaded(app, pilot)
        assert "hal-kim" not in names(screen.table)
        await pilot.press("a")
        await pilot.pause()
        assert screen.current_name() == "ada-okafor"
        # Said, not silent: nothing has arrived yet.
        assert any("Nothing has arrived" in str(toast.message) for toast in posted(app))
        shutil.copytree(tmp_path / "hal-kim", sample_cohort / "zoe-hal-kim", symlinks=True)
        await wait_until(
            pilot, lambda: "zoe-hal-kim" in names(screen.table) and screen.rows["zoe-hal-kim"].complete, timeout=30
        )
        assert str(screen.table.get_cell("zoe-hal-kim", "name")) == "+ zoe-hal-kim"
        assert screen.rows["zoe-hal-kim"].head is not None
        title = str(screen.query_one("#triage-title").render())
        assert "1 arrived since opening (+, a)" in title and "8 submissions" in title
        # The rows the console opened with are not marked.
        assert str(screen.table.get_cell("ada-okafor", "name")) == "ada-okafor"
        await pilot.press("a")
        assert screen.current_name() == "zoe-hal-kim"
        assert "arrived at" in str(screen.query_one("#triage-detail").render())
        # n (the next you have not scored) reaches it too, and the filter finds arrivals.
        screen.table.move_cursor(row=0)
        for _ in range(8):
            await pilot.press("n")
            if screen.current_name() == "zoe-hal-kim":
                break
        assert screen.current_name() == "zoe-hal-kim"
        await pilot.press("slash", *"state:arrived", "enter")
        assert names(screen.table) == ["zoe-hal-kim"]
        await pilot.press("escape")
        # R keeps the mark: it arrived after the console opened all the same.
        await pilot.press("R")
        await loaded(app, pilot)
        assert str(screen.table.get_cell("zoe-hal-kim", "name")) == "+ zoe-hal-kim"


async def test_an_arrival_in_a_candidate_blind_session_is_the_next_candidate(sample_cohort, tmp_path, monkeypatch):
    import shutil

    from helpers import wait_until

    monkeypatch.setattr(CohortScreen, "WATCH_SECONDS", 0.1)
    shutil.move(sample_cohort / "hal-kim", tmp_path / "hal-kim")
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",), anonymous=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await loaded(app, pilot)
        shutil.copytree(tmp_path / "hal-kim", sample_cohort / "hal-kim", symlinks=True)
        await wait_until(
            pilot, lambda: "hal-kim" in names(screen.table) and screen.rows["hal-kim"].complete, timeout=30
        )
        assert str(screen.table.get_cell("hal-kim", "name")) == "+ candidate-8"
        shown = str(screen.query_one("#triage-detail").render()) + str(screen.query_one("#triage-title").render())
        assert "hal" not in shown.lower()


async def test_a_detail_longer_than_its_box_shows_a_scrollbar_never_a_silent_cut(sample_cohort):
    from helpers import seed_ben_suite

    # ben-larsen's cached run adds its runs and key scope, spelled out, to the detail.
    seed_ben_suite()
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(60, 15)) as pilot:
        screen = await loaded(app, pilot)
        screen.table.move_cursor(row=screen.table.get_row_index("ben-larsen"))
        await pilot.pause()
        box = screen.detail_box
        assert box.max_scroll_y > 0 and box.show_vertical_scrollbar


async def test_a_new_commit_on_a_listed_submission_shows_live_as_stale_and_runs_its_suite(sample_cohort, tmp_path):
    """A candidate pushes a fix after triage: the open console notices the new HEAD from the
    submission's files (its once-a-second look), re-reads the row (commits, `stale` for a final at the
    old HEAD), marks it ↻ with a count in the title, `a` reaches it, and the new HEAD's suite runs."""
    import shutil

    from helpers import BEN_HEAD, commit_as, git, seed_ben_suite, wait_until
    from review.harness import runner

    # One submission whose HEAD's suite is cached: the background harness has nothing to run until
    # the new commit.
    seed_ben_suite()
    cohort_dir = tmp_path / "one"
    cohort_dir.mkdir()
    repo = shutil.copytree(sample_cohort / "ben-larsen", cohort_dir / "ben-larsen", symlinks=True)
    score = cohort_dir / "ben-larsen.review.toml"
    score.write_text(f'schema = 1\n[[reviews]]\nreviewers = ["ana"]\nstate = "final"\ncommit = "{BEN_HEAD}"\n')
    seal_file(score)
    app = ReviewApp(cohort_dir, run_harness=True, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await loaded(app, pilot)
        await wait_until(pilot, lambda: screen.rows["ben-larsen"].head == BEN_HEAD)
        assert str(screen.table.get_cell("ben-larsen", "mine")) == "final"
        commits = screen.rows["ben-larsen"].commits
        git("checkout", "-q", "-f", "main", cwd=repo)
        new_head = commit_as(repo, "Persist the key before the first request", {"checkout.mjs": "// fixed\n"})
        await wait_until(pilot, lambda: screen.rows["ben-larsen"].head == new_head, timeout=60)
        assert str(screen.table.get_cell("ben-larsen", "mine")) == "stale"
        assert str(screen.table.get_cell("ben-larsen", "commits")) == str(commits + 1)
        assert str(screen.table.get_cell("ben-larsen", "name")) == "↻ ben-larsen"
        assert "1 with a new commit (↻, a)" in str(screen.query_one("#triage-title").render())
        await pilot.press("a")
        assert "a new commit seen at" in str(screen.query_one("#triage-detail").render())
        # The new HEAD's suite, in the background (without bubblewrap it says why it did not run).
        await wait_until(
            pilot,
            lambda: (
                runner.cached_suite(new_head) is not None
                or (screen.rows["ben-larsen"].harness or "").startswith("not run")
            ),
            timeout=120,
        )


async def test_the_background_harness_runs_no_more_than_its_cap_and_says_the_rest_queued(sample_cohort):
    """Opening the sample cohort: at most half the cores' worth of rows say running at once, the
    others queued in the Runs column until their turn; quitting stops the runs."""
    import os

    from helpers import leftovers_after
    from review.harness import sandbox

    if sandbox.detect().kind != "bwrap":
        pytest.skip("the background harness runs only in bubblewrap")
    cap = max(1, len(os.sched_getaffinity(0)) // 2)
    app = ReviewApp(sample_cohort, reviewers=("ana",))
    async with app.run_test(size=(120, 30)) as pilot:

        def runs() -> list[str]:
            screen = app.screen
            if not isinstance(screen, CohortScreen) or len(screen.table.rows) < 8:
                return []
            return [str(screen.table.get_cell(key.value, "runs")) for key in screen.table.rows]

        await wait_until(pilot, lambda: "running…" in runs(), timeout=120)
        shown = runs()
        assert 1 <= shown.count("running…") <= cap, shown
        assert shown.count("queued") >= len(shown) - cap - 1, shown
        # The second suite starts only once the first is done.
        await wait_until(pilot, lambda: sum(cell not in ("running…", "queued") for cell in runs()) >= 1, timeout=300)
        assert runs().count("running…") <= cap, runs()
    assert await leftovers_after("driver.mjs") == []


async def test_a_value_that_changes_after_the_load_moves_its_row_to_its_place_in_the_sort(sample_cohort):
    """Sorted by Others, another reviewer's final review of the last row: the row moves to where the
    sort puts a final review, without S pressed again."""
    from helpers import wait_until
    from review import gitsafe
    from review.services import store
    from review.tui.widgets.triage.cells import COLUMN_INDEX

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await loaded(app, pilot)
        screen.sort = (COLUMN_INDEX["others"], False)
        await pilot.pause()
        before = names(screen.table)
        last = before[-1]
        head = gitsafe.open_submission(sample_cohort / last).head
        review = store.Review(reviewers=["bob"], commit=head, state="final", rubric_version="article-v1")
        store.save(sample_cohort / last, review)
        await wait_until(pilot, lambda: screen.rows[last].states.get("bob") == "final")
        await wait_until(pilot, lambda: names(screen.table) == [row.name for row in screen.visible_rows()])
        assert names(screen.table) != before


async def test_right_and_left_step_the_table_a_column_at_a_time_with_the_candidate_kept(sample_cohort):
    from review.tui.widgets.triage.cells import COLUMN_INDEX

    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(app, pilot)
        table = screen.table
        similar = COLUMN_INDEX["similar"]
        widths = [column.get_render_width(table) for column in table.columns.values()]
        # The Candidate column is pinned: column 1 shows beside it unscrolled, so each later column
        # starts where the columns between it and the Candidate end.
        starts = [sum(widths[1:index]) for index in range(len(widths))]
        for _ in range(similar - 1):
            await pilot.press("right")
        await wait_until(pilot, lambda: table.scroll_x == min(starts[similar], table.max_scroll_x))
        header = table.render_line(0).text
        assert header.startswith(" Candidate") and "Similar" in header
        first = str(table.get_cell_at(Coordinate(0, 0)))
        assert table.render_line(1).text.startswith(f" {first}"), "each row still shows whose it is"
        at = table.scroll_x
        await pilot.press("left")
        await wait_until(pilot, lambda: table.scroll_x == max(start for start in starts[1:] if start < at))
