"""Errors carry a stable code and the values of their message, so an app can show them
in its own language; ``str(error)`` stays the English sentence."""

from __future__ import annotations

import asyncio
import pickle
import socket
from pathlib import Path

import pytest
from agentmaker.errors import (
    AgentmakerError,
    DiskFullError,
    DocumentError,
    InvalidQueryError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelNotFoundError,
    PasswordRequiredError,
)
from agentmaker.models.llm import ChatMessage
from agentmaker.models.openai_llm import OpenAICompatibleLLM
from agentmaker.rag.ingest.batch import failed_outcome
from agentmaker.rag.readers import read_file
from agentmaker.retrieval.queries import check_query
from agentmaker.testing.openai_server import FakeOpenAIServer


def _error(path: Path, **kwargs) -> DocumentError:
    with pytest.raises(DocumentError) as caught:
        read_file(path, **kwargs)
    return caught.value


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("libreoffice-writer-password.pdf", "password_required"),
        ("empty.pdf", "empty"),
        ("empty.md", "empty"),
        ("fr_olap-truncated.pdf", "corrupt"),
        ("handbook-1p-truncated.docx", "corrupt"),
        ("loremipsum-flat.pdf", "no_text_layer"),
    ],
)
def test_file_errors_have_a_code_and_the_file_name(bad_dir: Path, name: str, code: str) -> None:
    error = _error(bad_dir / name)
    assert error.code == code
    assert error.params["file"] == name
    assert str(error).startswith(f"{name}: ")  # the English message is unchanged


def test_missing_unsupported_and_too_large_files(tmp_path: Path) -> None:
    missing = _error(tmp_path / "gone.md")
    assert (missing.code, missing.params) == ("file_missing", {"file": "gone.md"})
    (tmp_path / "song.mp3").write_bytes(b"ID3")
    unsupported = _error(tmp_path / "song.mp3")
    assert unsupported.code == "unsupported_type"
    assert unsupported.params["extension"] == ".mp3"
    (tmp_path / "big.txt").write_text("word " * 400_000, encoding="utf-8")
    big = _error(tmp_path / "big.txt", max_bytes=1024**2)
    assert big.code == "too_large"
    assert big.params == {"file": "big.txt", "size_mb": "1.9", "limit_mb": "1.0"}


def test_codes_survive_the_trip_from_the_reader_process(bad_dir: Path) -> None:
    error = _error(bad_dir / "libreoffice-writer-password.pdf")
    copy = pickle.loads(pickle.dumps(error))
    assert isinstance(copy, PasswordRequiredError)
    assert (copy.code, copy.params, str(copy)) == (error.code, error.params, str(error))


def test_a_failed_file_outcome_carries_the_code(bad_dir: Path, tmp_path: Path) -> None:
    path = str(bad_dir / "empty.md")
    outcome = failed_outcome(path, _error(Path(path)))
    assert (outcome.error_code, outcome.error_params) == ("empty", {"file": "empty.md"})
    assert outcome.error_kind == "empty"
    locked = failed_outcome(str(tmp_path / "x.pdf"), PermissionError(13, "denied"))
    assert (locked.error_code, locked.error_params) == ("file_locked", {"file": "x.pdf"})


def test_query_errors() -> None:
    with pytest.raises(InvalidQueryError) as empty:
        check_query("  ?! ")
    assert empty.value.code == "query_empty"
    with pytest.raises(InvalidQueryError) as long:
        check_query("word " * 5000)
    assert long.value.code == "query_too_long"
    assert set(long.value.params) == {"length", "limit"}


def _ask(llm: OpenAICompatibleLLM) -> AgentmakerError:
    with pytest.raises(AgentmakerError) as caught:
        asyncio.run(llm.complete([ChatMessage("user", "hi")]))
    return caught.value


def test_server_errors_name_the_server_and_the_model() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = _ask(OpenAICompatibleLLM("m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0))
    assert isinstance(down, ModelConnectionError)
    assert down.code == "server_unreachable"
    assert str(port) in down.params["url"]

    with FakeOpenAIServer(api_key="right", models=["llama3"]) as server:
        rejected = _ask(OpenAICompatibleLLM("llama3", base_url=server.base_url, api_key="wrong"))
        missing = _ask(OpenAICompatibleLLM("nope", base_url=server.base_url, api_key="right"))
    assert isinstance(rejected, ModelAuthenticationError)
    assert rejected.code == "auth_rejected" and "127.0.0.1" in rejected.params["url"]
    assert isinstance(missing, ModelNotFoundError)
    assert (missing.code, missing.params["model"]) == ("model_missing", "nope")


def test_every_error_class_has_its_own_code() -> None:
    import agentmaker.errors as errors

    classes = [
        c
        for c in vars(errors).values()
        if isinstance(c, type) and issubclass(c, AgentmakerError) and c is not AgentmakerError
    ]
    assert len(classes) > 25
    assert [c.__name__ for c in classes if "code" not in vars(c)] == []
    assert DiskFullError("The disk is full.").code == "disk_full"
