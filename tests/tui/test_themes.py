import subprocess
import sys

import pytest

from review.tui import themes
from review.tui.app import ReviewApp


def test_bundled_themes_load_with_app_variables():
    load = themes.load_themes(themes.bundled_dir())
    assert load.failures == []
    assert {"review-dark", "review-light", "review-high-contrast"} <= set(load.themes)
    assert load.themes["review-dark"].variables["ai-hunk-background"] == "#3B2F5C"
    assert load.themes["review-light"].dark is False


@pytest.mark.parametrize("body, field, words", [
    ('name = "x"\nprimary = "not-a-colour"\n', "primary", "is not a colour"),
    ('name = "x"\nprimary = "#fff"\nbackgrund = "#000"\n', "backgrund", "unknown field"),
    ('primary = "#fff"\n', "name", "missing"),
    ('name = "x"\nprimary = "#fff"\ndark = "yes"\n', "dark", "expected bool"),
    ('name = "x"\nprimary = "#fff"\n[variables]\nai-hunk = "#fff"\n', "variables.ai-hunk", "unknown variable"),
    ('name = "x"\nprimary = "#fff"\n[variables]\nai-gutter = "#zzz"\n', "variables.ai-gutter", "is not a colour"),
])
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
    result = subprocess.run([sys.executable, "-m", "review", str(tmp_path), "--theme", "nope"],
                            capture_output=True, text=True)
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
        notes = [n.message for n in app._notifications]
        assert any("bad.toml" in n and "'primary'" in n for n in notes)
