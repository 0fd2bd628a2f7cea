"""GGUF header checks, the model catalog and the store of installed models."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentmaker.errors import ModelFileError, StorageError
from agentmaker.models.gguf import read_gguf
from agentmaker.models.model_catalog import find_model, load_catalog, recommend
from agentmaker.models.model_store import ModelStore

from tests.gguf_files import write_gguf

GB = 1_000_000_000


def test_reads_the_real_tiny_model(tiny_gguf: Path) -> None:
    info = read_gguf(tiny_gguf)
    assert (info.version, info.architecture, info.quantization) == (3, "llama", "Q4_1")
    assert info.context_length == 8192 and info.has_chat_template
    assert info.tensor_count > 100 and info.size_bytes == tiny_gguf.stat().st_size


def test_a_png_renamed_gguf_is_named_as_such(tmp_path: Path) -> None:
    fake = tmp_path / "holiday.gguf"
    fake.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 100)
    with pytest.raises(
        ModelFileError,
        match=r"holiday\.gguf: This is not a GGUF model file "
        r"\(it looks like a PNG image\)",
    ):
        read_gguf(fake)


def test_a_truncated_file_says_download_again(tmp_path: Path, tiny_gguf: Path) -> None:
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(tiny_gguf.read_bytes()[:50_000_000])  # header whole, tensors missing
    with pytest.raises(ModelFileError, match=r"cut short.*Download it again"):
        read_gguf(cut)
    head_only = tmp_path / "head.gguf"
    head_only.write_bytes(tiny_gguf.read_bytes()[:1000])  # cut inside the metadata
    with pytest.raises(ModelFileError, match="cut short"):
        read_gguf(head_only)


def test_unsupported_and_non_chat_architectures(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match=r"embedding model.*not a chat model"):
        read_gguf(write_gguf(tmp_path / "bert.gguf", architecture="bert"))
    with pytest.raises(ModelFileError, match="'quantumnet' is not one the built-in runtime"):
        read_gguf(write_gguf(tmp_path / "q.gguf", architecture="quantumnet"))
    with pytest.raises(ModelFileError, match="GGUF version 1 is not supported"):
        read_gguf(write_gguf(tmp_path / "old.gguf", version=1))
    ok = read_gguf(write_gguf(tmp_path / "fine.gguf"))
    assert (ok.architecture, ok.quantization, ok.context_length) == ("llama", "Q4_K_M", 4096)


def test_catalog_entries_and_recommendation_by_memory() -> None:
    catalog = load_catalog()
    ids = [m.id for m in catalog]
    assert ids == ["qwen2.5-1.5b-instruct", "qwen2.5-3b-instruct", "llama3.2-3b-instruct"]
    for entry in catalog:
        assert entry.url.startswith("https://") and entry.url.endswith(entry.file_name)
        assert entry.licence and entry.languages and entry.ram_bytes > 0
        assert (entry.sha256 is None) == (entry.size_bytes is None)  # both checked, or none
    assert recommend(4 * GB).id == "qwen2.5-1.5b-instruct"
    assert recommend(16 * GB).id == "qwen2.5-3b-instruct"  # Qwen first among equals
    assert recommend(1 * GB).id == "qwen2.5-1.5b-instruct"  # the smallest, whatever the RAM
    assert find_model("QWEN2.5-1.5B-INSTRUCT-Q4_K_M.GGUF") == catalog[0]
    assert find_model("qwen") is None


def test_store_lists_links_and_removes(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    assert store.list() == []
    (tmp_path / "models").mkdir()
    downloaded = write_gguf(tmp_path / "models" / "qwen2.5-1.5b-instruct-q4_k_m.gguf")
    elsewhere = write_gguf(tmp_path / "mine.gguf", name="Mine")
    model, info = store.link(elsewhere)
    assert model.linked and info.name == "Mine"
    names = [(m.name, m.linked) for m in store.list()]
    assert names == [("qwen2.5-1.5b-instruct", False), ("mine", True)]
    assert store.find("Qwen2.5 1.5B Instruct (Q4_K_M)").path == downloaded
    store.remove("mine")  # forgotten, the person's own file stays
    assert elsewhere.exists() and [m.name for m in store.list()] == ["qwen2.5-1.5b-instruct"]
    store.remove("qwen2.5-1.5b-instruct")
    assert not downloaded.exists() and store.list() == []
    with pytest.raises(StorageError, match="No installed model is called 'nope'"):
        store.remove("nope")
    png = tmp_path / "x.gguf"
    png.write_bytes(b"\x89PNG....")
    with pytest.raises(ModelFileError, match="PNG"):
        store.link(png)
    assert store.list() == []
