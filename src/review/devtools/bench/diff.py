"""``review bench diff``: a huge diff, from reading it to the first screen and each page after,
beside ``git diff`` into a pipe; and opening a submission triage already read."""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import tempfile
import time
from pathlib import Path

from review.services import samples
from review.tui.lifetimes import empty

FILE_LINES = 65  # lines per file of the generated diff


def make_huge_submission(folder: Path, lines: int) -> tuple[int, int]:
    """A submission at `folder` whose one commit after the starter adds `lines` lines, all attributed to
    Codex by a trailer; returns how many files and bytes that commit adds."""
    body = "".join(f"export const value{i} = {i}; // line {i}\n" for i in range(lines)).encode()
    # Files of 65 lines, as in a 2,005-file diff seen in practice: every one small enough to be traced to its
    # commit (a single 6 MB file would be past the blame cap, and nothing in it attributed).
    parts = body.splitlines(keepends=True)
    files = {
        f"src/part{n // FILE_LINES:05d}.mjs": b"".join(parts[n : n + FILE_LINES])
        for n in range(0, len(parts), FILE_LINES)
    }
    if not folder.exists():
        samples.build_repo(
            folder,
            [
                samples.CommitSpec({"README.md": b"starter\n"}, "starter", "S", "s@x", "2026-11-01T00:00:00Z"),
                samples.CommitSpec(
                    files, "big\n\nCo-authored-by: Codex <noreply@openai.com>", "C", "c@x", "2026-11-02T00:00:00Z"
                ),
            ],
        )
    return len(files), len(body)


