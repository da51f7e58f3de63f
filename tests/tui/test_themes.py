import subprocess
import sys

import pytest

from helpers import posted
from review.tui import themes
from review.tui.app import ReviewApp


def test_bundled_themes_load_with_app_variables():
    load = themes.load_themes(themes.bundled_dir())
    assert load.failures == []
    assert {"review-dark", "review-light", "review-high-contrast"} <= set(load.themes)
    assert load.themes["review-dark"].variables["ai-hunk-background"] == "#3B2F5C"
    assert load.themes["review-light"].dark is False


@pytest.mark.parametrize(
    "body, field, words",
    [
        ('name = "x"\nprimary = "not-a-colour"\n', "primary", "is not a colour"),
        ('name = "x"\nprimary = "#fff"\nbackgrund = "#000"\n', "backgrund", "unknown field"),
        ('primary = "#fff"\n', "name", "missing"),
        ('name = "x"\nprimary = "#fff"\ndark = "yes"\n', "dark", "expected bool"),
        ('name = "x"\nprimary = "#fff"\n[variables]\nai-hunk = "#fff"\n', "variables.ai-hunk", "unknown variable"),
        ('name = "x"\nprimary = "#fff"\n[variables]\nai-gutter = "#zzz"\n', "variables.ai-gutter", "is not a colour"),
    ],
)
def test_bad_theme_names_file_and_field(tmp_path, body, field, words):
    path = tmp_path / "bad.toml"
    path.write_text(body)
    with pytest.raises(themes.ThemeError) as caught:
        themes.parse_theme(path)
    message = str(caught.value)
    assert str(path) in message and repr(field) in message and words in message


def test_invalid_toml_is_reported(tmp_path):
    (tmp_path / "broken.toml").write_text("name = \n")
    load = themes.load_themes(tmp_path)
    assert load.themes == {} and "not valid TOML" in str(load.failures[0])


def test_user_themes_come_from_xdg_config(isolated_dirs):
    folder = isolated_dirs / "config" / "review" / "themes"
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text('name = "mine"\nprimary = "#123456"\n')
    (folder / "bad.toml").write_text('name = "bad"\nprimary = 3\n')
    load = themes.load_themes()
    assert "mine" in load.themes and "review-dark" in load.themes
    assert len(load.failures) == 1 and "bad.toml" in str(load.failures[0])


def test_unknown_theme_on_the_command_line_exits_2(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "review", str(tmp_path), "--theme", "nope"], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "unknown theme 'nope'" in result.stderr and "review-light" in result.stderr


async def test_app_registers_themes_and_reports_bad_user_theme(isolated_dirs, tmp_path):
    folder = isolated_dirs / "config" / "review" / "themes"
    folder.mkdir(parents=True)
    (folder / "bad.toml").write_text('name = "bad"\nprimary = "#12"\n')
    app = ReviewApp(tmp_path, theme="review-high-contrast")
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "review-high-contrast"
        assert "ansi-dark" in app.available_themes  # for tmux with the terminal's own palette
        notes = [n.message for n in posted(app)]
        assert any("bad.toml" in n and "'primary'" in n for n in notes)


THEMES = ["review-dark", "review-light", "review-high-contrast", "ansi-dark", "ansi-light"]


