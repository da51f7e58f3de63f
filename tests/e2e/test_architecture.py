"""The rules the layers rest on, read from the source itself (import-linter checks the imports in CI;
these check what imports cannot show)."""

from __future__ import annotations

import ast
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "review"
SPAWNERS = {"run", "Popen", "check_output", "check_call", "call", "create_subprocess_exec", "create_subprocess_shell"}
# A module longer than this says why below. Length is not the measure of a job (a function doing too
# much is, and ruff checks that); a long module is where to look first. Counted in logical lines (statements
# and comments), so the formatter's line breaks do not move a module across it.
LONG = 450
# Nothing sits just under the limit: a module trimmed to pass it was split by its length, not its jobs.
NEAR = 10
LONG_MODULES = {
    "tui/screens/submission/screen.py": (
        "the submission screen: five panes composed once, their arrangement on any terminal and the "
        "messages between them; what it does with them is its helpers' beside it (deferred, scoring, "
        "navigation, runs)"
    ),
}


def logical_lines(path: Path) -> int:
    """Statements and comments: what a module holds, however the formatter wraps it."""
    with path.open("rb") as source:
        return sum(1 for t in tokenize.tokenize(source.readline) if t.type in (tokenize.NEWLINE, tokenize.COMMENT))


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
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in SPAWNERS and _first_word(node) == "git":
                    offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []


def test_the_check_above_would_see_a_git_call(tmp_path):
    sample = "import subprocess\nsubprocess.run(['git', 'status'])\n"
    calls = [n for n in ast.walk(ast.parse(sample)) if isinstance(n, ast.Call)]
    assert any(getattr(c.func, "attr", "") in SPAWNERS and _first_word(c) == "git" for c in calls)


def test_a_long_module_says_why_and_none_sits_just_under_the_limit():
    lengths = {str(p.relative_to(SRC)): logical_lines(p) for p in modules()}
    assert {name for name, n in lengths.items() if n > LONG} == set(LONG_MODULES)
    assert {name: n for name, n in lengths.items() if LONG - NEAR <= n <= LONG} == {}


def test_no_function_is_past_the_complexity_limits_unless_pyproject_says_why():
    """ruff's C901 (branches) and PLR0915 (statements) with the limits and the reasoned exceptions in
    pyproject.toml: the gate a module's length only stood in for."""
    gate = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "C901,PLR0915", "--output-format", "concise", str(SRC)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert gate.returncode == 0, gate.stdout


def test_the_complexity_gate_sees_a_function_doing_too_much(tmp_path):
    branches = "\n".join(f"    if x == {n}:\n        return {n}" for n in range(20))
    (tmp_path / "big.py").write_text(f"def big(x):\n{branches}\n    return -1\n")
    gate = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--config",
            str(ROOT / "pyproject.toml"),
            "--select",
            "C901",
            str(tmp_path / "big.py"),
        ],
        capture_output=True,
        text=True,
    )
    assert gate.returncode == 1 and "`big` is too complex (21 > 15)" in gate.stdout
