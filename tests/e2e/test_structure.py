"""The shape of the source tree, drawn from the source itself: every module's imports (at the top, in
a function, or for type checking only: each is an edge), no circle among them, and no module outside
the layers' folders."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "review"
LAYERS = ("cli", "devtools", "tui", "services", "harness", "gitsafe", "core", "support")
TOP_LEVEL = {"__init__.py", "__main__.py"}


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports. `from package import name` is an edge
    to package.name when that is a module, else to the package."""
    paths = {module_name(root, path): path for path in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in paths else base for alias in node.names]
            for target in targets:
                # `import a.b.c` names a.b.c; the nearest module of ours it reaches.
                while target and target not in paths:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def outside_layers(root: Path) -> list[str]:
    """Modules that are neither the package's own __init__/__main__ nor inside a layer's folder."""
    stray = []
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).parts
        if (parts[0] not in TOP_LEVEL) if len(parts) == 1 else (parts[0] not in LAYERS):
            stray.append("/".join(parts))
    return sorted(stray)


def test_no_module_imports_its_way_back_to_itself():
    graph = import_graph(SRC)
    assert len(graph) > 50 and any(graph.values())
    assert cycles(graph) == []


def test_every_module_sits_in_a_layer_folder():
    assert outside_layers(SRC) == []


def test_the_drawing_sees_a_circle_and_a_stray_module(tmp_path):
    root = tmp_path / "review"
    (root / "gitsafe").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "gitsafe" / "__init__.py").write_text("")
    (root / "gitsafe" / "clone.py").write_text("from review.gitsafe.repo import SafeRepo\n")
    # A lazy import inside a function is an edge too.
    (root / "gitsafe" / "repo.py").write_text("def fetch():\n    from review.gitsafe import clone\n")
    (root / "gitsafe" / "head.py").write_text("from . import env\n")
    (root / "gitsafe" / "env.py").write_text("import review.gitsafe.head\n")
    (root / "stray.py").write_text("from review import gitsafe\n")
    graph = import_graph(root)
    assert graph["review.stray"] == {"review.gitsafe"}
    assert cycles(graph) == [
        ["review.gitsafe.clone", "review.gitsafe.repo"],
        ["review.gitsafe.env", "review.gitsafe.head"],
    ]
    assert outside_layers(root) == ["stray.py"]