@pytest.mark.parametrize("system", ["truecolor", "standard"])  # standard: TERM=screen, 16 colours
@pytest.mark.parametrize("theme", THEMES)
async def test_ai_added_and_context_lines_and_every_token_stay_distinguishable(
    sample_cohort, monkeypatch, theme, system
):
    """Each bundled theme and Textual's ANSI ones, on a true-colour and on a 16-colour terminal: AI
    lines, added lines and context lines have three different backgrounds, and no token or AI tag
    is drawn in (nearly) its own background's colour."""

    from textual import constants

    from helpers import open_submission, wait_until
    from review.tui import palette

    monkeypatch.setattr(constants, "COLOR_SYSTEM", system)
    app = ReviewApp(sample_cohort, theme=theme, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 60)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        assert app.console.color_system == system
        view = screen.query_one("#diff-view")
        depth = palette.SYSTEMS[system]
        backgrounds: dict[str, set] = {"ai": set(), "added": set(), "context": set()}
        checked = 0

        def check_rows() -> None:
            nonlocal checked
            for index, row in enumerate(view.rows):
                if row.line is None or row.line.kind not in "+ ":
                    continue
                segments = list(view.painter.row(index, row, False))
                kind = "ai" if row.line.tool else "added" if row.line.kind == "+" else "context"
                background = segments[-1].style.bgcolor  # the line's own (its padding's)
                backgrounds[kind].add(
                    "default"
                    if background is None or background.is_default
                    else background.downgrade(depth).get_truecolor()
                )
                for segment in segments:
                    style = segment.style
                    if (
                        segment.text.strip()
                        and style
                        and style.color
                        and style.bgcolor
                        and not style.color.is_default
                        and not style.bgcolor.is_default
                    ):
                        checked += 1
                        assert palette.contrast(style.color, style.bgcolor, depth) >= palette.MIN_CONTRAST, (
                            theme,
                            system,
                            kind,
                            segment.text,
                            style,
                        )

        check_rows()  # the whole submission: AI and the candidate's added lines
        pane = screen.query_one("#diff-pane")
        await pilot.press("1", "D")  # the model draft → HEAD: context lines too
        await wait_until(pilot, lambda: pane.shown is not None and pane.shown.label.startswith("model draft"))
        check_rows()
        assert checked and all(backgrounds.values()), backgrounds
        assert len(backgrounds["ai"] | backgrounds["added"] | backgrounds["context"]) == 3, backgrounds


def test_contrast_treats_one_palette_entry_as_one_colour():
    from rich.color import Color, ColorSystem

    from review.tui import palette

    assert palette.contrast(Color.parse("color(6)"), Color.parse("color(6)")) == 1.0
    assert palette.contrast(Color.parse("#0a0a0a"), Color.parse("#000000"), ColorSystem.STANDARD) == 1.0
    assert palette.contrast(Color.parse("#ffffff"), Color.parse("#000000")) == 21.0
    fixed = palette.readable(palette.Style(color="color(2)", bgcolor="color(2)"))
    assert palette.contrast(fixed.color, fixed.bgcolor) >= palette.MIN_CONTRAST


@pytest.mark.parametrize("system", ["truecolor", "standard"])
@pytest.mark.parametrize("theme", THEMES)
async def test_changed_words_are_underlined_and_readable_on_their_background(sample_cohort, monkeypatch, theme, system):
    """The words a changed line changed (model draft → HEAD) are bold and underlined, so they read
    without colour, and in every theme their text stays readable on the word's stronger background."""

    from textual import constants

    from helpers import open_submission, settle, wait_until
    from review.tui import palette

    monkeypatch.setattr(constants, "COLOR_SYSTEM", system)
    app = ReviewApp(sample_cohort, theme=theme, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 60)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        view = screen.query_one("#diff-view")
        pane = screen.query_one("#diff-pane")
        await pilot.press("1", "D")
        await wait_until(pilot, lambda: pane.shown is not None and pane.shown.label.startswith("model draft"))

        def marked() -> list:
            found = []
            for index, row in enumerate(view.rows):
                if row.line is not None and row.line.kind in "+-":
                    found += [s for s in view.painter.row(index, row, False) if s.style and s.style.underline]
            return found

        marked()  # asks for every hunk's words
        await settle(app, pilot)
        words = marked()
        assert words and all(segment.style.bold for segment in words)
        depth = palette.SYSTEMS[system]
        for segment in words:
            style = segment.style
            if segment.text.strip() and style.color and style.bgcolor and not style.color.is_default:
                assert palette.contrast(style.color, style.bgcolor, depth) >= palette.MIN_CONTRAST, (
                    theme,
                    system,
                    segment.text,
                    style,
                )
