"""AI-DECLARATION.md, added by a candidate beside their code: its levels mapped to the files they
cover, the tool its own notes name, and what it does not say listed (real git, the real analysis)."""

from __future__ import annotations

from helpers import git, make_repo
from review import gitsafe
from review.core.attribution.ai_declaration import parse_declaration
from review.services import analysis

CODE = "export async function chargeWithRetry(amount) {\n  return amount;\n}\n"


def analysed(tmp_path, declaration: str, files: dict[str, str] | None = None):
    repo = make_repo(tmp_path / "s", {"README.md": "the take-home\n"}, "starter")
    for path, text in {
        "checkout.mjs": CODE,
        "lib/key.mjs": "export const key = 1;\n",
        "test/checkout.test.mjs": "// a test\n",
        **(files or {}),
    }.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    (repo / "AI-DECLARATION.md").write_text(declaration)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "work", cwd=repo)
    return analysis.analyse(gitsafe.open_submission(repo))


def tools_by_line(result, path: str) -> list[str | None]:
    file_diff = result.diff.file(path)
    return [line.tool for hunk in file_diff.hunks for line in hunk.lines if line.kind == "+"]


def test_a_component_at_auto_is_the_ai_named_in_the_declarations_notes(tmp_path):
    result = analysed(
        tmp_path,
        '---\nversion: "0.1.2"\nlevel: auto\ncomponents:\n  lib: auto\n'
        "  checkout.mjs: none\n---\n\n## Notes\n\n- Claude Code was used to generate lib/.\n",
    )
    assert tools_by_line(result, "lib/key.mjs") == ["Claude Code"]
    assert tools_by_line(result, "checkout.mjs") == [None, None, None]
    assert tools_by_line(result, "test/checkout.test.mjs") == [None]  # not covered: no claim
    assert result.attribution.tools == ["Claude Code"]
    spans = [s for s in result.attribution.spans if s.path == "lib/key.mjs"]
    assert spans and "AI-DECLARATION.md line 5" in spans[0].source


def test_the_whole_work_at_copilot_with_no_tool_named_is_an_unnamed_assistants(tmp_path):
    result = analysed(tmp_path, '---\nversion: "0.1.2"\nlevel: copilot\n---\n\n## Notes\n\n- Reviewed by me.\n')
    assert tools_by_line(result, "checkout.mjs") == ["an assistant (unnamed)"] * 3
    assert tools_by_line(result, "lib/key.mjs") == ["an assistant (unnamed)"]


def test_processes_cover_the_code_and_the_tests_and_a_part_is_listed_unmapped(tmp_path):
    result = analysed(
        tmp_path,
        '---\nversion: "0.1.2"\nlevel: auto\nprocesses:\n  implementation: assist\n'
        "  testing: auto\n---\n\n## Notes\n\nCursor wrote the tests; it helped with the code.\n",
    )
    assert tools_by_line(result, "test/checkout.test.mjs") == ["Cursor"]
    assert tools_by_line(result, "checkout.mjs") == [None, None, None]
    unmapped = [u.text for u in result.attribution.unmapped]
    assert any("implementation: assist" in text and "which lines is not said" in text for text in unmapped)


def test_what_the_declaration_cannot_say_is_listed_never_dropped_and_names_no_tool(tmp_path):
    result = analysed(
        tmp_path,
        '---\nversion: "0.1.2"\nlevel: sometimes\ncomponents:\n  lib: auto\n  src: auto\n'
        "  util: often\nowner: me\n---\n\nClaude Code was used to generate lib/.\n",
    )
    unmapped = {u.line_no: u for u in result.attribution.unmapped}
    assert (
        unmapped[3].reason.startswith(
            "sometimes is not a level of the format (none | hint | assist | pair | copilot | auto)"
        )
        and unmapped[3].text == "level: sometimes"
    )
    assert unmapped[7].reason.startswith("often is not a level") and unmapped[8].reason.startswith(
        "owner is not a field"
    )
    assert {u.file for u in result.attribution.unmapped} == {"AI-DECLARATION.md"}
    # A component that names nothing in the submission is said so.
    assert unmapped[6].reason == "src is not in the submission at HEAD"
    # The levels listed in a problem's words name no assistant: Claude Code is the only one.
    assert result.attribution.tools == ["Claude Code"]
    assert tools_by_line(result, "lib/key.mjs") == ["Claude Code"]


