"""Which built-in embedder a library opens with: new libraries get the multilingual model,
existing ones keep the built-in model they were made with."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentmaker.errors import EmbeddingModelMismatchError
from agentmaker.library import DEFAULT_LOCAL_MODEL, Library, builtin_model_of
from agentmaker.models import local_embedder
from agentmaker.models.local_embedder import E5_SMALL, MINILM, LocalEmbedder
from agentmaker.testing import FakeEmbedder

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def private_model_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Derived models go to a temporary folder, never the user's cache."""
    folder = tmp_path_factory.getbasetemp() / "model-cache"
    monkeypatch.setattr(local_embedder, "default_cache_dir", lambda: folder)


def test_a_new_library_is_multilingual(tmp_path: Path) -> None:
    assert DEFAULT_LOCAL_MODEL == E5_SMALL
    library = Library.open(tmp_path / "new.sqlite")
    try:
        assert isinstance(library.embedder, LocalEmbedder)
        assert library.embedder.model == E5_SMALL
        library.pipeline.ingest_text("差旅住宿标准：一线城市酒店每晚不超过600元。", doc_id="policy")
        hits = library.rag.retrieve("What is the hotel limit per night?", top_k=1)
        assert hits and hits[0].metadata["doc_id"] == "policy"
        assert builtin_model_of(library.db) == E5_SMALL
    finally:
        library.close()


def test_an_existing_minilm_library_keeps_minilm(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    library = Library.open(path, embedder=LocalEmbedder())
    library.pipeline.ingest_text("The hotel limit is 600 yuan per night.", doc_id="policy")
    library.close()
    again = Library.open(path)
    try:
        assert isinstance(again.embedder, LocalEmbedder) and again.embedder.model == MINILM
        assert (
            again.rag.retrieve("hotel limit per night", top_k=1)[0].metadata["doc_id"] == "policy"
        )
    finally:
        again.close()


def test_a_library_of_another_model_still_asks_for_it(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite"
    Library.open(path, embedder=FakeEmbedder(384)).close()
    with pytest.raises(EmbeddingModelMismatchError):
        Library.open(path)
