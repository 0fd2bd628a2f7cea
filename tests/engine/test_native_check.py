"""The self-test's check of the native search libraries: passes with them, names the one
an installer left out."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentmaker.native_check import check_search_libraries
from agentmaker.retrieval.sqlite import graph_index, tantivy_index


def test_both_libraries_work_here(tmp_path: Path) -> None:
    assert check_search_libraries(tmp_path) == []
    assert (tmp_path / "keywords").is_dir()


@pytest.mark.parametrize(
    ("module", "name", "library"),
    [(graph_index, "_usearch", "usearch"), (tantivy_index, "_tantivy", "tantivy")],
)
def test_a_missing_library_is_named(tmp_path: Path, monkeypatch, module, name, library) -> None:  # type: ignore[no-untyped-def]
    def missing() -> None:
        raise ImportError(f"No module named '{library}'")

    monkeypatch.setattr(module, name, missing)
    problems = check_search_libraries(tmp_path)
    assert len(problems) == 1 and f"({library}) does not work" in problems[0]
    assert f"No module named '{library}'" in problems[0]
