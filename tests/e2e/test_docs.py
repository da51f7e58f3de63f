"""The README and docs/ say only what is so: every `review …` command and option they name is one the
command line takes, every link lands on a page and a heading that exist, the keys page is what the
bindings say, and the README stays a five-minute read that opens with the commands CI runs."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

from review.cli import registry
from review.devtools import keys_page

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]
# usage.md shows how a mistyped command is answered: it names one on purpose.
MISTYPED_ON_PURPOSE = {"trige"}
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)


# ---------------------------------------------------------------- commands


def command_lines(text: str) -> list[str]:
    """Every `review …` a page names: in backticks, and on the lines of its code blocks (a line that
    starts indented continues the one above; `$ ` prompts and `# …` comments are left out)."""
    found = [span for span in re.findall(r"`([^`\n]+)`", FENCE.sub("", text))]
    for block in FENCE.findall(text):
        lines: list[str] = []
        for line in block.splitlines():
            line = line.split(" # ")[0].rstrip()
            if lines and line[:1].isspace():
                lines[-1] += " " + line.strip()
            else:
                lines.append(line.strip().removeprefix("$ "))
        found += lines
    commands = []
    for found_text in found:
        found_text = found_text.replace("\\|", "|")  # a pipe escaped in a table cell
        for match in re.finditer(r"(?:^|[\s(\"'])(review(?: [^|;&)\"]*)?)", found_text):
            commands.append(match.group(1).strip())
    return [c for c in commands if c == "review" or c.startswith("review ")]


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return set(parser._option_string_actions)


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _is_value(words: list[str], index: int, parser: argparse.ArgumentParser) -> bool:
    """Whether words[index] is the value of the option before it (`--reviewer bob`)."""
    options = {**parser._option_string_actions, **_subparsers(parser)["open"]._option_string_actions}
    action = options.get(words[index - 1]) if index else None
    return action is not None and action.nargs != 0


def unknown_parts(command: str, parser: argparse.ArgumentParser) -> list[str]:
    """What in `review …` the command line does not know: the command, a benchmark, an option."""
    words = [w for w in shlex.split(command.replace("…", " "), posix=True) if w not in ("[", "]", "|")][1:]
    words = [w.strip("[]") for w in words]
    commands = _subparsers(parser)
    first = next((w for i, w in enumerate(words) if not w.startswith("-") and not _is_value(words, i, parser)), None)
    if first in commands:
        target = commands[first]
        benchmarks = _subparsers(target)
        rest = words[words.index(first) + 1 :]
        second = next((w for w in rest if not w.startswith("-")), None)
        if benchmarks and second is not None and second.isupper() is False and second in benchmarks:
            target = benchmarks[second]
        elif benchmarks and second is not None and not second.isupper():
            return [f"{first} {second}"]
    elif first is not None and first.islower() and "/" not in first and "." not in first:
        # Lower case and not a path: a command it does not have (`review trige`).
        if first not in MISTYPED_ON_PURPOSE:
            return [first]
        return []
    else:
        # `review COHORT …`: the console, with the options `review --help` lists.
        target = commands["open"]
    known = _options(target) | _options(parser)
    return [w.split("=")[0] for w in words if w.startswith("--") and w.split("=")[0] not in known]


def test_every_review_command_and_option_the_docs_name_exists():
    parser = registry.build_parser()
    wrong = []
    seen = 0
    for doc in DOCS:
        for command in command_lines(doc.read_text()):
            seen += 1
            wrong += [f"{doc.relative_to(ROOT)}: `{command}`: {part}" for part in unknown_parts(command, parser)]
    assert seen > 50, "the docs were read"
    assert not wrong, "\n".join(wrong)


def test_the_command_check_notices_what_the_command_line_does_not_have():
    parser = registry.build_parser()
    text = "run `review triage COHORT --jsn`, then\n```\nreview harness SUB [--check]\n   [--nosuch]\n```\n"
    assert command_lines(text) == ["review triage COHORT --jsn", "review harness SUB [--check] [--nosuch]"]
    assert unknown_parts("review triage COHORT --jsn", parser) == ["--jsn"]
    assert unknown_parts("review harness SUB [--check] [--nosuch]", parser) == ["--nosuch"]
    assert unknown_parts("review shw SUB", parser) == ["shw"]
    assert unknown_parts("review bench nosuch", parser) == ["bench nosuch"]
    assert unknown_parts("review bench goals --markdown", parser) == []
    assert unknown_parts("review COHORT --reviewer bob --theme x", parser) == []
    assert unknown_parts("review --reviewer bob COHORT", parser) == []
    assert unknown_parts('review serve "$(review demo --build-only)"', parser) == []


# ---------------------------------------------------------------- links


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text())
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def broken_links(doc: Path) -> list[str]:
    broken = []
    # Not inside code: `Generated with [Name](url)` quotes a commit's footer.
    prose = re.sub(r"`[^`\n]+`", "", FENCE.sub("", doc.read_text()))
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"[a-z]+://|mailto:", target):
            continue
        file_part, _, anchor = target.partition("#")
        if target.startswith("/") or ".." in Path(file_part).parts:
            broken.append(f"{target}: not relative inside the repository")
            continue
        path = (doc.parent / file_part.replace("%5B", "[").replace("%5D", "]")) if file_part else doc
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{target}: no such heading")
    return broken


def test_every_link_in_the_readme_and_the_docs_lands():
    broken = [f"{doc.relative_to(ROOT)}: {line}" for doc in DOCS for line in broken_links(doc)]
    assert not broken, "\n".join(broken)


def test_the_link_check_notices_a_missing_page_and_heading(tmp_path):
    (tmp_path / "a.md").write_text("# A page\n\n## `review triage --json`\n")
    doc = tmp_path / "b.md"
    doc.write_text("[ok](a.md#review-triage---json) [x](a.md#nope) [y](c.md) [z](/etc/passwd) [w](#a-page)\n")
    assert broken_links(doc) == [
        "a.md#nope: no such heading",
        "c.md: no such file",
        "/etc/passwd: not relative inside the repository",
        "#a-page: no such heading",
    ]


def test_the_readme_screenshot_is_a_snapshot_the_tests_draw():
    image = re.search(r"!\[[^\]]*\]\(([^)]+\.svg)\)", README.read_text())
    assert image, "the README shows the submission screen"
    path = ROOT / image.group(1).replace("%5B", "[").replace("%5D", "]")
    assert path.is_file() and path.parent.parent.name == "__snapshots__"
    assert "TestSubmissionScreen" in path.name


# ---------------------------------------------------------------- keys


def test_the_keys_page_is_what_the_bindings_say():
    assert (ROOT / "docs" / "keys.md").read_text() == keys_page.render(), (
        "docs/keys.md is stale: run python -m review.devtools.keys_page"
    )


def test_the_keys_page_lists_every_binding_id_once():
    from review.tui import keymap

    listed = re.findall(r"\| `([\w.-]+)` \|$", keys_page.render(), re.M)
    assert sorted(listed) == sorted(keymap.known_binding_ids())


def test_the_keys_page_check_says_when_the_page_is_stale(tmp_path, capsys):
    page = tmp_path / "keys.md"
    assert keys_page.main([str(page), "--check"]) == 1
    assert keys_page.main([str(page)]) == 0 and keys_page.main([str(page), "--check"]) == 0
    page.write_text(page.read_text().replace("`triage.filter`", "`triage.find`"))
    assert keys_page.main([str(page), "--check"]) == 1
    assert "keys_page" in capsys.readouterr().err


# ---------------------------------------------------------------- shape


def test_the_readme_opens_with_the_two_commands_ci_runs_and_stays_short():
    lines = README.read_text().splitlines()
    assert len(lines) <= 250
    commands = [line.strip() for line in lines[:12] if line.startswith("    ")]
    assert len(commands) == 2 and commands[0].endswith(".venv/bin/review demo")
    # .ci/run runs the README's test command verbatim.
    assert commands[1] in (ROOT / ".ci" / "run").read_text().splitlines()


def test_code_blocks_in_the_docs_fit_80_columns():
    wide = []
    for doc in DOCS:
        for block in FENCE.findall(doc.read_text()):
            wide += [f"{doc.relative_to(ROOT)}: {line}" for line in block.splitlines() if len(line) > 80]
    assert not wide, "\n".join(wide)


def test_the_readme_says_what_q_does_where_the_bindings_say():
    """q goes back from a submission (as in tig) and quits from triage: the README's keys say so,
    never "q quits" alone."""
    from review.tui.app import ReviewApp
    from review.tui.screens.submission.screen import SubmissionScreen

    def action(cls: type, key: str) -> str:
        return next(b.action for b in cls.BINDINGS if key in b.key.split(","))  # type: ignore[attr-defined]

    assert (action(SubmissionScreen, "q"), action(ReviewApp, "q")) == ("back", "quit")
    text = README.read_text()
    keys = text[text.index("## The ten keys") : text.index("## Commands")]
    [said] = [sentence for sentence in " ".join(keys.split()).split(". ") if "`q`" in sentence]
    assert "back to triage" in said and "quits" in said, said