def diff_benchmark(lines: int, into: Path | None, goals: list | None = None) -> int:
    """A `lines`-line diff: time to read and parse it, to paint the first screen, and per page scrolled."""
    import tracemalloc

    from review import gitsafe
    from review.services import analysis
    from review.tui.widgets.diff.rows import DiffRows
    from review.tui.widgets.diff.view import DiffView

    scratch = Path(into) if into else Path(tempfile.mkdtemp(prefix="review-bench-"))
    os.environ["REVIEW_CACHE_DIR"] = str(scratch / "cache")
    folder = scratch / "cohort" / "big"
    files, size = make_huge_submission(folder, lines)
    start = time.perf_counter()
    repo = gitsafe.open_submission(folder)
    cloned = time.perf_counter() - start
    start = time.perf_counter()
    result = analysis.analyse(repo)
    analysed = time.perf_counter() - start
    start = time.perf_counter()
    rows = DiffRows(result.diff)
    built = time.perf_counter() - start
    # Memory in a second pass: tracemalloc slows everything it watches several times over.
    tracemalloc.start()
    kept = (analysis.analyse(repo), DiffRows(result.diff))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del kept

    async def paint() -> tuple[float, float, float, float, float, float, float]:
        from textual.app import App

        from review.tui.themes import with_app_variables

        class Bench(App):
            def get_css_variables(self):
                return with_app_variables(super().get_css_variables())

            def compose(self):
                yield DiffView()

        app = Bench()
        async with app.run_test(size=(120, 40)) as pilot:
            view = app.query_one(DiffView)
            t0 = time.perf_counter()
            view.show(result.diff)
            await pilot.pause()
            first = [view.render_line(y) for y in range(view.size.height)]
            first_paint = time.perf_counter() - t0
            pages = 50
            spent = 0.0
            for _ in range(pages):
                view.scroll_page_down(animate=False)
                await pilot.pause()  # Textual repaints here; what follows times our rows alone
                empty(view._cache)
                view.painter.clear_tokens()
                view.changed_words.clear()
                t0 = time.perf_counter()
                [view.render_line(y) for y in range(view.size.height)]
                spent += time.perf_counter() - t0
            per_page = spent / pages
            t0 = time.perf_counter()
            view.scroll_end(animate=False)
            await pilot.pause()
            [view.render_line(y) for y in range(view.size.height)]
            to_end = time.perf_counter() - t0
            assert first
            searched, search_page = await _searched(pilot, view)
            return first_paint, per_page, to_end, searched, search_page, *await _changed_words_page(app, pilot, view)

    first_paint, per_page, to_end, searched, search_page, words_page, plain_page = asyncio.run(paint())
    pipe = _git_diff_to_pipe(folder)
    opened = asyncio.run(_open_triaged(folder.parent))
    rested = asyncio.run(_open_triaged(folder.parent, rest=2.0))  # warm now: the row cache, no analysis
    print(
        f"diff of {lines} added lines in {files} files ({size / 1e6:.1f} MB), all AI-attributed through a Codex trailer"
    )
    print(f"  git diff into a pipe               {pipe * 1000:8.0f} ms")
    console_tmux, baseline_name, baseline_tmux = first_frames_in_tmux(folder)
    print(
        f"  in process (Pilot), Enter until the first frame handed to the terminal holds the diff's rows: "
        f"{rested[0] * 1000:.0f} ms read ahead (goal ≤ 300 ms), screen settled {rested[1] * 1000:.0f} ms"
    )
    print(
        f"  the same, Enter the instant triage ends (still reading it)  {opened[0] * 1000:6.0f} ms  "
        f"settled {opened[1] * 1000:.0f} ms"
    )
    print(f"  clone (cold cache)                 {cloned * 1000:8.0f} ms")
    print(
        f"  git diff + parse + blame + marks   {analysed * 1000:8.0f} ms   ({analysed * 1e6 / lines:.1f} µs per line)"
    )
    print(f"  display rows built                 {built * 1000:8.0f} ms   ({len(rows)} rows)")
    print(f"  memory while analysing (peak)      {peak / 1e6:8.1f} MB   ({peak / lines:.0f} B per line)")
    print(f"  first screen painted               {first_paint * 1000:8.1f} ms   (the analysis already made)")
    print(
        f"  one page of new rows rendered      {per_page * 1000:8.1f} ms   ratio to a 60 Hz frame "
        f"{per_page / (1 / 60):.2f}"
    )
    print(f"  jump to the end, repainted         {to_end * 1000:8.1f} ms")
    print(
        f"  / search over every row (a worker) {searched * 1000:8.0f} ms   then a page with its matches marked "
        f"{search_page * 1000:.1f} ms: ratio to a 60 Hz frame {search_page / (1 / 60):.2f}"
    )
    print(
        f"  one page of changed lines (every line changes one word), words marked "
        f"{words_page * 1000:.1f} ms, plain {plain_page * 1000:.1f} ms: ratio {words_page / plain_page:.2f}; "
        f"to a 60 Hz frame {words_page / (1 / 60):.2f}"
    )
    if goals is not None:
        from review.devtools.bench.common import Goal

        if console_tmux is not None and baseline_tmux is not None:
            goals.append(
                Goal(
                    f"{lines}-line diff: Enter → first frame in tmux, against {baseline_name}"
                    + ("" if baseline_name == "tig" else " (tig NOT installed)"),
                    f"{console_tmux * 1000:.0f} ms",
                    f"{baseline_name} {baseline_tmux * 1000:.0f} ms",
                    console_tmux / baseline_tmux,
                    2.0,
                )
            )
        goals += [
            Goal(
                f"{lines}-line diff: Enter on its triaged row (read ahead) → first frame",
                f"{rested[0] * 1000:.0f} ms",
                "300 ms",
                rested[0] / 0.3,
                1.0,
            ),
            Goal(
                f"{lines}-line diff: one page of new rows",
                f"{per_page * 1000:.1f} ms",
                "16 ms (a frame)",
                per_page / 0.016,
                1.0,
            ),
            Goal(
                f"{lines}-line diff: peak memory while analysing", f"{peak / 1e6:.0f} MB", "300 MB", peak / 300e6, 1.0
            ),
        ]
    if not into:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


