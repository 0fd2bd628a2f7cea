"""The cl100k_base token counter: offline, pinned, identical to tiktoken's definition."""

from __future__ import annotations

import hashlib
import inspect
import socket

import pytest
import tiktoken
from agentmaker.rag.chunking import tokens
from agentmaker.resources import resource_path
from tiktoken_ext import openai_public

CL100K_FULL_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


def test_bundled_file_matches_the_pinned_sha256() -> None:
    data = resource_path("tiktoken", "cl100k_base.tiktoken").read_bytes()
    assert hashlib.sha256(data).hexdigest() == CL100K_FULL_SHA256 == tokens.CL100K_SHA256
    # tiktoken pins the same hash for its own download.
    assert CL100K_FULL_SHA256 in inspect.getsource(openai_public.cl100k_base)


def test_loads_with_the_network_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise OSError("network disabled in this test")

    def no_download(*args: object, **kwargs: object) -> None:
        raise AssertionError("tiktoken.get_encoding downloads; it must not be called")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(tiktoken, "get_encoding", no_download)
    tokens._bundle.cache_clear()
    try:
        assert tokens.encode("hello world") == [15339, 1917]
        assert tokens.count_tokens("hello world") == 2
        assert tokens.decode([15339, 1917]) == "hello world"
    finally:
        tokens._bundle.cache_clear()


def test_same_definition_as_tiktoken_ext(monkeypatch: pytest.MonkeyPatch) -> None:
    """Our hand-built Encoding uses exactly the pattern and special tokens of
    tiktoken_ext.openai_public.cl100k_base (its rank loader is stubbed: no download)."""
    ranks = tokens._load_ranks()
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: ranks)
    reference = openai_public.cl100k_base()
    encoding = tokens.get_encoding()
    assert reference["name"] == encoding.name
    assert reference["pat_str"] == tokens.CL100K_PAT_STR
    assert reference["special_tokens"] == tokens.CL100K_SPECIAL_TOKENS
    assert encoding.n_vocab == 100277


def test_special_token_text_is_plain_text() -> None:
    # A document mentioning <|endoftext|> must not raise nor become a control token.
    ids = tokens.encode("a <|endoftext|> b")
    assert 100257 not in ids
    assert tokens.decode(ids) == "a <|endoftext|> b"


def test_offsets_never_split_a_character() -> None:
    text = "naïve 日本語 text 😀 end"
    ids, offsets = tokens.encode_with_offsets(text)
    assert len(ids) == len(offsets)
    assert offsets == sorted(offsets)
    assert offsets[0] == 0 and offsets[-1] < len(text)


def test_long_text_fast_path_is_exact() -> None:
    text = ("Tolstoy wrote  long\tbooks, 1869. 日本語のテキスト。\n\n" * 9000)[:300_000]
    assert len(text) > tokens._LONG_TEXT_CHARS
    assert tokens.count_tokens(text) == len(tokens.encode(text))


def test_max_token_chars_bounds_tokens() -> None:
    assert tokens.max_token_chars() == 128
    text = "x" * 1000
    assert tokens.count_tokens(text) >= len(text) / tokens.max_token_chars()


def test_huge_whitespace_run_does_not_crash_tiktoken() -> None:
    # tiktoken alone panics (stack overflow) on "a" + 1M spaces + "b".
    text = "a" + " " * 1_000_000 + "b"
    ids = tokens.encode(text)
    assert tokens.decode(ids) == text
    assert 7000 < tokens.count_tokens(text) == len(ids) < 9000
    ids_with_offsets, offsets = tokens.encode_with_offsets(text)
    assert ids_with_offsets == ids and offsets[-1] == len(text) - 2  # " b"
