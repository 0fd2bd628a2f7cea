"""The walls between the packages: no import circles between files, and who may import whom.

Type-only imports (under ``TYPE_CHECKING``) count: a type is a dependency too. A package's
``__init__`` may re-export its children without making a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.paths import REPO

PACKAGES = {"agentmaker": REPO / "engine", "agentmaker_desk": REPO / "gui"}
QT = ("PySide6", "PyQt5", "PyQt6", "qasync", "shiboken6")
# The window's parts that draw things; they reach the engine only through the bridge.
WIDGET_PACKAGES = ("library", "chat", "settings", "widgets")
# Data-file lookup is not engine behaviour: widgets may find icons and translations with it.
WIDGET_ALLOWED = {"agentmaker.resources"}


def _modules() -> dict[str, Path]:
    mods = {}
    for top, base in PACKAGES.items():
        for path in sorted((base / top).rglob("*.py")):
            name = ".".join(path.relative_to(base).with_suffix("").parts)
            mods[name.removesuffix(".__init__")] = path
    return mods


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Every module (of any package) that ``name`` imports, resolved to dotted names."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _own(target: str) -> str | None:
    """The project module a dotted import name lands in (None: not ours)."""
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target or None


def _edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        out = set()
        for imported in _imports(name, path):
            target = _own(imported)
            if target is None or target == name or MODULES[target].name == "__init__.py":
                continue
            out.add(target)
        edges[name] = out
    return edges


def test_no_import_circles_between_files() -> None:
    edges = _edges()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in edges:
        if module not in index:
            visit(module)
    assert circles == []


def _violations(rule) -> list[str]:  # type: ignore[no-untyped-def]
    bad = []
    for name, path in MODULES.items():
        for imported in sorted(_imports(name, path)):
            if rule(name, imported):
                bad.append(f"{name} imports {imported}")
    return bad


def test_engine_never_imports_qt() -> None:
    assert (
        _violations(lambda mod, imp: mod.startswith("agentmaker.") and imp.split(".")[0] in QT)
        == []
    )


def test_retrieval_never_imports_rag() -> None:
    assert (
        _violations(
            lambda mod, imp: (
                mod.startswith("agentmaker.retrieval") and imp.startswith("agentmaker.rag")
            )
        )
        == []
    )


def test_only_the_library_facade_wires_in_conversations() -> None:
    # Conversations sit on top of rag and retrieval; neither may lean on them.
    assert (
        _violations(
            lambda mod, imp: (
                mod.startswith(("agentmaker.rag", "agentmaker.retrieval", "agentmaker.models"))
                and imp.startswith("agentmaker.conversations")
            )
        )
        == []
    )


def test_rag_reaches_models_only_through_the_llm_port() -> None:
    assert (
        _violations(
            lambda mod, imp: (
                mod.startswith("agentmaker.rag")
                and imp.startswith("agentmaker.models")
                and imp not in {"agentmaker.models", "agentmaker.models.llm"}
                and not imp.startswith("agentmaker.models.llm.")
            )
        )
        == []
    )


@pytest.mark.parametrize("package", WIDGET_PACKAGES)
def test_widgets_reach_the_engine_only_through_the_bridge(package: str) -> None:
    prefix = f"agentmaker_desk.{package}"
    assert (
        _violations(
            lambda mod, imp: (
                (mod == prefix or mod.startswith(prefix + "."))
                and (imp == "agentmaker" or imp.startswith("agentmaker."))
                and _own(imp) not in WIDGET_ALLOWED
            )
        )
        == []
    )


def test_the_rules_see_a_violation(tmp_path: Path) -> None:
    """The walker really finds imports (a rule over nothing would always pass)."""
    edges = _edges()
    assert "agentmaker.rag.ingest.batch" in edges["agentmaker.rag.ingest.pipeline"]
    assert any(
        imp.startswith("PySide6")
        for imp in _imports("agentmaker_desk.app", MODULES["agentmaker_desk.app"])
    )
