"""The rules the layers rest on, read from the source itself (import-linter checks the imports in CI;
these check what imports cannot show)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "review"
SPAWNERS = {"run", "Popen", "check_output", "check_call", "call", "create_subprocess_exec", "create_subprocess_shell"}
MAX_LINES = 450  # "about 400": a module past it is doing more than one job


def modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _first_word(call: ast.Call) -> str | None:
    if not call.args:
        return None
    first = call.args[0]
    if isinstance(first, (ast.List, ast.Tuple)) and first.elts:
        first = first.elts[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def test_only_gitsafe_starts_git():
    offenders = []
    for path in modules():
        if "gitsafe" in path.relative_to(SRC).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if name in SPAWNERS and _first_word(node) == "git":
                    offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []


def test_the_check_above_would_see_a_git_call(tmp_path):
    sample = "import subprocess\nsubprocess.run(['git', 'status'])\n"
    calls = [n for n in ast.walk(ast.parse(sample)) if isinstance(n, ast.Call)]
    assert any(getattr(c.func, "attr", "") in SPAWNERS and _first_word(c) == "git" for c in calls)


def test_no_module_grows_past_one_job():
    long = {str(p.relative_to(SRC)): n for p in modules() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}