async def _searched(pilot, view) -> tuple[float, float]:
    """A search that matches on every line, from `/` until its count is known (the view painting
    meanwhile), and then one page of rows drawn with the matches marked."""
    view.scroll_home(animate=False)
    t0 = time.perf_counter()
    view.search.start("value")
    while view.search.searching:
        await pilot.pause(0.01)
    searched = time.perf_counter() - t0
    empty(view._cache)
    view.painter.clear_tokens()
    t0 = time.perf_counter()
    [view.render_line(y) for y in range(view.size.height)]
    page = time.perf_counter() - t0
    view.search.start("")
    return searched, page


def _changed_patch(files: int, pairs: int) -> bytes:
    """A patch in which every line of every file changes one word: every row of it has words to mark."""
    out = []
    for number in range(files):
        out.append(
            f"diff --git a/src/mod{number}.mjs b/src/mod{number}.mjs\nindex 1111111..2222222 100644\n"
            f"--- a/src/mod{number}.mjs\n+++ b/src/mod{number}.mjs\n@@ -1,{pairs} +1,{pairs} @@\n"
        )
        for line in range(pairs):
            out.append(f"-export const value{line} = compute(total, {line}); // line {line}\n")
        for line in range(pairs):
            out.append(f"+export const value{line} = compute(subtotal, {line}); // line {line}\n")
    return "".join(out).encode()


async def _changed_words_page(app, pilot, view) -> tuple[float, float]:
    """One page of never-seen rows of changed lines, drawn with their changed words marked and drawn
    plain, in turns on the same page (a noisy machine moves both alike): the words are found by the
    view's worker first (as on screen, a frame later)."""
    from review.core import diff

    view.show(diff.parse(_changed_patch(300, 32)))
    await pilot.pause()
    pages = 30
    spent = {True: 0.0, False: 0.0}
    for _ in range(pages):
        view.scroll_page_down(animate=False)
        await pilot.pause()
        [view.render_line(y) for y in range(view.size.height)]
        await app.workers.wait_for_complete()
        await pilot.pause()
        for words in (True, False):
            view.set_reactive(type(view).words, words)
            empty(view._cache)
            view.painter.clear_tokens()
            t0 = time.perf_counter()
            [view.render_line(y) for y in range(view.size.height)]
            spent[words] += time.perf_counter() - t0
    view.set_reactive(type(view).words, True)
    return spent[True] / pages, spent[False] / pages


def first_frames_in_tmux(folder: Path, runs: int = 3) -> tuple[float | None, str | None, float | None]:
    """Enter on the triaged row in the console, and Enter on `tig show HEAD` typed at a shell, each in
    a fresh tmux window 120×40, timed the same way: from the key until the diff's first screen is on
    the terminal (the console: its first diff line; tig: the commit's header), median of `runs`; the
    lines printed say what was measured. Without tig, `git show HEAD | less` (a pager's first screen
    of the same diff) stands in, and says so. Returns the console's time, the baseline's name and time."""
    import shlex
    import statistics
    import sys

    from review import gitsafe
    from review.devtools.bench.common import KeyInTmux, tmux_key_to_paint

    print(f"  in tmux 120×40, from the key until the diff's first screen is on the terminal, median of {runs}:")
    if shutil.which("tmux") is None:
        print("    tmux is NOT installed here (apt-get install tmux): nothing measured in a terminal")
        return None, None, None
    head = gitsafe.run_trusted(["--git-dir", str(folder / ".git"), "rev-parse", "HEAD"]).decode().strip()
    env = {
        key: os.environ[key]
        for key in ("PATH", "HOME", "LANG", "REVIEW_CACHE_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME")
        if key in os.environ
    }
    # The row is complete once its assistant is named; resting on it lets the read-ahead finish.
    console = KeyInTmux(
        f"{shlex.quote(sys.executable)} -m review {shlex.quote(str(folder.parent))} --no-harness",
        str(folder),
        "OpenAI Codex",
        "value0 = 0; // line 0",
        rest=3.0,
    )
    try:
        console_s = statistics.median(tmux_key_to_paint(console, env) for _ in range(runs))
    except RuntimeError as error:
        print(f"    review: NOT measured: {error}")
        return None, None, None
    print(f"    review: Enter on the triaged row (read ahead)          {console_s * 1000:6.0f} ms")
    if shutil.which("tig") is not None:
        name, typed = "tig", "exec tig show HEAD"
    elif shutil.which("less") is not None:
        name, typed = "less", "git --no-pager show HEAD | less"
        print(
            "    tig is NOT installed here (apt-get install tig): the tig side is skipped; `git show HEAD | less` "
            "(a pager's first screen of the same diff) stands in, and is named as such"
        )
    else:
        print("    tig is NOT installed here (apt-get install tig), nor less: the tig side is skipped, no baseline")
        return console_s, None, None
    shell = KeyInTmux("echo shell-ready; exec sh", str(folder), "shell-ready", f"commit {head}", typed=typed, rest=0.5)
    try:
        baseline_s = statistics.median(tmux_key_to_paint(shell, env) for _ in range(runs))
    except RuntimeError as error:
        print(f"    {name}: NOT measured: {error}")
        return console_s, None, None
    print(
        f"    {name}: Enter on `{typed}` at a shell{' ' * max(1, 24 - len(typed))}{baseline_s * 1000:6.0f} ms   "
        "(its process start included)"
    )
    print(
        f"    ratio {console_s / baseline_s:.2f} (goal ≤ 2 × tig{'' if name == 'tig' else '; measured against less'})"
    )
    return console_s, name, baseline_s


