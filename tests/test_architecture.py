"""The package's shape, checked from its source: no import cycle, and each edge in one place.

Imports inside functions count (they hide cycles, they do not remove them), and so do imports
under ``if TYPE_CHECKING:`` for cycles (they never run, but two modules that know each other's
types are one module split in two; mypy and import graphs see the cycle). Third-party edges
are checked on run-time imports only.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "wagtail_bulk_translate"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    module_name(path): path for path in sorted(ROOT.rglob("*.py")) if "migrations" not in path.parts
}


def is_type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if is_type_checking_block(node):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def imported_names(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """Absolute names of what an import statement loads (a module or a module's attribute)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    if node.level:
        base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
        base = f"{base}.{node.module}" if node.module else base
    else:
        base = node.module or ""
    return [f"{base}.{alias.name}" for alias in node.names] + [base]


def all_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def package_edges(module: str, *, type_checking: bool = True) -> set[str]:
    """Modules of the package that ``module`` imports (at run time only, unless
    ``type_checking``: then its imports for type checkers too)."""
    edges = set()
    tree = ast.parse(MODULES[module].read_text())
    for node in (all_imports if type_checking else runtime_imports)(tree):
        for name in imported_names(module, node):
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            # A module's parent packages are loaded before it: not an edge that can cycle.
            if name.startswith(PACKAGE) and not module.startswith(f"{name}.") and name != module:
                edges.add(name)
    return edges


def third_party_imports(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text())
    names: set[str] = set()
    for node in runtime_imports(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a path that ends where it starts, or None."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_cycle_finder_finds_cycles():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_imports_inside_functions_count_and_type_checking_ones_do_not():
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .models import Run\n"
        "def f():\n    from .tasks import process_units\n"
    )
    assert sorted(node.module for node in runtime_imports(tree)) == ["tasks", "typing"]


def test_no_import_cycle_inside_the_package():
    graph = {module: package_edges(module) for module in MODULES}
    assert find_cycle(graph) is None, " → ".join(find_cycle(graph) or [])


def test_imports_for_type_checkers_count_for_cycles_only():
    tree = ast.parse(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .translator import T\n"
    )
    assert "translator" in {node.module for node in all_imports(tree)}
    assert "translator" not in {node.module for node in runtime_imports(tree)}


@pytest.mark.parametrize(
    ("library", "allowed"),
    [
        ("wagtail_localize", (f"{PACKAGE}.localize", f"{PACKAGE}.translators")),
        ("deepl", (f"{PACKAGE}.translators.deepl",)),
        ("openai", (f"{PACKAGE}.translators.llm.http",)),
    ],
)
def test_libraries_are_imported_at_their_edge_only(library, allowed):
    offenders = [
        module
        for module in MODULES
        if library in third_party_imports(module) and not module.startswith(allowed)
    ]
    assert offenders == []


def test_only_schedule_enqueues_tasks():
    offenders = [
        module
        for module, path in MODULES.items()
        if ".enqueue(" in path.read_text() and module != f"{PACKAGE}.schedule"
    ]
    assert offenders == []


def test_no_module_is_longer_than_400_lines():
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}
