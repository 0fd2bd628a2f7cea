"""CohereReranker against a real HTTP server (FakeOpenAIServer speaks Cohere's /v2/rerank)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest
from agentmaker.errors import (
    ConfigurationError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelResponseError,
)
from agentmaker.models.cohere_reranker import CohereReranker
from agentmaker.retrieval.types import RetrievalResult
from agentmaker.testing.openai_server import FakeOpenAIServer

KEY = "co-right-key-123456"
QUERY = "how do cats sleep"
DOCS = [
    "Stock markets fell sharply on Monday.",
    "Cats sleep up to sixteen hours a day.",
    "The recipe needs two eggs and flour.",
    "Many cats sleep in sunny spots.",
]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(api_key=KEY) as srv:
        yield srv


def candidates() -> list[RetrievalResult]:
    return [
        RetrievalResult(content=d, score=0.1 * i, id=f"c{i}", metadata={"page": i})
        for i, d in enumerate(DOCS)
    ]


def reranker(server: FakeOpenAIServer, **kwargs: object) -> CohereReranker:
    options: dict = {"base_url": server.root_url, "api_key": KEY, "retry_backoff": 0.001}
    options.update(kwargs)
    return CohereReranker(**options)


def test_rerank_orders_and_copies(server: FakeOpenAIServer) -> None:
    items = candidates()
    out = reranker(server).rerank(QUERY, items, top_k=2)
    assert {r.id for r in out} == {"c1", "c3"}  # the two documents about cats sleeping
    assert out[0].score > out[1].score
    assert all(r.metadata["rerank_score"] == r.score for r in out)
    assert all(r.metadata["page"] == int(r.id[1:]) for r in out)  # metadata kept
    # The inputs are untouched: copies are returned.
    assert items[1].score == pytest.approx(0.1) and "rerank_score" not in items[1].metadata
    request = server.requests_to("/v2/rerank")[0]
    assert request.body == {"model": "rerank-v3.5", "query": QUERY, "documents": DOCS, "top_n": 2}
    assert request.authorization == f"Bearer {KEY}"


def test_rerank_top_k_larger_than_candidates_and_empty(server: FakeOpenAIServer) -> None:
    rr = reranker(server)
    assert len(rr.rerank(QUERY, candidates(), top_k=10)) == 4
    assert rr.rerank(QUERY, [], top_k=3) == []
    with pytest.raises(ConfigurationError):
        rr.rerank(QUERY, candidates(), top_k=0)
    rr.close()
    rr.close()


def test_rerank_splits_large_candidate_lists(server: FakeOpenAIServer) -> None:
    out = reranker(server, max_documents=3).rerank(QUERY, candidates(), top_k=2)
    assert out == reranker(server).rerank(QUERY, candidates(), top_k=2)
    assert [len(r.body["documents"]) for r in server.requests_to("/v2/rerank")] == [3, 1, 4]


def test_rerank_wrong_key(server: FakeOpenAIServer) -> None:
    with pytest.raises(ModelAuthenticationError, match="rejected the API key") as info:
        reranker(server, api_key="co-wrong-999999").rerank(QUERY, candidates(), top_k=2)
    assert "co-wrong" not in str(info.value)


def test_rerank_unknown_model(server: FakeOpenAIServer) -> None:
    with pytest.raises(ModelNotFoundError, match="rerank-nope"):
        reranker(server, model="rerank-nope").rerank(QUERY, candidates(), top_k=2)


def test_rerank_retries_429_and_5xx(server: FakeOpenAIServer) -> None:
    server.enqueue_error(429, times=1, body={"message": "slow down"})
    server.enqueue_error(502, times=1, body={"message": "bad gateway"})
    out = reranker(server).rerank(QUERY, candidates(), top_k=1)
    assert [r.id for r in out] == ["c3"]
    assert len(server.requests_to("/v2/rerank")) == 3


def test_rerank_gives_up(server: FakeOpenAIServer) -> None:
    server.enqueue_error(429, times=3, body={"message": "slow down"})
    with pytest.raises(ModelRateLimitError):
        reranker(server, max_retries=2).rerank(QUERY, candidates(), top_k=1)
    assert len(server.requests_to("/v2/rerank")) == 3
    server.enqueue_error(500, times=2, body={"message": "boom"})
    with pytest.raises(ModelError, match="HTTP 500"):
        reranker(server, max_retries=1).rerank(QUERY, candidates(), top_k=1)


def test_rerank_bad_request_and_bad_response(server: FakeOpenAIServer) -> None:
    server.enqueue_error(400, body={"message": "invalid top_n"})
    with pytest.raises(ModelResponseError, match="invalid top_n"):
        reranker(server).rerank(QUERY, candidates(), top_k=1)
    server.enqueue_error(200, body={"results": [{"index": 99, "relevance_score": 0.5}]})
    with pytest.raises(ModelResponseError, match="invalid result"):
        reranker(server).rerank(QUERY, candidates(), top_k=1)


def test_rerank_connection_refused() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    rr = CohereReranker(base_url=f"http://127.0.0.1:{port}", api_key="x", retry_backoff=0.001)
    with pytest.raises(ModelConnectionError, match="Could not reach"):
        rr.rerank(QUERY, candidates(), top_k=1)


def test_rerank_timeout(server: FakeOpenAIServer) -> None:
    server.enqueue_hang(3)
    with pytest.raises(ModelConnectionError, match="did not answer"):
        reranker(server, timeout=0.3, max_retries=0).rerank(QUERY, candidates(), top_k=1)


def test_missing_key_for_cohere_cloud(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CO_API_KEY", raising=False)
    with pytest.raises(ModelAuthenticationError, match="CO_API_KEY"):
        CohereReranker().rerank(QUERY, candidates(), top_k=1)


def test_env_key_is_only_sent_to_cohere(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CO_API_KEY", "co-env-secret-1234")
    server.api_key = None
    CohereReranker(base_url=server.root_url).rerank(QUERY, candidates(), top_k=1)
    assert server.requests_to("/v2/rerank")[0].authorization is None


def test_arerank(server: FakeOpenAIServer) -> None:
    async def main() -> list[RetrievalResult]:
        rr = reranker(server)
        server.enqueue_error(503, times=1, body={"message": "busy"})
        try:
            return await rr.arerank(QUERY, candidates(), top_k=2)
        finally:
            await rr.aclose()

    out = asyncio.run(main())
    assert [r.id for r in out] == ["c3", "c1"]
    assert out == reranker(server).rerank(QUERY, candidates(), top_k=2)
