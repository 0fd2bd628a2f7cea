"""A real library file with a small expense policy, for the conversation tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder

POLICY = (
    "# Expense Policy\n\n"
    "## Meals\nThe daily meal allowance is 80 euros, and no receipt is needed for meals.\n\n"
    "## Lodging\nHotels are capped at 500 per night; a receipt is required for every hotel.\n\n"
    "## Travel\nTrain tickets are refunded in second class only.\n"
)


@pytest.fixture
def library_path(tmp_path: Path) -> Path:
    return tmp_path / "lib.sqlite"


@pytest.fixture
def library(library_path: Path) -> Iterator[Library]:
    lib = Library.open(library_path, embedder=FakeEmbedder())
    lib.pipeline.ingest_text(POLICY, source="policy.md")
    yield lib
    lib.close()