def _git_diff_to_pipe(folder: Path) -> float:
    """The floor for showing a diff: git writing it into a pipe (what tig reads from), median of three."""
    import statistics

    from review import gitsafe

    spent = []
    for _ in range(3):
        start = time.perf_counter()
        gitsafe.run_trusted(["--git-dir", str(folder / ".git"), "diff", "--no-ext-diff", "HEAD~1", "HEAD"])
        spent.append(time.perf_counter() - start)
    return statistics.median(spent)


async def _open_triaged(cohort_dir: Path, rest: float = 0.0, size: tuple[int, int] = (120, 40)) -> tuple[float, float]:
    """The console on the cohort; once triage has read the submission (and the cursor has rested on
    its row `rest` seconds, as a reviewer reads the row), Enter until (1) the first frame handed to the
    terminal that holds the diff's rows, and (2) the screen has settled (every pane filled, every
    message handled: what Pilot waits for)."""
    from review.tui.app import ReviewApp
    from review.tui.screens.cohort import CohortScreen
    from review.tui.widgets.diff.view import DiffView

    gc.collect()  # an earlier console's garbage in this benchmark process is not this one's to collect
    app = ReviewApp(cohort_dir, run_harness=False)
    painted: list[float] = []
    drawn = False
    render_line = DiffView.render_line
    display = app._display

    # Instrumentation, not behaviour: the frame counts once DiffView has drawn diff rows into it, and
    # the time is taken where Textual hands the frame to the driver (a terminal would get it there).
    def render_line_seen(view: DiffView, y: int):
        nonlocal drawn
        drawn = drawn or len(view.rows) > 2
        return render_line(view, y)

    def display_seen(screen, renderable) -> None:
        if drawn and renderable is not None and not painted:
            painted.append(time.perf_counter())
        display(screen, renderable)

    async with app.run_test(size=size) as pilot:
        while not (
            isinstance(app.screen, CohortScreen)
            and app.screen.rows
            and all(row.complete for row in app.screen.rows.values())
            and not any(w.is_running for w in app.workers if w.group == "triage")
        ):
            await asyncio.sleep(0.01)
        await asyncio.sleep(rest)
        DiffView.render_line = render_line_seen  # type: ignore[method-assign,assignment]
        app._display = display_seen  # type: ignore[method-assign]
        try:
            start = time.perf_counter()
            await pilot.press("enter")  # returns once the screen has settled
            settled = time.perf_counter() - start
            while not painted:
                if time.perf_counter() - start > 120:
                    raise RuntimeError("no frame with the diff's rows in two minutes")
                await asyncio.sleep(0.002)
        finally:
            DiffView.render_line = render_line  # type: ignore[method-assign]
        return painted[0] - start, settled
