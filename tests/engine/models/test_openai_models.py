"""OpenAIEmbedder and OpenAICompatibleLLM against a real HTTP server (FakeOpenAIServer)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Awaitable, Callable, Iterator

import numpy as np
import pytest
from agentmaker.errors import (
    ContextTooLongError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelResponseError,
)
from agentmaker.models.llm import ChatMessage
from agentmaker.models.openai_embedder import OpenAIEmbedder
from agentmaker.models.openai_llm import (
    NO_KEY,
    AnswerCutOffError,
    OpenAICompatibleLLM,
    connection_hint,
    display_url,
)
from agentmaker.testing.fakes import FakeEmbedder
from agentmaker.testing.openai_server import FakeOpenAIServer

KEY = "sk-right-0123456789"
QUESTION = [ChatMessage("user", "What is the capital of France?")]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(api_key=KEY) as srv:
        yield srv


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def embedder(server: FakeOpenAIServer, **kwargs: object) -> OpenAIEmbedder:
    options: dict = {"base_url": server.base_url, "api_key": KEY, "retry_backoff": 0.001}
    options.update(kwargs)
    return OpenAIEmbedder(options.pop("model", "fake-embed"), **options)


def llm(server: FakeOpenAIServer, **kwargs: object) -> OpenAICompatibleLLM:
    options: dict = {"base_url": server.base_url, "api_key": KEY, "retry_backoff": 0.001}
    options.update(kwargs)
    return OpenAICompatibleLLM(options.pop("model", "fake-chat"), **options)


async def collect(client: OpenAICompatibleLLM) -> list[str]:
    parts = []
    async with contextlib.aclosing(client.stream(QUESTION)) as stream:
        async for piece in stream:
            parts.append(piece)
    return parts


# --- embedder ------------------------------------------------------------------------


def test_embedder_success_batches_and_normalises(server: FakeOpenAIServer) -> None:
    emb = embedder(server, batch_size=3)
    texts = [f"text number {i} about cats" for i in range(7)]
    vectors = emb.embed_batch(texts)
    assert vectors.shape == (7, 32) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    expected = FakeEmbedder(dimension=32).embed_batch(texts)
    np.testing.assert_allclose(vectors, expected, atol=1e-6)  # order preserved
    calls = server.requests_to("/v1/embeddings")
    assert [len(r.body["input"]) for r in calls] == [3, 3, 1]
    assert all(r.authorization == f"Bearer {KEY}" for r in calls)
    assert calls[0].body["encoding_format"] == "float"
    emb.close()
    emb.close()


def test_embedder_caps_characters_per_request(server: FakeOpenAIServer) -> None:
    emb = embedder(server, max_request_chars=25)
    emb.embed_batch(["a" * 10, "b" * 10, "c" * 10, "d" * 30])
    sizes = [len(r.body["input"]) for r in server.requests_to("/v1/embeddings")]
    assert sizes == [2, 1, 1]


def test_embedder_empty_inputs(server: FakeOpenAIServer) -> None:
    emb = embedder(server, dimensions=16)
    assert emb.embed_batch([]).shape == (0, 16)
    vectors = emb.embed_batch(["", "  ", "word"])
    assert vectors.shape == (3, 16) and np.all(np.isfinite(vectors))
    assert server.requests_to("/v1/embeddings")[0].body["input"][:2] == [" ", " "]


def test_embedder_fingerprint_probes_dimension_once(server: FakeOpenAIServer) -> None:
    emb = embedder(server)
    fp = emb.fingerprint
    assert fp.dimension == 32
    assert fp.name == f"openai:fake-embed@127.0.0.1:{server.port}"
    assert emb.fingerprint == fp
    assert len(server.requests_to("/v1/embeddings")) == 1


def test_embedder_dimensions_known_without_request(server: FakeOpenAIServer) -> None:
    emb = embedder(server, dimensions=8)
    assert emb.fingerprint.dimension == 8
    assert server.requests == []
    assert emb.embed("hello").shape == (8,)
    assert server.requests_to("/v1/embeddings")[0].body["dimensions"] == 8


def test_embedder_wrong_key(server: FakeOpenAIServer) -> None:
    emb = embedder(server, api_key="sk-wrong-987654321")
    with pytest.raises(ModelAuthenticationError) as info:
        emb.embed_batch(["x"])
    message = str(info.value)
    assert "rejected the API key. Check the key in Settings." in message
    assert f"127.0.0.1:{server.port}" in message
    assert "sk-wrong" not in message and KEY not in message
    assert len(server.requests_to("/v1/embeddings")) == 1  # 401 is not retried


def test_embedder_unknown_model_lists_available(server: FakeOpenAIServer) -> None:
    emb = embedder(server, model="no-such-model")
    with pytest.raises(ModelNotFoundError) as info:
        emb.embed_batch(["x"])
    assert info.value.available == server.models
    assert "no-such-model" in str(info.value) and "fake-embed" in str(info.value)


def test_embedder_retries_429_then_succeeds(server: FakeOpenAIServer) -> None:
    server.enqueue_error(429, times=2)
    vectors = embedder(server).embed_batch(["a", "b"])
    assert vectors.shape == (2, 32)
    assert len(server.requests_to("/v1/embeddings")) == 3


def test_embedder_retries_5xx_then_succeeds(server: FakeOpenAIServer) -> None:
    server.enqueue_error(503, times=1)
    server.enqueue_error(500, times=1)
    assert embedder(server).embed_batch(["a"]).shape == (1, 32)
    assert len(server.requests_to("/v1/embeddings")) == 3


def test_embedder_gives_up_after_max_retries(server: FakeOpenAIServer) -> None:
    server.enqueue_error(429, times=10)
    with pytest.raises(ModelRateLimitError, match="after 2 retries"):
        embedder(server, max_retries=2).embed_batch(["a"])
    assert len(server.requests_to("/v1/embeddings")) == 3


def test_embedder_insufficient_quota_is_not_retried(server: FakeOpenAIServer) -> None:
    server.enqueue_error(429, times=5, code="insufficient_quota", message="You exceeded quota.")
    with pytest.raises(ModelRateLimitError, match="quota"):
        embedder(server).embed_batch(["a"])
    assert len(server.requests_to("/v1/embeddings")) == 1


def test_embedder_context_too_long(server: FakeOpenAIServer) -> None:
    server.max_input_chars = 50
    with pytest.raises(ContextTooLongError):
        embedder(server).embed_batch(["short", "long " * 40])


def test_embedder_connection_refused_is_fast_and_actionable() -> None:
    port = free_port()
    emb = OpenAIEmbedder("m", base_url=f"http://127.0.0.1:{port}/v1", retry_backoff=0.5)
    started = time.perf_counter()
    with pytest.raises(ModelConnectionError, match=r"Could not reach http://127\.0\.0\.1"):
        emb.embed_batch(["x"])
    assert time.perf_counter() - started < 3  # not retried (retries would wait 0.5+1+2 s)


def test_embedder_timeout(server: FakeOpenAIServer) -> None:
    server.enqueue_hang(3)
    emb = embedder(server, timeout=0.3, max_retries=0)
    with pytest.raises(ModelConnectionError, match=r"did not answer within 0\.3 s"):
        emb.embed_batch(["x"])


def test_embedder_async(server: FakeOpenAIServer) -> None:
    async def main() -> np.ndarray:
        emb = embedder(server)
        server.enqueue_error(429, times=1)
        try:
            assert await emb.aresolve_dimension() == 32
            return await emb.aembed_batch(["one", "two", "three"])
        finally:
            await emb.aclose()

    vectors = asyncio.run(main())
    np.testing.assert_allclose(
        vectors, FakeEmbedder(dimension=32).embed_batch(["one", "two", "three"]), atol=1e-6
    )


def test_embedder_async_unknown_model(server: FakeOpenAIServer) -> None:
    async def main() -> None:
        emb = embedder(server, model="ghost")
        try:
            await emb.aembed_batch(["x"])
        finally:
            await emb.aclose()

    with pytest.raises(ModelNotFoundError) as info:
        asyncio.run(main())
    assert info.value.available == server.models


def test_env_key_is_only_sent_to_openai(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-secret-1234")
    server.api_key = None
    OpenAIEmbedder("fake-embed", base_url=server.base_url).embed_batch(["x"])
    assert server.requests[-1].authorization == f"Bearer {NO_KEY}"


def test_connection_hints() -> None:
    assert "`ollama serve`" in connection_hint("http://127.0.0.1:11434/v1")
    assert "LM Studio" in connection_hint("http://localhost:1234/v1")
    assert "internet" in connection_hint("https://api.openai.com/v1")
    assert display_url("http://user:pw@host:8080/v1?key=sk-abc") == "http://host:8080/v1"


# --- chat ----------------------------------------------------------------------------


def test_llm_stream_success(server: FakeOpenAIServer) -> None:
    async def main() -> tuple[list[str], str]:
        client = llm(server, temperature=0.1)
        try:
            parts = await collect(client)
            whole = await client.complete(QUESTION, max_tokens=50)
            return parts, whole
        finally:
            await client.aclose()

    parts, whole = asyncio.run(main())
    assert len(parts) > 1
    assert "".join(parts) == whole == server.chat_reply
    first, second = server.requests_to("/v1/chat/completions")
    assert first.body["stream"] is True and first.body["temperature"] == 0.1
    assert first.body["messages"] == [{"role": "user", "content": QUESTION[0].content}]
    assert second.body["max_tokens"] == 50


def test_llm_list_models(server: FakeOpenAIServer) -> None:
    async def main() -> list[str]:
        client = llm(server)
        try:
            return await client.list_models()
        finally:
            await client.aclose()

    assert asyncio.run(main()) == server.models


def run_complete(client: OpenAICompatibleLLM) -> str:
    async def main() -> str:
        try:
            return await client.complete(QUESTION)
        finally:
            await client.aclose()

    return asyncio.run(main())


def test_llm_wrong_key(server: FakeOpenAIServer) -> None:
    with pytest.raises(ModelAuthenticationError, match="rejected the API key") as info:
        run_complete(llm(server, api_key="sk-bad-key-42424242"))
    assert "sk-bad-key" not in str(info.value)


def test_llm_unknown_model_lists_available(server: FakeOpenAIServer) -> None:
    with pytest.raises(ModelNotFoundError) as info:
        run_complete(llm(server, model="gpt-nonexistent"))
    assert info.value.available == server.models
    assert "gpt-nonexistent" in str(info.value)


def test_llm_retries_429_then_streams(server: FakeOpenAIServer) -> None:
    server.enqueue_error(429, times=2)
    assert run_complete(llm(server)) == server.chat_reply
    assert len(server.requests_to("/v1/chat/completions")) == 3


def test_llm_context_too_long(server: FakeOpenAIServer) -> None:
    server.enqueue_context_length_exceeded()
    with pytest.raises(ContextTooLongError, match="context window"):
        run_complete(llm(server))


def test_llm_connection_refused_hint_names_ollama_port() -> None:
    # Nothing listens on a random port: the generic local hint.
    client = OpenAICompatibleLLM("m", base_url=f"http://127.0.0.1:{free_port()}/v1")
    with pytest.raises(ModelConnectionError, match=r"Could not reach .* running"):
        run_complete(client)


def test_llm_broken_stream_is_not_returned_as_complete(server: FakeOpenAIServer) -> None:
    server.enqueue_break_stream(after_chunks=2)
    received: list[str] = []

    async def main() -> None:
        client = llm(server)
        try:
            async with contextlib.aclosing(client.stream(QUESTION)) as stream:
                async for piece in stream:
                    received.append(piece)
        finally:
            await client.aclose()

    with pytest.raises(AnswerCutOffError) as info:
        asyncio.run(main())
    assert isinstance(info.value, ModelConnectionError)
    assert "cut off" in str(info.value)
    assert info.value.partial_text == "".join(received)
    assert 0 < len(received) < len(server.chat_reply.split())

    server.enqueue_break_stream(after_chunks=1)
    with pytest.raises(ModelConnectionError, match="cut off"):
        run_complete(llm(server))


def test_llm_malformed_event(server: FakeOpenAIServer) -> None:
    server.enqueue_malformed_stream(after_chunks=1)
    with pytest.raises(ModelResponseError, match="malformed"):
        run_complete(llm(server))


def test_llm_event_with_wrong_shape(server: FakeOpenAIServer) -> None:
    server.enqueue_malformed_stream(after_chunks=1, payload='{"choices": "nonsense"}')
    with pytest.raises(ModelResponseError):
        run_complete(llm(server))


def test_llm_error_event_inside_stream(server: FakeOpenAIServer) -> None:
    server.enqueue_malformed_stream(
        after_chunks=1, payload='{"error": {"message": "model crashed", "type": "server_error"}}'
    )
    with pytest.raises(ModelError, match="model crashed"):
        run_complete(llm(server))


def _slow_stream_test(
    server: FakeOpenAIServer, consume: Callable[[OpenAICompatibleLLM], Awaitable[None]]
) -> None:
    server.enqueue_slow_stream(delay=0.02)

    async def main() -> None:
        client = llm(server)
        try:
            await consume(client)
            disconnected = await asyncio.to_thread(server.wait_for_disconnect, 5)
            assert disconnected, "the server never saw the client go away"
        finally:
            await client.aclose()

    started = time.perf_counter()
    asyncio.run(main())
    assert time.perf_counter() - started < 5
    assert server.disconnects and server.disconnects[0].chunks_sent < 200


def test_closing_the_stream_closes_the_connection(server: FakeOpenAIServer) -> None:
    async def consume(client: OpenAICompatibleLLM) -> None:
        async with contextlib.aclosing(client.stream(QUESTION)) as stream:
            count = 0
            async for _ in stream:
                count += 1
                if count == 3:
                    break

    _slow_stream_test(server, consume)


def test_breaking_out_of_async_for_closes_the_connection(server: FakeOpenAIServer) -> None:
    async def consume(client: OpenAICompatibleLLM) -> None:
        count = 0
        async for _ in client.stream(QUESTION):  # no aclose: the loop finalises it
            count += 1
            if count == 3:
                break

    _slow_stream_test(server, consume)


def test_cancelling_the_task_closes_the_connection(server: FakeOpenAIServer) -> None:
    async def consume(client: OpenAICompatibleLLM) -> None:
        got_some = asyncio.Event()

        async def reader() -> None:
            async for _ in client.stream(QUESTION):
                got_some.set()

        task = asyncio.create_task(reader())
        await asyncio.wait_for(got_some.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    _slow_stream_test(server, consume)


def test_stalled_stream_times_out_as_cut_off(server: FakeOpenAIServer) -> None:
    server.enqueue_slow_stream(delay=1.0)  # the first word comes after 1 s
    with pytest.raises(AnswerCutOffError, match=r"sent nothing for 0\.3 s"):
        run_complete(llm(server, timeout=0.3))
