"""LlamaCppLLM on a real tiny model (SmolLM2-135M): load, stream, stop, budget, offline."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentmaker.errors import ContextTooLongError, ModelLoadError, ModelRuntimeError
from agentmaker.models.llama_cpp import LlamaCppLLM
from agentmaker.models.llama_cpp_runtime import ChildRuntime
from agentmaker.models.llm import ChatMessage

QUESTION = [
    ChatMessage("system", "You answer in one short sentence."),
    ChatMessage("user", "What colour is the sky on a clear day?"),
]
STORY = [ChatMessage("user", "Write a very long story about a dog who travels the world.")]


@pytest.fixture(scope="module", params=["process", "thread"])
def llm(tiny_gguf: Path, request: pytest.FixtureRequest) -> Iterator[LlamaCppLLM]:
    """The same model run both ways: in a child process (the default) and a thread."""
    model = LlamaCppLLM(
        tiny_gguf,
        n_ctx=1024,
        answer_tokens=48,
        threads=2,
        idle_unload_s=None,
        isolation=request.param,
    )
    yield model
    model.close()


def _wait_until(condition, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_loads_lazily_and_streams_pieces(llm: LlamaCppLLM) -> None:
    async def run() -> list[str]:
        return [piece async for piece in llm.stream(QUESTION, max_tokens=24)]

    pieces = asyncio.run(run())
    assert llm.loaded
    assert len(pieces) > 1  # streamed, not one block
    assert "".join(pieces).strip()


def test_chat_template_comes_from_the_gguf(llm: LlamaCppLLM) -> None:
    prompt = llm.prompt_text(QUESTION)
    # SmolLM2's own ChatML template, read from the file's tokenizer.chat_template.
    assert "<|im_start|>system\nYou answer in one short sentence.<|im_end|>" in prompt
    assert prompt.rstrip().endswith("<|im_start|>assistant")
    # Counted as sent: the template's own tokens (<|im_start|>, roles) are included.
    bare = " ".join(m.content for m in QUESTION)
    runtime = llm._worker.submit(llm._ensure).result()
    bare_tokens = len(runtime.post("/tokenize", {"content": bare})["tokens"])
    assert llm.count_tokens(QUESTION) >= bare_tokens + 6


def test_goes_on_from_the_answers_beginning_and_keeps_to_a_grammar(llm: LlamaCppLLM) -> None:
    # A last assistant message is the answer's beginning: the prompt ends with it, open
    # (no end of turn), and the model writes only what follows; a GBNF grammar binds it.
    beginning = [*QUESTION, ChatMessage("assistant", "On a clear day the sky is")]
    prompt = llm.prompt_text(beginning)
    assert prompt.rstrip().endswith("On a clear day the sky is")
    assert llm.continues_answers

    async def run(grammar: str | None) -> str:
        pieces = llm.stream(beginning, max_tokens=12, grammar=grammar)
        return "".join([piece async for piece in pieces])

    assert asyncio.run(run('root ::= " bright green."')) == " bright green."
    free = asyncio.run(run(None))
    assert free.strip() and not free.lstrip().startswith("On a clear day")


def test_deterministic_at_temperature_zero(llm: LlamaCppLLM) -> None:
    first = asyncio.run(llm.complete(QUESTION, temperature=0, max_tokens=24))
    second = asyncio.run(llm.complete(QUESTION, temperature=0, max_tokens=24))
    assert first == second and first.strip()


def test_stop_mid_answer_frees_the_worker(llm: LlamaCppLLM) -> None:
    async def stop_after_two() -> list[str]:
        stream = llm.stream(STORY, max_tokens=400)
        got = []
        async for piece in stream:
            got.append(piece)
            if len(got) == 2:
                break
        await stream.aclose()
        return got

    got = asyncio.run(stop_after_two())
    assert len(got) == 2
    # The worker returns (llama.cpp stopped at its next token instead of writing 400).
    llm._worker.submit(lambda: None).result(timeout=120)
    # And the model answers the next question normally.
    again = asyncio.run(llm.complete(QUESTION, temperature=0, max_tokens=24))
    assert again == asyncio.run(llm.complete(QUESTION, temperature=0, max_tokens=24))


def test_a_crash_of_the_model_process_is_a_typed_error_and_the_next_answer_works(
    tiny_gguf: Path,
) -> None:
    killed: list[int] = []

    def kill_while_reading(processed: int, total: int) -> None:
        # Called from the worker as llama.cpp reports reading the prompt: the answer has
        # not been written yet, so the process dies mid-request (as when memory runs out).
        runtime = model._runtime
        if not killed and isinstance(runtime, ChildRuntime) and runtime.process.pid:
            killed.append(runtime.process.pid)
            os.kill(runtime.process.pid, signal.SIGKILL)

    model = LlamaCppLLM(
        tiny_gguf, n_ctx=1024, threads=2, idle_unload_s=None, on_progress=kill_while_reading
    )
    try:
        model.load()
        runtime = model._runtime
        assert isinstance(runtime, ChildRuntime)
        assert runtime.process.pid != os.getpid()  # llama.cpp is not in this process
        long_question = [ChatMessage("user", "Tell me about dogs and cats. " * 40)]
        with pytest.raises(ModelRuntimeError, match=r"stopped by the system \(signal 9"):
            asyncio.run(model.complete(long_question, max_tokens=64))
        assert killed == [runtime.process.pid]
        # The app survived; the next question starts a fresh model process.
        model.on_progress = None
        assert asyncio.run(model.complete(QUESTION, max_tokens=12)).strip()
        assert isinstance(model._runtime, ChildRuntime) and model._runtime is not runtime
    finally:
        model.close()


def test_the_model_process_ends_with_the_model(tiny_gguf: Path) -> None:
    model = LlamaCppLLM(tiny_gguf, n_ctx=512, threads=2, idle_unload_s=None)
    model.load()
    runtime = model._runtime
    assert isinstance(runtime, ChildRuntime) and runtime.alive
    model.unload()  # gives the memory back: the process is gone, not only the model
    assert not runtime.alive and runtime.process.exitcode == 0
    model.close()


def test_a_prompt_longer_than_the_context_is_refused_not_truncated(tiny_gguf: Path) -> None:
    small = LlamaCppLLM(tiny_gguf, n_ctx=256, answer_tokens=64, threads=2, idle_unload_s=None)
    try:
        long = [ChatMessage("user", "Tell me about cats. " * 60)]
        assert small.count_tokens(long) > 256 - 64
        with pytest.raises(ContextTooLongError, match="reads at most 256"):
            asyncio.run(small.complete(long))
    finally:
        small.close()


def test_unloads_after_idle_and_reloads_on_demand(tiny_gguf: Path) -> None:
    model = LlamaCppLLM(tiny_gguf, n_ctx=512, threads=2, idle_unload_s=0.2)
    try:
        assert not model.loaded
        model.load()
        assert model.loaded
        assert _wait_until(lambda: not model.loaded)
        assert asyncio.run(model.complete(QUESTION, max_tokens=8)).strip()
        model.unload()
        assert not model.loaded
    finally:
        model.close()


def test_a_missing_or_fake_model_file_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="missing"):
        asyncio.run(LlamaCppLLM(tmp_path / "gone.gguf").complete(QUESTION))
    fake = tmp_path / "picture.gguf"
    fake.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 4096)
    model = LlamaCppLLM(fake, threads=2)
    try:
        with pytest.raises(ModelLoadError, match=r"picture\.gguf"):
            asyncio.run(model.complete(QUESTION))
    finally:
        model.close()


def test_runs_with_networking_disabled(tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the runtime's own loopback port may be used; any other address fails loudly."""
    attempts: list[object] = []
    real_connect = socket.socket.connect

    def loopback_only(sock: socket.socket, address: object) -> None:
        host = address[0] if isinstance(address, tuple) else address
        if host not in ("127.0.0.1", "::1", "localhost"):
            attempts.append(address)
            raise OSError("network access is disabled in this test")
        real_connect(sock, address)  # type: ignore[arg-type]

    def no_lookup(host: object, *args: object, **kwargs: object) -> object:
        if host not in ("127.0.0.1", "::1", "localhost"):
            attempts.append(host)
            raise OSError("name lookups are disabled in this test")
        return real_getaddrinfo(host, *args, **kwargs)  # type: ignore[arg-type]

    real_getaddrinfo = socket.getaddrinfo
    monkeypatch.setattr(socket.socket, "connect", loopback_only)
    monkeypatch.setattr(socket, "getaddrinfo", no_lookup)
    model = LlamaCppLLM(tiny_gguf, n_ctx=512, threads=2, idle_unload_s=None)
    try:
        assert asyncio.run(model.complete(QUESTION, max_tokens=12)).strip()
    finally:
        model.close()
    assert attempts == []