def test_two_tools_in_the_declarations_notes_leave_its_levels_to_an_unnamed_assistant_and_say_so(tmp_path):
    result = analysed(
        tmp_path,
        '---\nversion: "0.1.2"\nlevel: auto\ncomponents:\n  lib: auto\n---\n\n'
        "Claude Code helped with lib/. I used Copilot for the rest.\n",
    )
    assert tools_by_line(result, "lib/key.mjs") == ["an assistant (unnamed)"]
    assert any("which wrote what the levels cover is not said" in u.reason for u in result.attribution.unmapped)


def test_a_complete_declaration_leaves_nothing_unmapped(tmp_path):
    result = analysed(
        tmp_path,
        '---\nversion: "0.1.2"\nlevel: auto\n---\n\nThis format is based on '
        "AI-DECLARATION.md.\n\n## Notes\n\n- Claude Code was used to create the whole "
        "application.\n",
    )
    assert result.attribution.unmapped == [] and result.attribution.tools == ["Claude Code"]
    assert tools_by_line(result, "checkout.mjs") == ["Claude Code"] * 3


def test_a_declaration_without_front_matter_is_said_and_its_words_still_read(tmp_path):
    result = analysed(tmp_path, "# AI declaration\n\nClaude Code wrote checkout.mjs.\n")
    assert tools_by_line(result, "checkout.mjs") == ["Claude Code"] * 3
    assert any("no front matter" in u.reason for u in result.attribution.unmapped)


def test_the_front_matter_reader_takes_the_formats_shape_only():
    found = parse_declaration(
        "---\nversion: '0.1.2'\nlevel: PAIR   # mostly\ncomponents:\n  \"./lib/\": auto\n"
        "  'my dir': hint\n  bad line\nprocesses:\n  design: auto\n  cooking: auto\n---\nbody\n"
    )
    assert found.level and found.level.level == "pair"
    assert {name: said.level for name, said in found.components.items()} == {"lib": "auto", "my dir": "hint"}
    assert {name: said.level for name, said in found.processes.items()} == {"design": "auto"}
    assert [line for line, _ in found.problems] == [7, 10] and found.body == "body\n" and found.body_line == 12
    assert parse_declaration("---\nlevel: auto\n").problems == [
        (1, "the front matter never ends (no closing ---): its levels cannot be read")
    ]
    # One pass, whatever the lines hold.
    parse_declaration("---\n" + ("a: " + " " * 5000 + "x\n") * 50 + "---\n")


def test_levels_over_more_files_than_the_bound_are_cut_and_said(monkeypatch):
    from review.core.attribution import ai_declaration

    monkeypatch.setattr(ai_declaration, "MAX_ENTRIES", 5)
    found = parse_declaration("---\nlevel: auto\ncomponents:\n  lib: auto\n  src: none\n---\n")
    entries = ai_declaration.declaration_entries(
        found,
        [f"lib/{n}.mjs" for n in range(4)] + [f"src/{n}.mjs" for n in range(4)],
        "Claude Code",
        "AI-DECLARATION.md",
    )
    assert [e.path for e in entries[:5]] == ["lib/0.mjs", "lib/1.mjs", "lib/2.mjs", "lib/3.mjs", "src/0.mjs"]
    assert entries[5].kind == "unread" and "3 file entries past the first 5 were not read" in entries[5].reason


def test_the_note_pane_lists_what_the_declarations_levels_gave_to_whom(tmp_path):
    from review.tui.widgets.note_view import disclosure_summary

    result = analysed(
        tmp_path,
        '---\nversion: "0.1.2"\nlevel: auto\ncomponents:\n  lib: auto\n'
        "  checkout.mjs: none\n---\n\n## Notes\n\n- Claude Code was used to generate lib/.\n",
    )
    shown = disclosure_summary(result)
    assert "· AI-DECLARATION.md line 5 (lib: auto): lib/key.mjs → Claude Code" in shown
    assert "· AI-DECLARATION.md line 6 (checkout.mjs: none): checkout.mjs → the person" in shown
    assert "Disclosure in AI-DECLARATION.md (no section): assistants named: Claude Code." in shown
