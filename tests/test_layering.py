"""The layering DESIGN.md promises: no import cycle between modules, nor between the
subpackages (and top-level modules) of satdoku/, counting imports inside functions too."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "satdoku"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str) -> set[str]:
    """Every satdoku module a file imports, wherever the import statement stands."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("satdoku"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            if mod.startswith("satdoku"):
                out.add(mod)
                out.update(f"{mod}.{a.name}" for a in node.names)  # `from pkg import module`
    return out


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        graph[name] = {m for m in _imports(path, name) if m in files and m != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of a directed graph (as a list of nodes), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return [*stack[stack.index(m):], m]
            if m not in state and (found := visit(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)):
            return found
    return None


def _unit(module: str) -> str:
    """The layer unit of a module: its subpackage, or itself for a top-level module."""
    parts = module.split(".")
    return ".".join(parts[:2])


def test_no_cycle_between_modules() -> None:
    cycle = _cycle({n: {m for m in deps if not n.startswith(m + ".")}  # a package's own
                    for n, deps in _graph().items()})                    # __init__ aside
    assert cycle is None, " -> ".join(cycle or [])


def test_no_cycle_between_subpackages() -> None:
    units: dict[str, set[str]] = {}
    for n, deps in _graph().items():
        units.setdefault(_unit(n), set()).update(_unit(m) for m in deps if _unit(m) != _unit(n))
    cycle = _cycle(units)
    assert cycle is None, " -> ".join(cycle or [])


def test_puzzle_imports_nothing_of_ours() -> None:
    assert _graph()["satdoku.puzzle"] == set()
